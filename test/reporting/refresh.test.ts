import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshAfterSync, refreshReporting } from '../../src/reporting/refresh.js';
import type { Db, Warehouse } from '../../src/catalog/tables.js';
import { connect } from '../../src/warehouse/db.js';
import { jsonLines, startCliWorld, waitFor, type CliWorld } from '../cli/support.js';
import { runPropsync } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { insertFixture } from './fixture.js';

/** The views a refresh brings up to date: materialized ones, and those kept group by group. */
const MATERIALIZED = ['ar_activity_monthly', 'occupancy_monthly', 'properties', 'vendor_spend_monthly'];
const ZONE = 'America/Denver';

/** A connection of its own, as a BI tool or another process would hold. */
async function session(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: 'bi-reader' });
  await client.connect();
  return client;
}

/** A reader that opens a transaction and reads every materialized view in it, leaving it open. */
async function openReader(url: string): Promise<pg.Client> {
  const reader = await session(url);
  await reader.query('begin');
  for (const view of MATERIALIZED) await reader.query(`select * from reporting.${view}`);
  return reader;
}

describe('refreshing the materialized reporting views', () => {
  let database: TestDatabase;
  let nextId = 1000;

  /** An invoice posted in June 2024 with one line, as a sync would write it. */
  async function addInvoice(
    vendorId: number | null,
    propertyId: number | null,
    amount: string,
  ): Promise<void> {
    const id = nextId++;
    await sql`insert into invoices (account_id, invoice_id, invoice_type_id, vendor_id, vendor_name, post_month, amount, amount_due, raw)
              values ('default', ${id}, 5, ${vendorId}, 'Vendor', '2024-06-01', ${amount}, 0, '{}')`.execute(
      database.db,
    );
    await sql`insert into invoice_line_items (account_id, line_item_id, invoice_id, property_id, amount, raw) values ('default', ${id}, ${id}, ${propertyId}, ${amount}, '{}')`.execute(
      database.db,
    );
  }

  /** The June 2024 spend of a vendor (null: no vendor) on property 100. */
  async function juneSpend(vendorId: number | null): Promise<string[]> {
    const { rows } = await sql<{ amount: string }>`
      select amount from reporting.vendor_spend_monthly
       where post_month = '2024-06-01' and vendor_id is not distinct from ${vendorId} and property_id is not distinct from 100`.execute(
      database.db,
    );
    return rows.map((row) => row.amount);
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    await insertFixture(database.db);
    await refreshReporting(database.db, { timeZone: ZONE });
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("blocks neither on a reader's open transaction nor other readers while it runs", async () => {
    await addInvoice(777, 100, '12.34');
    const reader = await openReader(database.url);
    // Another session holds a table the vendor spend reads: that refresh stays under way until it lets go.
    const holder = await session(database.url);
    await holder.query('begin');
    await holder.query('lock table public.invoices in access exclusive mode');
    const refreshing: Db = connect<Warehouse>(database.url, {
      maxConnections: 1,
      applicationName: 'refresh-under-test',
    });
    const third = await session(database.url);
    let done: Promise<unknown> | undefined;
    try {
      done = refreshReporting(refreshing, { timeZone: ZONE, lockTimeoutMs: 60_000 });
      await waitFor(
        async () => {
          const { rows } =
            await sql`select 1 from pg_stat_activity where application_name = 'refresh-under-test' and wait_event_type = 'Lock'`.execute(
              database.db,
            );
          return rows.length > 0;
        },
        20_000,
        'the refresh to wait for a lock',
      );
      // A third session reads every materialized view meanwhile, and gets the rows of the last refresh.
      await third.query(`set lock_timeout = '3s'`);
      for (const view of MATERIALIZED)
        expect(
          (await third.query(`select count(*)::int as n from reporting.${view}`)).rows[0].n,
          view,
        ).toBeGreaterThan(0);
      expect(
        (
          await third.query(
            `select count(*)::int as n from reporting.vendor_spend_monthly where vendor_id = 777`,
          )
        ).rows[0].n,
      ).toBe(0);
      await holder.query('commit');
      expect(await done).toEqual({
        refreshed: ['properties', 'ar_activity_monthly', 'occupancy_monthly', 'vendor_spend_monthly'],
        skipped: [],
      });
      expect(await juneSpend(777)).toEqual(['12.34']);
      // The reader's transaction was open all along, and reads the refreshed rows now.
      expect(
        (
          await reader.query(
            `select count(*)::int as n from reporting.vendor_spend_monthly where vendor_id = 777`,
          )
        ).rows[0].n,
      ).toBe(1);
    } finally {
      for (const client of [holder, reader, third]) await client.end().catch(() => {});
      await done?.catch(() => {});
      await refreshing.destroy();
    }
  });

  it('side by side: a view waiting for a lock holds back none that does not read what it waits for', async () => {
    await addInvoice(779, 100, '3.21');
    // A ledger row written: its group is summed again.
    await sql`update ar_transactions set amount = amount where ar_transaction_id = (select min(ar_transaction_id) from ar_transactions)`.execute(
      database.db,
    );
    // Another session holds the AR ledger and the leases: the AR activity and the properties (which
    // name properties from leases) wait; the vendor spend reads neither, and joins the properties
    // only when it is read.
    const holder = await session(database.url);
    let done: Promise<unknown> | undefined;
    try {
      await holder.query('begin');
      await holder.query('lock table public.ar_transactions, public.leases in access exclusive mode');
      done = refreshReporting(database.db, { timeZone: ZONE, lockTimeoutMs: 60_000, parallel: true });
      await waitFor(
        async () => (await juneSpend(779)).length > 0,
        20_000,
        'the vendor spend to be refreshed while the AR activity waits',
      );
      expect(await juneSpend(779)).toEqual(['3.21']);
      // The AR activity is maintained group by group: its sums of the ledger wait, not a refresh.
      const { rows } =
        await sql`select 1 from pg_stat_activity where query ilike '%insert into reporting_private.ar_activity_groups%' and wait_event_type = 'Lock'`.execute(
          database.db,
        );
      expect(rows.length).toBe(1);
      // And so are the properties, which the vendor spend did not wait for.
      const { rows: properties } =
        await sql`select 1 from pg_stat_activity where query ilike '%insert into reporting_private.properties_rows%' and wait_event_type = 'Lock'`.execute(
          database.db,
        );
      expect(properties.length).toBe(1);
      await holder.query('commit');
      const outcome = (await done) as { refreshed: string[]; skipped: string[] };
      expect([...outcome.refreshed].sort()).toEqual([...MATERIALIZED].sort());
      expect(outcome.skipped).toEqual([]);
    } finally {
      await holder.end().catch(() => {});
      await done?.catch(() => {});
    }
  });

  it('skips a view whose lock it cannot get, with a warning, and refreshes it at the next run', async () => {
    await addInvoice(778, 100, '56.78');
    const logs: { level: string; event: unknown; message: string }[] = [];
    const logger = {
      info: (fields: { event?: unknown }, message: string) =>
        logs.push({ level: 'info', event: fields.event, message }),
      warn: (fields: { event?: unknown }, message: string) =>
        logs.push({ level: 'warn', event: fields.event, message }),
    };
    // Another process's update of the same view's groups, under way.
    const holder = await session(database.url);
    try {
      await holder.query('begin isolation level repeatable read');
      await holder.query('lock table reporting_private.vendor_spend_dirty in share row exclusive mode');
      await refreshAfterSync(database.db, ZONE, logger as never, { lockTimeoutMs: 200 });
    } finally {
      await holder.end();
    }
    const skipped = logs.find((line) => line.event === 'reporting_refresh_skipped');
    expect(skipped?.level).toBe('warn');
    expect(skipped?.message).toContain('reporting.vendor_spend_monthly');
    expect(skipped?.message).toContain('next sync');
    expect(await juneSpend(778)).toEqual([]);

    logs.length = 0;
    await refreshAfterSync(database.db, ZONE, logger as never);
    expect(logs.map((line) => line.event)).toEqual(['reporting_refreshed']);
    expect(await juneSpend(778)).toEqual(['56.78']);
  });

  it('keeps one row per grain when ids are missing, refresh after refresh', async () => {
    // Two invoices without a vendor, and one line without a property, in June 2024.
    await addInvoice(null, 100, '10.00');
    await addInvoice(null, 100, '5.00');
    await addInvoice(501, null, '7.00');
    // Two AR codes of lease 1 in June missing: they add up in one row.
    await sql`update ar_transactions set ar_code_id = null where ar_transaction_id in (1, 3)`.execute(
      database.db,
    );
    for (let i = 0; i < 2; i++)
      expect((await refreshReporting(database.db, { timeZone: ZONE })).skipped).toEqual([]);
    expect(await juneSpend(null)).toEqual(['15.00']);
    const { rows: noProperty } =
      await sql`select amount from reporting.vendor_spend_monthly where post_month = '2024-06-01' and vendor_id = 501 and property_id is null`.execute(
        database.db,
      );
    expect(noProperty).toEqual([{ amount: '7.00' }]);
    const { rows: noCode } = await sql`
      select charges from reporting.ar_activity_monthly where property_id = 100 and post_month = '2024-06-01' and ar_code_id is null`.execute(
      database.db,
    );
    expect(noCode).toEqual([{ charges: '1575.00' }]);
  });
});

describe('propsync sync while a BI user holds a transaction open on the reporting views', () => {
  let world: CliWorld;
  beforeAll(async () => {
    world = await startCliWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  it('finishes as usual and leaves the views refreshed', async () => {
    const reader = await openReader(world.database.url);
    try {
      const sync = await runPropsync(['sync'], { env: world.env });
      expect(sync.code, sync.stderr).toBe(0);
      const events = jsonLines(sync.stderr);
      expect(events.find((line) => line.event === 'reporting_refreshed')?.views).toEqual(
        expect.arrayContaining(MATERIALIZED),
      );
      expect(events.filter((line) => line.event === 'reporting_refresh_skipped')).toEqual([]);
      // The reader, its transaction still open, reads what the sync wrote.
      expect(
        (await reader.query('select count(*)::int as n from reporting.properties')).rows[0].n,
      ).toBeGreaterThan(0);
      expect(
        (await reader.query('select count(*)::int as n from reporting.vendor_spend_monthly')).rows[0].n,
      ).toBeGreaterThan(0);
    } finally {
      await reader.end();
    }
  }, 150_000);
});
