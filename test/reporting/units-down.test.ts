import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrateWarehouse } from '../../src/app/migrate-warehouse.js';
import type { Db } from '../../src/catalog/tables.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { insertFixture } from './fixture.js';
import { migrator } from './maintained-view-support.js';

const role = `propsync_test_units_down_${randomBytes(4).toString('hex')}`;

async function columns(db: Db, relation: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select attname as name from pg_attribute
     where attrelid = ${relation}::regclass and attnum > 0 and not attisdropped order by attnum`.execute(db);
  return rows.map((row) => row.name);
}

async function relations(db: Db, schema: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select relname || ':' || relkind::text as name from pg_class
     where relnamespace = ${schema}::regnamespace and relkind in ('v', 'm') order by 1`.execute(db);
  return rows.map((row) => row.name);
}

describe('migration 0021 reverted', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await database?.drop();
    const admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
    await admin.connect();
    try {
      await admin.query(`drop role if exists ${role}`);
    } finally {
      await admin.end();
    }
  });

  it('leaves occupancy_monthly and portfolio as before it, with what read them; migrate makes them again', async () => {
    const db = database.db;
    await migrateWarehouse(db);
    await insertFixture(db, 'default');
    await sql`create role ${sql.id(role)}`.execute(db);
    await sql`grant select on reporting.portfolio to ${sql.id(role)}`.execute(db);
    // occupancy_monthly as it was before 0025 kept it in a table: materialized.
    expect((await migrator(db).migrateTo('0024_privacy_policies')).error).toBeUndefined();
    await sql`create index occupancy_monthly_month_idx on reporting_private.occupancy_monthly (month)`.execute(
      db,
    );
    await sql`create schema extra`.execute(db);
    await sql`create view extra.occupied as select account_id, units_occupied from reporting.portfolio`.execute(
      db,
    );
    await sql`create view extra.vacant as select account_id, vacant from reporting.box_score`.execute(db);
    const reporting = await relations(db, 'reporting');

    expect((await migrator(db).migrateTo('0020_advisory_locks_owner_only')).error).toBeUndefined();

    // The views of 0021's definitions are gone (with unit_rent_roll, which reads units); the two it changed are
    // those of before it.
    expect(await relations(db, 'reporting')).toEqual(
      reporting.filter((name) => !['units:v', 'box_score:v', 'unit_rent_roll:v'].includes(name)),
    );
    expect(await relations(db, 'reporting_private')).toContain('occupancy_monthly:m');
    expect(await columns(db, 'reporting.occupancy_monthly')).not.toContain('units_source');
    expect(await columns(db, 'reporting.portfolio')).toEqual([
      'account_id',
      'account_name',
      'properties',
      'units_known',
      'units_occupied',
      'occupancy_percent',
      'current_leases',
      'open_ar_balance',
      'past_due_ar_balance',
      'open_ap_invoices',
      'open_ap_amount',
      'as_of_date',
    ]);
    const { rows: indexes } = await sql<{ name: string }>`
      select indexname as name from pg_indexes where schemaname = 'reporting_private' and tablename = 'occupancy_monthly'
       order by 1`.execute(db);
    expect(indexes.map((row) => row.name)).toEqual([
      'occupancy_monthly_grain_idx',
      'occupancy_monthly_month_idx',
    ]);
    // Its rows are counted from the leases again (the fixture's, written after the views were first made).
    const { rows: occupancy } = await sql<{ units_known: number }>`
      select distinct units_known from reporting.occupancy_monthly where account_id = 'default'`.execute(db);
    expect(occupancy.length).toBeGreaterThan(0);
    expect(occupancy.every((row) => row.units_known > 0)).toBe(true);
    const { rows: granted } = await sql<{ granted: boolean }>`
      select has_table_privilege(${role}, 'reporting.portfolio', 'select') as granted`.execute(db);
    expect(granted).toEqual([{ granted: true }]);
    // A view of another schema that read portfolio is there again; one that read box_score went with it.
    expect(await relations(db, 'extra')).toEqual(['occupied:v']);
    const { rows: checksums } = await sql<{ name: string }>`
      select name from reporting_private.view_definitions
       where name in ('units', 'box_score', 'unit_rent_roll', 'occupancy_monthly', 'portfolio')`.execute(db);
    expect(checksums).toEqual([]);

    // The versions before can go on down, and migrate brings the layer back to its definitions.
    await sql`drop schema extra cascade`.execute(db);
    expect((await migrator(db).migrateTo('0010_accounts')).error).toBeUndefined();
    const again = await migrateWarehouse(db);
    expect(again.applied).toContain('0021_units');
    expect(again.reporting.created).toEqual(
      expect.arrayContaining(['occupancy_monthly', 'portfolio', 'units', 'box_score', 'unit_rent_roll']),
    );
    expect(await columns(db, 'reporting.portfolio')).toContain('units_source');
    expect(await columns(db, 'reporting.occupancy_monthly')).toContain('units_source');
  });
});
