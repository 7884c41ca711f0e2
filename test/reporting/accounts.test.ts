import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Warehouse } from '../../src/catalog/tables.js';
import { grantReader } from '../../src/reporting/reader-role.js';
import { updateGroups } from '../../src/reporting/maintained-groups.js';
import { AR_ACTIVITY } from '../../src/reporting/definitions/ar-activity-monthly.js';
import { VENDOR_SPEND } from '../../src/reporting/definitions/vendor-spend-monthly.js';
import { OCCUPANCY_ROWS } from '../../src/reporting/definitions/occupancy-monthly.js';
import { PROPERTY_ROWS } from '../../src/reporting/definitions/properties.js';
import { refreshReporting } from '../../src/reporting/refresh.js';
import { REPORTING_VIEWS } from '../../src/reporting/views.js';
import { connect } from '../../src/warehouse/db.js';
import { migrationProvider } from '../../src/warehouse/migrate.js';
import { migrateWarehouse } from '../../src/app/migrate-warehouse.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { FIXTURE_NOW, insertFixture, insertUnitInventory, SOUTH } from './fixture.js';

const ZONE = 'America/Denver';
const VIEWS = REPORTING_VIEWS.map((view) => view.name);
/** The source tables the fixture fills. */
const FIXTURE_TABLES = [
  'leases',
  'lease_intervals',
  'lease_customers',
  'lease_unit_spaces',
  'lease_scheduled_charges',
  'ar_transactions',
  'invoices',
  'invoice_line_items',
  'voided_payments',
  'unit_inventories',
  'units',
  'unit_spaces',
  'unit_space_status_history',
];

/** Every row of a reporting view for one account, in a stable order. */
async function viewRows(db: Db, view: string, account: string): Promise<unknown[]> {
  const columns = REPORTING_VIEWS.find((declared) => declared.name === view)!.columns;
  const { rows } =
    await sql`select * from ${sql.id('reporting', view)} where account_id = ${account} order by ${sql.raw(columns.map((_, i) => i + 1).join(', '))}`.execute(
      db,
    );
  return rows;
}

/** One session whose clock is the fixture's (23:30 on 2024-06-30 in Denver). */
async function fixtureSession(url: string): Promise<Db> {
  const session = connect<Warehouse>(url, { maxConnections: 1 });
  await sql`select set_config('reporting.now', ${FIXTURE_NOW}, false)`.execute(session);
  return session;
}

describe('reporting views of two accounts with the same ids', () => {
  let database: TestDatabase;
  let session: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    await insertFixture(database.db, 'north');
    await insertFixture(database.db, 'south', SOUTH);
    await sql`insert into accounts (account_id, name) values ('north', 'North Homes'), ('south', 'South Estates')`.execute(
      database.db,
    );
    session = await fixtureSession(database.url);
    await refreshReporting(session, { timeZone: ZONE });
  });
  afterAll(async () => {
    await session?.destroy();
    await database?.drop();
  });

  it("give each account the rows it gives alone: no join matches another account's ids", async () => {
    const together = new Map<string, unknown[]>();
    for (const view of VIEWS)
      for (const account of ['north', 'south'])
        together.set(`${view}/${account}`, await viewRows(session, view, account));
    for (const account of ['north', 'south']) {
      const other = account === 'north' ? 'south' : 'north';
      // The account alone: the other's rows deleted, the views kept in tables updated, then all undone.
      const alone = await session
        .transaction()
        .execute(async (trx) => {
          for (const table of [...FIXTURE_TABLES, 'accounts'])
            await sql`delete from ${sql.id('public', table)} where account_id = ${other}`.execute(trx);
          await updateGroups(trx, PROPERTY_ROWS);
          await updateGroups(trx, OCCUPANCY_ROWS);
          await updateGroups(trx, AR_ACTIVITY);
          await updateGroups(trx, VENDOR_SPEND);
          const rows = new Map<string, unknown[]>();
          for (const view of VIEWS) {
            expect(await viewRows(trx, view, other), `${view} without ${other}`).toEqual([]);
            rows.set(view, await viewRows(trx, view, account));
          }
          throw Object.assign(new Error('undo'), { rows });
        })
        .catch((error: { rows?: Map<string, unknown[]> }) => {
          if (!error.rows) throw error;
          return error.rows;
        });
      for (const view of VIEWS)
        expect(together.get(`${view}/${account}`), `${view} of ${account}`).toEqual(alone.get(view));
    }
    // The accounts' data differ, so the comparison above could tell a mix: every view has rows of both, and
    // most differ.
    const strip = (rows: unknown[]) =>
      rows.map(({ account_id: _id, account_name: _name, ...rest }: any) => rest);
    for (const view of VIEWS) {
      expect(together.get(`${view}/north`)!.length, `${view} of north`).toBeGreaterThan(0);
      expect(together.get(`${view}/south`)!.length, `${view} of south`).toBeGreaterThan(0);
    }
    const differing = VIEWS.filter(
      (view) =>
        JSON.stringify(strip(together.get(`${view}/north`)!)) !==
        JSON.stringify(strip(together.get(`${view}/south`)!)),
    );
    expect(differing).toEqual(VIEWS);
  });

  it('name each account on every row, and sum the accounts side by side in portfolio', async () => {
    for (const view of VIEWS) {
      const { rows } = await sql<{
        account_id: string;
        account_name: string;
      }>`select distinct account_id, account_name from ${sql.id('reporting', view)} order by 1`.execute(
        session,
      );
      expect(rows, view).toEqual([
        { account_id: 'north', account_name: 'North Homes' },
        { account_id: 'south', account_name: 'South Estates' },
      ]);
    }
    expect(await viewRows(session, 'portfolio', 'north')).toEqual([
      {
        account_id: 'north',
        account_name: 'North Homes',
        properties: 2,
        units_known: 5,
        units_occupied: 3,
        units_source: 'leases',
        occupancy_percent: '60.0',
        // The inventory's homes: 102-A and 102-B on notice (A pre-leased), 103 vacant; leased 101, 102-A, 201.
        units_vacant: 1,
        units_on_notice: 2,
        units_preleased: 1,
        leased_percent: '50.0',
        current_leases: 3,
        open_ar_balance: '1025.00',
        past_due_ar_balance: '950.00',
        open_ap_invoices: 4,
        open_ap_amount: '810.00',
        as_of_date: '2024-06-30',
        // Past due charges 500 + 200 (lease 1) + 300 (lease 2), the -50 credit of lease 3 apart.
        resident_past_due_ar: '1000.00',
        resident_ar_credits: '-50.00',
        application_ar_balance: '0.00',
      },
    ]);
    // In south lease 2 is Current (no move-out): one unit more occupied; AR item 10 is missing; amounts are doubled.
    expect(await viewRows(session, 'portfolio', 'south')).toEqual([
      expect.objectContaining({
        properties: 2,
        units_known: 5,
        units_occupied: 3,
        current_leases: 3,
        open_ar_balance: '1450.00',
        past_due_ar_balance: '1300.00',
        open_ap_invoices: 4,
        open_ap_amount: '1620.00',
      }),
    ]);
    // An account configured but never synced is listed, with nothing in it.
    await sql`insert into accounts (account_id, name) values ('west', null)`.execute(database.db);
    try {
      expect(await viewRows(session, 'portfolio', 'west')).toEqual([
        expect.objectContaining({
          account_name: null,
          properties: 0,
          current_leases: 0,
          open_ar_balance: '0.00',
          occupancy_percent: null,
        }),
      ]);
    } finally {
      await sql`delete from accounts where account_id = 'west'`.execute(database.db);
    }
  });

  it('keep each view in a table unique on its grain led by account_id', async () => {
    const { rows } = await sql<{ view: string; columns: string }>`
      select c.relname as view, pg_get_indexdef(x.indexrelid) as columns
        from pg_index x join pg_class c on c.oid = x.indrelid
       where c.relnamespace = 'reporting_private'::regnamespace and c.relkind in ('m', 'r') and x.indisunique and not x.indisprimary
       order by 1`.execute(session);
    expect(rows.map((row) => [row.view, /\((account_id,[^)]*)\)/.exec(row.columns)?.[1]])).toEqual([
      ['ar_activity_groups', 'account_id, property_id, post_month, ar_code_id'],
      ['occupancy_monthly_rows', 'account_id, property_id, month'],
      ['properties_rows', 'account_id, property_id'],
      ['vendor_spend_groups', 'account_id, post_month, vendor_id, property_id'],
    ]);
    // The views are populated: this refresh has nothing to do but runs through every one.
    expect(await refreshReporting(session, { timeZone: ZONE })).toEqual({
      refreshed: ['properties', 'ar_activity_monthly', 'occupancy_monthly', 'vendor_spend_monthly'],
      skipped: [],
    });
    expect((await viewRows(session, 'occupancy_monthly', 'south')).length).toBe(
      (await viewRows(session, 'occupancy_monthly', 'north')).length,
    );
  });

  it('lead the reporting indexes on base tables with account_id', async () => {
    const { rows } = await sql<{ name: string; definition: string }>`
      select indexrelid::regclass::text as name, pg_get_indexdef(indexrelid) as definition from pg_index
       where indexrelid::regclass::text in ('ar_transactions_open_idx', 'invoices_open_idx', 'invoices_post_month_idx', 'voided_payments_voided_on_idx', 'invoices_reversal_idx', 'lease_scheduled_charges_interval_idx')
       order by 1`.execute(session);
    expect(rows).toHaveLength(6);
    for (const row of rows) expect(row.definition, row.name).toMatch(/USING btree \(account_id, /);
  });
});

describe('upgrading a warehouse of one account in place', () => {
  let database: TestDatabase;
  const reader = `propsync_test_upgrade_${Math.random().toString(16).slice(2, 10)}`;

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    if (database) {
      await sql`drop owned by ${sql.id(reader)}`.execute(database.db).catch(() => {});
      await sql`drop role if exists ${sql.id(reader)}`.execute(database.db);
    }
    await database?.drop();
  });

  it('shows the rows from before accounts under account default, to the readers it had', async () => {
    const migrator = new Migrator({ db: database.db, provider: migrationProvider() });
    // Rows written before accounts existed, then the accounts migration: they become account default.
    expect((await migrator.migrateTo('0009_reporting_unique_indexes')).error).toBeUndefined();
    await insertFixture(database.db, 'default', (_table, { account_id: _account, ...row }) => row);
    expect((await migrator.migrateTo('0010_accounts')).error).toBeUndefined();
    await grantReader(database.db, { role: reader });
    await sql`update reporting.settings set time_zone = 'America/Denver'`.execute(database.db);

    const { applied } = await migrateWarehouse(database.db);
    expect(applied).toContain('0011_reporting_accounts');
    // The unit inventory came after: its rows are written once its tables are there.
    await insertUnitInventory(database.db, 'default');
    const session = await fixtureSession(database.url);
    try {
      await refreshReporting(session, { timeZone: ZONE });
      for (const view of VIEWS) {
        const { rows } = await sql<{
          account_id: string;
          n: number;
        }>`select account_id, count(*)::int as n from ${sql.id('reporting', view)} group by 1`.execute(
          session,
        );
        expect(
          rows.map((row) => row.account_id),
          view,
        ).toEqual(['default']);
      }
      expect(
        (
          await sql<{ lease_id: number }>`select lease_id from reporting.rent_roll order by 1`.execute(
            session,
          )
        ).rows.map((row) => row.lease_id),
      ).toEqual([1, 2, 6, 8]);
      expect(
        (
          await sql`select account_id, account_name, balance from reporting.ar_aging_by_property`.execute(
            session,
          )
        ).rows,
      ).toEqual([{ account_id: 'default', account_name: null, balance: '1025.00' }]);

      // The reader it had reads the new views, every account, without being granted again.
      await session.transaction().execute(async (trx) => {
        await sql`set local role ${sql.id(reader)}`.execute(trx);
        for (const view of VIEWS) {
          const { rows } = await sql<{
            n: number;
          }>`select count(*)::int as n from ${sql.id('reporting', view)}`.execute(trx);
          expect(rows[0].n, view).toBeGreaterThan(0);
        }
      });
    } finally {
      await session.destroy();
    }

    // Reverted, the views are those of 0004 and 0009 again, with the same rows and readers.
    expect((await migrator.migrateTo('0010_accounts')).error).toBeUndefined();
    const { rows: columns } = await sql<{
      name: string;
    }>`select attname as name from pg_attribute where attrelid = 'reporting.rent_roll'::regclass and attnum > 0 order by attnum`.execute(
      database.db,
    );
    expect(columns[0].name).toBe('property_id');
    expect(columns.map((column) => column.name)).not.toContain('account_id');
    const { rows: kinds } = await sql<{
      name: string;
      kind: string;
    }>`select relname as name, relkind::text as kind from pg_class where relnamespace = 'reporting'::regnamespace and relkind = 'm' order by 1`.execute(
      database.db,
    );
    expect(kinds.map((row) => row.name)).toEqual([
      'ar_activity_monthly',
      'occupancy_monthly',
      'properties',
      'vendor_spend_monthly',
    ]);
    await database.db.transaction().execute(async (trx) => {
      await sql`set local role ${sql.id(reader)}`.execute(trx);
      expect(
        (await sql<{ n: number }>`select count(*)::int as n from reporting.properties`.execute(trx)).rows[0]
          .n,
      ).toBe(2);
    });
    expect(
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from pg_policies where schemaname = 'public'`.execute(database.db)
      ).rows[0].n,
    ).toBe(0);
    expect((await migrateWarehouse(database.db)).applied).toEqual([
      '0011_reporting_accounts',
      '0012_queue',
      '0013_verifications_property_fields',
      '0014_account_load_costs',
      '0015_ar_activity_groups',
      '0016_vendor_spend_groups',
      '0017_run_unread',
      '0018_reporting_definitions',
      '0019_account_days',
      '0020_advisory_locks_owner_only',
      '0021_units',
      '0022_alert_state',
      '0024_privacy_policies',
      '0025_reporting_account_rows',
      '0026_raw_statistics',
      '0027_ready_queues',
      '0028_unit_row_hashes',
    ]);
  });
});
