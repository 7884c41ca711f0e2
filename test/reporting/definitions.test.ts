import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrateWarehouse } from '../../src/app/migrate-warehouse.js';
import type { Db } from '../../src/catalog/tables.js';
import { applyReportingDefinitions, creationOrder } from '../../src/reporting/apply-definitions.js';
import { grantReader } from '../../src/reporting/reader-role.js';
import { refreshReporting } from '../../src/reporting/refresh.js';
import { REPORTING_VIEWS, type ReportingView } from '../../src/reporting/views.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { renderSchema } from '../support/schema-snapshot.js';
import { FIXTURE_NOW, insertFixture, insertUnitInventory, SOUTH } from './fixture.js';
import { migrator } from './maintained-view-support.js';

const suffix = randomBytes(4).toString('hex');
/** A reader limited to account north, and one that sees every account. */
const north = `propsync_test_defs_north_${suffix}`;
const everyone = `propsync_test_defs_all_${suffix}`;
const ZONE = 'America/Denver';

/** Two accounts' rows, their names, and the views refreshed as at the end of a sync. */
async function load(db: Db): Promise<void> {
  await insertFixture(db, 'north');
  await insertFixture(db, 'south', SOUTH);
  await sql`insert into accounts (account_id, name) values ('north', 'North Homes'), ('south', 'South Estates')`.execute(
    db,
  );
  await refreshReporting(db, { timeZone: ZONE });
}

/** Every row of every view (of those `db` has), as its owner reads them, at the fixture's moment. */
async function everyRow(db: Db): Promise<Record<string, unknown[]>> {
  const { rows: present } = await sql<{ name: string }>`
    select c.relname as name from pg_class c where c.relnamespace = 'reporting'::regnamespace`.execute(db);
  const names = new Set(present.map((row) => row.name));
  return db.connection().execute(async (connection) => {
    await sql`select set_config('reporting.now', ${FIXTURE_NOW}, false)`.execute(connection);
    const rows: Record<string, unknown[]> = {};
    for (const view of REPORTING_VIEWS.filter((candidate) => names.has(candidate.name))) {
      const { rows: found } = await sql<Record<string, unknown>>`
        select * from ${sql.id('reporting', view.name)} v order by v::text`.execute(connection);
      rows[view.name] = found;
    }
    await sql`select set_config('reporting.now', '', false)`.execute(connection);
    return rows;
  });
}

/** The account ids of `view`'s rows that `role` reads. */
async function accountsSeenBy(db: Db, role: string, relation: string): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`set local role ${sql.id(role)}`.execute(trx);
    const { rows } = await sql<{ account_id: string }>`
      select distinct account_id from ${sql.raw(relation)} order by account_id`.execute(trx);
    return rows.map((row) => row.account_id);
  });
}

/** The oid of each reporting relation, by schema-qualified name: a view left alone keeps its oid. */
async function oids(db: Db): Promise<Map<string, number>> {
  const { rows } = await sql<{ name: string; oid: number }>`
    select n.nspname || '.' || c.relname as name, c.oid::int as oid
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname in ('reporting', 'reporting_private') and c.relkind in ('v', 'm')`.execute(db);
  return new Map(rows.map((row) => [row.name, row.oid]));
}

/** The definitions with `name`'s changed by `change`. */
function changed(name: string, change: (view: ReportingView) => ReportingView): ReportingView[] {
  return REPORTING_VIEWS.map((view) => (view.name === name ? change(view) : view));
}

describe('reporting definitions', () => {
  let fresh: TestDatabase;
  let old: TestDatabase;
  beforeAll(async () => {
    fresh = await createTestDatabase();
    old = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await old?.drop();
    await fresh?.drop();
    const admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
    await admin.connect();
    try {
      for (const role of [north, everyone]) await admin.query(`drop role if exists ${role}`);
    } finally {
      await admin.end();
    }
  });

  it('a warehouse made by the release before upgrades to the schema and rows of a fresh one', async () => {
    // The release before: the versioned migrations up to 0016, its views made by them, data and a reader.
    const { error } = await migrator(old.db).migrateTo('0016_vendor_spend_groups');
    expect(error).toBeUndefined();
    await load(old.db);
    await grantReader(old.db, { role: north, accounts: ['north'] });
    const before = await everyRow(old.db);

    const upgrade = await migrateWarehouse(old.db);
    expect(upgrade.applied).toEqual(
      expect.arrayContaining([
        '0017_run_unread',
        '0018_reporting_definitions',
        '0019_account_days',
        '0021_units',
        '0024_privacy_policies',
      ]),
    );
    expect(upgrade.reporting.created).toEqual(creationOrder(REPORTING_VIEWS).map((view) => view.name));

    // The unit inventory came after the release before: its rows are written once its tables are there.
    await insertUnitInventory(old.db, 'north');
    await insertUnitInventory(old.db, 'south', SOUTH);
    await load(fresh.db);
    expect(await renderSchema(old.db)).toBe(await renderSchema(fresh.db));
    await refreshReporting(old.db, { timeZone: ZONE });
    const after = await everyRow(old.db);
    expect(after).toEqual(await everyRow(fresh.db));
    // This change of definitions changed no answer (views, columns and the rent roll's vacant units added since
    // aside: 0021's unit inventory), but lease_expirations' on purpose: renewals are counted once started.
    const changed = new Set(['lease_expirations']);
    const kept = (rows: unknown[]) =>
      rows.filter((row) => (row as { is_vacant?: boolean }).is_vacant !== true);
    const asBefore = Object.fromEntries(
      Object.entries(before)
        .filter(([view]) => !changed.has(view))
        .map(([view, rows]) => [
          view,
          kept(after[view]).map((row) =>
            Object.fromEntries(
              Object.keys((rows[0] ?? {}) as object).map((key) => [key, (row as never)[key]]),
            ),
          ),
        ]),
    );
    expect(asBefore).toEqual(
      Object.fromEntries(Object.entries(before).filter(([view]) => !changed.has(view))),
    );
    expect(await accountsSeenBy(old.db, north, 'reporting.rent_roll')).toEqual(['north']);
  });

  it('leaves unchanged views alone, replaces a changed one with what reads it, drops a removed one', async () => {
    const db = fresh.db;
    await grantReader(db, { role: north, accounts: ['north'] });
    await grantReader(db, { role: everyone });
    // What a DBA or analyst may have added: an index on the rows of a view, a view of their own over one.
    await sql`create index occupancy_month_idx on reporting_private.occupancy_monthly_rows (month)`.execute(
      db,
    );
    await sql`create schema if not exists analyst`.execute(db);
    await sql`create view analyst.rent as select account_id, lease_id, open_balance from reporting.rent_roll`.execute(
      db,
    );
    await sql`grant usage on schema analyst to ${sql.id(north)}`.execute(db);
    await sql`grant select on analyst.rent to ${sql.id(north)}`.execute(db);
    const first = await oids(db);

    const again = await applyReportingDefinitions(db);
    expect(again).toEqual({
      created: [],
      replaced: [],
      dropped: [],
      unchanged: creationOrder(REPORTING_VIEWS).map((view) => view.name),
    });
    expect(await oids(db)).toEqual(first);

    // A leaf changed: it alone is made again.
    const leaf = changed('lease_expirations', (view) => ({
      ...view,
      query: `${view.query}\n    -- changed`,
    }));
    expect(await applyReportingDefinitions(db, leaf)).toMatchObject({ replaced: ['lease_expirations'] });
    const second = await oids(db);
    for (const [name, oid] of second)
      if (name.endsWith('.lease_expirations')) expect(oid).not.toBe(first.get(name));
      else expect(oid).toBe(first.get(name));

    // The property dimension changed: every view that reads it is made again, as are the analyst's.
    const dimension = changed('properties', (view) => ({
      ...view,
      query: view.query.replace('r.ap_post_month', 'r.ap_post_month, 1 as revision'),
    }));
    const outcome = await applyReportingDefinitions(db, dimension);
    expect(outcome.replaced).toEqual(
      expect.arrayContaining(['properties', 'rent_roll', 'occupancy_monthly']),
    );
    expect(outcome.unchanged).toEqual([]);
    const { rows: columns } = await sql<{ revision: number }>`
      select distinct revision from reporting.properties`.execute(db);
    expect(columns).toEqual([{ revision: 1 }]);
    // Readers keep their grants and their accounts; the analyst's view and index are there again.
    expect(await accountsSeenBy(db, north, 'reporting.rent_roll')).toEqual(['north']);
    expect(await accountsSeenBy(db, north, 'reporting.properties')).toEqual(['north']);
    expect(await accountsSeenBy(db, north, 'analyst.rent')).toEqual(['north']);
    expect(await accountsSeenBy(db, everyone, 'reporting.occupancy_monthly')).toEqual(['north', 'south']);
    const { rows: indexes } = await sql<{ indexname: string }>`
      select indexname from pg_indexes
       where schemaname = 'reporting_private' and tablename = 'occupancy_monthly_rows'
       order by indexname`.execute(db);
    expect(indexes.map((row) => row.indexname)).toEqual([
      'occupancy_month_idx',
      'occupancy_monthly_rows_day_idx',
      'occupancy_monthly_rows_grain',
    ]);
    expect((await refreshReporting(db, { timeZone: ZONE })).refreshed).toContain('occupancy_monthly');

    // A definition removed: its views are dropped, and made again when it comes back.
    const without = REPORTING_VIEWS.filter((view) => view.name !== 'lease_expirations');
    // (and the dimension is back to its definition: the views that read it are made again)
    const removal = await applyReportingDefinitions(db, without);
    expect(removal).toMatchObject({ created: [], dropped: ['lease_expirations'] });
    expect(removal.replaced).toEqual(expect.arrayContaining(['properties', 'rent_roll']));
    const { rows: gone } = await sql<{ found: string | null }>`
      select to_regclass('reporting.lease_expirations')::text as found`.execute(db);
    expect(gone).toEqual([{ found: null }]);
    const back = await applyReportingDefinitions(db);
    expect(back).toMatchObject({ created: ['lease_expirations'], replaced: [], dropped: [] });
    expect(await accountsSeenBy(db, north, 'reporting.lease_expirations')).toEqual(['north']);
    await sql`drop schema analyst cascade`.execute(db);
  });
});
