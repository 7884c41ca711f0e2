/**
 * Issue 41 item 1: a run brings the reporting layer up to date for the accounts it wrote, not the
 * whole warehouse, and stays exact: after incremental runs of some of several accounts, every view
 * kept in tables holds what a rebuild from the whole warehouse gives, and the rows of the accounts
 * not synced were not written. Runs that end while another refreshes share its refresh; `propsync
 * reporting rebuild` makes everything again.
 */
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openPropsync } from '../../src/app/propsync.js';
import type { Db } from '../../src/catalog/tables.js';
import { configSchemaFor, type Config } from '../../src/config/schema.js';
import { createLogger } from '../../src/log/logger.js';
import { refreshCoalesced } from '../../src/reporting/coalesce-refresh.js';
import { rebuildReporting, refreshAfterSync, refreshReporting } from '../../src/reporting/refresh.js';
import { startSimulator, type AdvanceSummary, type Simulator } from '../../src/simulator/index.js';
import { runPropsync } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { insertFixture } from './fixture.js';

vi.setConfig({ testTimeout: 600_000, hookTimeout: 600_000 });

const TODAY = '2026-06-15';
const ZONE = 'America/Denver';
const PASSWORD = 'p-41-Secret-pw';
const ACCOUNTS = ['east', 'north', 'south'];
/** The views kept in tables, and the table of each. */
const KEPT = {
  properties: 'properties_rows',
  occupancy_monthly: 'occupancy_monthly_rows',
  ar_activity_monthly: 'ar_activity_groups',
  vendor_spend_monthly: 'vendor_spend_groups',
};

/** Every row of the kept views, per view, in one order. */
async function keptRows(db: Db): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const view of Object.keys(KEPT)) {
    const { rows } = await sql<{ row: string }>`
      select v::text as row from ${sql.id('reporting', view)} v order by 1`.execute(db);
    out[view] = rows.map((row) => row.row);
  }
  return out;
}

/** The row versions (xmin) of an account's rows in each table behind the views: a write changes them. */
async function versions(db: Db, account: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of Object.values(KEPT)) {
    const { rows } = await sql<{ v: string }>`
      select count(*)::text || ':' || coalesce(string_agg(xmin::text, ',' order by xmin::text), '') as v
        from ${sql.id('reporting_private', table)} where account_id = ${account}`.execute(db);
    out[table] = rows[0].v;
  }
  return out;
}

function quietLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), lines };
}

describe('a run refreshes the reporting rows of the accounts it wrote', () => {
  const sims = new Map<string, Simulator<AdvanceSummary>>();
  let warehouse: TestDatabase;
  let config: Config;
  const { logger, lines } = quietLogger();

  async function sync(accounts: string[]): Promise<void> {
    const propsync = await openPropsync(config, { logger, accounts });
    try {
      const runs = await propsync.run({ kind: 'sync' });
      for (const run of runs) expect(run.summary?.status, `${run.account}: ${run.error}`).toBe('succeeded');
    } finally {
      await propsync.close();
    }
  }

  beforeAll(async () => {
    for (const [i, id] of ACCOUNTS.entries())
      sims.set(
        id,
        await startSimulator({
          port: 0,
          scale: 'small',
          seed: 41 + i,
          today: TODAY,
          username: 'u',
          password: PASSWORD,
          rateLimit: 'off',
        }),
      );
    warehouse = await createTestDatabase();
    config = configSchemaFor({}).parse({
      database: { url: warehouse.url },
      source: { format: 'json', maxClockSkewHours: 0, pageSize: 200 },
      accounts: ACCOUNTS.map((id) => ({
        id,
        name: `${id} homes`,
        source: { url: sims.get(id)!.url, auth: { type: 'basic', username: 'u', password: PASSWORD } },
      })),
      logLevel: 'info',
    });
    await sync(ACCOUNTS);
  });
  afterAll(async () => {
    for (const sim of sims.values()) await sim.close();
    await warehouse?.drop();
  });

  it('equals a rebuild from the whole warehouse after incremental runs of some accounts', async () => {
    const db = warehouse.db;
    expect((await keptRows(db)).occupancy_monthly.length).toBeGreaterThan(0);
    const untouched = await versions(db, 'south');
    for (const id of ACCOUNTS) sims.get(id)!.advance(3);
    await sync(['north']);
    // South changed at its source but was not synced: its rows were not written.
    expect(await versions(db, 'south')).toEqual(untouched);
    const incremental = await keptRows(db);
    await rebuildReporting(db, { timeZone: ZONE, accounts: ACCOUNTS.map((id) => ({ id, timeZone: ZONE })) });
    expect(await keptRows(db)).toEqual(incremental);

    for (const id of ACCOUNTS) sims.get(id)!.advance(2);
    await sync(['east', 'south']);
    const again = await keptRows(db);
    await rebuildReporting(db, { timeZone: ZONE, accounts: ACCOUNTS.map((id) => ({ id, timeZone: ZONE })) });
    expect(await keptRows(db)).toEqual(again);
    expect(lines.filter((line) => line.event === 'reporting_refresh_failed')).toEqual([]);
  });
});

describe('runs that end close together', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await insertFixture(database.db);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('share one refresh: a run that finds one under way leaves its request to it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let passes = 0;
    const first = refreshCoalesced(database.db, async () => {
      passes += 1;
      if (passes === 1) {
        started();
        await held;
      }
      return passes;
    });
    await running;
    // Two runs end meanwhile: neither refreshes, both are served by the one under way.
    const { logger, lines } = quietLogger();
    await refreshAfterSync(database.db, ZONE, logger);
    await refreshAfterSync(database.db, ZONE, logger);
    expect(lines.map((line) => line.event)).toEqual([
      'reporting_refresh_coalesced',
      'reporting_refresh_coalesced',
    ]);
    release();
    // One more pass for both requests, not one each.
    expect(await first).toEqual({ passes: [1, 2] });
    // Alone, a run refreshes once.
    expect(await refreshCoalesced(database.db, async () => 'alone')).toEqual({ passes: ['alone'] });
  });

  it('the refresh under way brings in what the coalesced run wrote', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const { logger, lines } = quietLogger();
    let first = true;
    // The refresh under way: its first pass done, it waits before it looks for requests again.
    const done = refreshCoalesced(database.db, async () => {
      await refreshReporting(database.db, { timeZone: ZONE });
      if (first) {
        first = false;
        started();
        await held;
      }
    });
    await running;
    await sql`update public.leases set property_name = 'Renamed Court' where property_id = 100`.execute(
      database.db,
    );
    await refreshAfterSync(database.db, ZONE, logger);
    expect(lines.map((line) => line.event)).toEqual(['reporting_refresh_coalesced']);
    release();
    expect((await done).passes).toHaveLength(2);
    const { rows } = await sql<{ property_name: string }>`
      select property_name from reporting.properties where property_id = 100`.execute(database.db);
    expect(rows).toEqual([{ property_name: 'Renamed Court' }]);
  });

  it('propsync reporting rebuild makes again rows a refresh would not', async () => {
    const count = async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from reporting.occupancy_monthly`.execute(
          database.db,
        )
      ).rows[0].n;
    const rows = await count();
    expect(rows).toBeGreaterThan(0);
    // Rows lost by hand: nothing written since, so a refresh leaves them lost.
    await sql`delete from reporting_private.occupancy_monthly_rows`.execute(database.db);
    await refreshAfterSync(database.db, ZONE, quietLogger().logger);
    expect(await count()).toBe(0);
    const rebuild = await runPropsync(['reporting', 'rebuild'], { env: { DATABASE_URL: database.url } });
    expect(rebuild.code, rebuild.stderr).toBe(0);
    expect(rebuild.stdout).toMatch(/^rebuilt 4 reporting views in [\d.]+ s: .*occupancy_monthly/);
    expect(await count()).toBe(rows);
  });
});
