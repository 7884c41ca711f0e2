import { sql } from 'kysely';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPropsync } from '../../src/app/propsync.js';
import { runVerify } from '../../src/app/run-verify.js';
import { EXIT } from '../../src/app/exit-codes.js';
import { createLogger } from '../../src/log/logger.js';
import { startSimulator } from '../../src/simulator/index.js';
import { createSourceClient } from '../../src/source/client.js';
import { lastVerification } from '../../src/sync/verifications.js';
import {
  verifyAccount,
  type AccountVerification,
  type VerifyRequest,
} from '../../src/sync/verify-account.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';
import { SIM_PASSWORD, SIM_USER, startSyncHarness, type SyncHarness } from '../support/sync-harness.js';

const STREAMS: VerifyRequest['streams'] = ['leases', 'invoices', 'properties'];
const quiet = () =>
  createLogger({
    level: 'warn',
    destination: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
  });

describe('propsync verify against the simulator over HTTP', () => {
  let h: SyncHarness;
  let property: string;

  /**
   * Verifies with a client of its own (as a new process would), optionally against another source URL or with a budget.
   */
  async function verify(
    selection: VerifyRequest['selection'],
    overrides: { url?: string; dailyCallBudget?: number; format?: 'json' | 'xml' } = {},
  ): Promise<AccountVerification> {
    const [base] = h.config.accounts;
    const source = {
      ...base.source,
      url: overrides.url ?? base.source.url,
      dailyCallBudget: overrides.dailyCallBudget ?? base.source.dailyCallBudget,
      format: overrides.format ?? base.source.format,
    };
    const account = { ...base, source };
    const client = createSourceClient({
      settings: account.source,
      timeZone: account.timeZone,
      logger: quiet(),
    });
    try {
      return await verifyAccount(
        { streams: STREAMS, selection, pass: 'check' },
        { db: h.warehouse.db, client, config: h.config, account, logger: quiet() },
      );
    } finally {
      await client.close();
    }
  }

  const table = (result: AccountVerification, stream: string, name: string) =>
    result.streams.find((s) => s.stream === stream)!.tables.find((t) => t.table === name)!;

  beforeAll(async () => {
    h = await startSyncHarness();
    const run = await h.sync();
    expect(run.status).toBe('succeeded');
    property = String(h.sim.dataset.properties[0].PropertyID);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  it('finds an exact warehouse clean, having compared every table row by row', async () => {
    const result = await verify({ kind: 'all' });
    expect(result.status).toBe('succeeded');
    expect(result.propertyIds).toHaveLength(h.sim.dataset.properties.length);
    for (const stream of result.streams)
      for (const t of stream.tables)
        expect({ stream: stream.stream, ...t }).toMatchObject({ missing: [], extra: [], differing: [] });
    expect(table(result, 'leases', 'leases').checked).toBeGreaterThan(10);
    expect(table(result, 'leases', 'ar_transactions').checked).toBeGreaterThan(100);
    expect(table(result, 'invoices', 'invoice_line_items').checked).toBeGreaterThan(10);
    expect(table(result, 'properties', 'properties').checked).toBe(h.sim.dataset.properties.length);
    const recorded = await lastVerification(h.warehouse.db, 'default');
    expect(recorded).toMatchObject({
      verificationId: result.verificationId,
      status: 'succeeded',
      clean: true,
      driftRows: 0,
      selection: 'all',
    });
  }, 120_000);

  it('compares alike whichever format the source is read in (a JSON-loaded warehouse verified over XML)', async () => {
    const result = await verify({ kind: 'all' }, { format: 'xml' });
    expect(result).toMatchObject({ status: 'succeeded', driftRows: 0 });
    expect(table(result, 'leases', 'lease_customers').checked).toBeGreaterThan(10);
  }, 120_000);

  it("names drift made behind the sync's back (a row deleted, an amount changed, a status changed) and changes nothing", async () => {
    const db = h.warehouse.db;
    const { rows: ar } = await sql<{ ar_transaction_id: string; amount: string }>`
      select ar_transaction_id::text, amount::text from ar_transactions where property_id = ${Number(property)} and deleted_at is null order by ar_transaction_id limit 2`.execute(
      db,
    );
    const { rows: leases } = await sql<{ lease_id: string; lease_status_type_id: number }>`
      select lease_id::text, lease_status_type_id from leases where property_id = ${Number(property)} and deleted_at is null order by lease_id limit 1`.execute(
      db,
    );
    const [gone, changed] = ar;
    const lease = leases[0];
    const newStatus = lease.lease_status_type_id === 6 ? 4 : 6;
    await sql`delete from ar_transactions where account_id = 'default' and ar_transaction_id = ${gone.ar_transaction_id}`.execute(
      db,
    );
    await sql`update ar_transactions set amount = amount + 1 where account_id = 'default' and ar_transaction_id = ${changed.ar_transaction_id}`.execute(
      db,
    );
    await sql`update leases set lease_status_type_id = ${newStatus} where account_id = 'default' and lease_id = ${lease.lease_id}`.execute(
      db,
    );
    // A lease the source never listed, written by a bad script.
    await sql`insert into leases (account_id, lease_id, property_id, lease_status_type_id, raw) values ('default', 987654321, ${Number(property)}, 4, '{}')`.execute(
      db,
    );
    // An invoice, with a line at the property, that the source never listed.
    await sql`insert into invoices (account_id, invoice_id, amount, raw) values ('default', 987654322, '10.00', '{}')`.execute(
      db,
    );
    await sql`insert into invoice_line_items (account_id, line_item_id, invoice_id, property_id, amount, raw) values ('default', 987654323, 987654322, ${Number(property)}, '10.00', '{}')`.execute(
      db,
    );
    const before =
      await sql`select * from ar_transactions where account_id = 'default' and ar_transaction_id = ${changed.ar_transaction_id}`.execute(
        db,
      );

    const result = await verify({ kind: 'property', propertyIds: [property] });
    expect(result.status).toBe('succeeded');
    expect(table(result, 'leases', 'ar_transactions')).toMatchObject({
      missing: [`ar_transaction_id=${gone.ar_transaction_id}`],
      extra: [],
      differing: [{ key: `ar_transaction_id=${changed.ar_transaction_id}`, columns: ['amount'] }],
    });
    expect(table(result, 'leases', 'leases')).toMatchObject({
      missing: [],
      extra: ['lease_id=987654321'],
      differing: [{ key: `lease_id=${lease.lease_id}`, columns: ['lease_status_type_id'] }],
    });
    expect(table(result, 'invoices', 'invoices')).toMatchObject({
      missing: [],
      extra: ['invoice_id=987654322'],
      differing: [],
    });
    expect(table(result, 'invoices', 'invoice_line_items')).toMatchObject({
      missing: [],
      extra: ['line_item_id=987654323'],
      differing: [],
    });
    expect(result.driftRows).toBe(6);
    expect(result.streams.find((s) => s.stream === 'leases')!.driftedProperties).toEqual([property]);

    // Nothing was changed: the row is still gone, the amount and status still as they were made.
    const { rows: still } = await sql<{
      n: number;
    }>`select count(*)::int as n from ar_transactions where account_id = 'default' and ar_transaction_id = ${gone.ar_transaction_id}`.execute(
      db,
    );
    expect(still[0].n).toBe(0);
    expect(
      (
        await sql`select * from ar_transactions where account_id = 'default' and ar_transaction_id = ${changed.ar_transaction_id}`.execute(
          db,
        )
      ).rows,
    ).toEqual(before.rows);
    const { rows: status } = await sql<{
      s: number;
    }>`select lease_status_type_id as s from leases where account_id = 'default' and lease_id = ${lease.lease_id}`.execute(
      db,
    );
    expect(status[0].s).toBe(newStatus);
    expect(await lastVerification(db, 'default')).toMatchObject({
      clean: false,
      driftRows: 6,
      propertyIds: [property],
    });
    const recorded = (await lastVerification(db, 'default'))!.tables.find(
      (t) => t.table === 'ar_transactions',
    )!;
    expect(recorded).toMatchObject({
      stream: 'leases',
      missing: 1,
      differing: 1,
      missingKeys: [`ar_transaction_id=${gone.ar_transaction_id}`],
    });
  }, 120_000);

  it('--repair heals the drift through a full refresh, verifies again, and leaves the warehouse equal to the source', async () => {
    const propsync = await openPropsync(h.config, { logger: quiet() });
    try {
      const [outcome] = await runVerify(propsync, {
        streams: STREAMS,
        selection: { kind: 'property', propertyIds: [property] },
        repair: true,
      });
      expect(outcome.check!.driftRows).toBe(6);
      expect(outcome.repair!.runs.map((run) => run.summary?.status)).toEqual(['succeeded', 'succeeded']);
      expect(outcome.repair!.recheck).toMatchObject({
        status: 'succeeded',
        driftRows: 0,
        propertyIds: [property],
      });
      expect(outcome.exitCode).toBe(EXIT.ok);
    } finally {
      await propsync.close();
    }
    const expected = expectedTotals(h.sim.dataset);
    expect(await warehouseTotals(h.warehouse.db, expected)).toEqual(expected);
    expect((await verify({ kind: 'all' })).driftRows).toBe(0);
    // The extra lease is marked deleted (rows are never removed), as the sync marks what the source no longer lists.
    const { rows: extra } = await sql<{ deleted: boolean }>`
      select deleted_at is not null as deleted from leases where account_id = 'default' and lease_id = 987654321
      union all select deleted_at is not null from invoices where account_id = 'default' and invoice_id = 987654322
      union all select deleted_at is not null from invoice_line_items where account_id = 'default' and line_item_id = 987654323`.execute(
      h.warehouse.db,
    );
    expect(extra).toEqual([{ deleted: true }, { deleted: true }, { deleted: true }]);
  }, 180_000);

  it('--repair heals a unit space changed behind the sync, though a sync passes over it by its digest', async () => {
    const db = h.warehouse.db;
    const { rows } = await sql<{ id: number; rent: string }>`
      select unit_space_id as id, rent::text as rent from unit_spaces
       where account_id = 'default' and property_id = ${Number(property)} and deleted_at is null and rent is not null
       order by unit_space_id limit 1`.execute(db);
    const [space] = rows;
    await sql`update unit_spaces set rent = rent + 1 where account_id = 'default' and unit_space_id = ${space.id}`.execute(
      db,
    );
    const rent = async () =>
      (
        await sql<{
          rent: string;
        }>`select rent::text as rent from unit_spaces where account_id = 'default' and unit_space_id = ${space.id}`.execute(
          db,
        )
      ).rows[0].rent;
    const propsync = await openPropsync(h.config, { logger: quiet() });
    try {
      // A night's sync sends the property's inventory (its header changes) but not that space's row.
      await sql`update unit_inventories set source_hash = null, source_text_hash = null where account_id = 'default'`.execute(
        db,
      );
      const [night] = await propsync.run({ kind: 'sync', streams: ['units'] });
      expect(night.summary?.status).toBe('succeeded');
      expect(await rent()).not.toBe(space.rent);
      const [outcome] = await runVerify(propsync, {
        streams: ['units'],
        selection: { kind: 'property', propertyIds: [property] },
        repair: true,
      });
      expect(outcome.check!.driftRows).toBe(1);
      expect(outcome.repair!.recheck).toMatchObject({ status: 'succeeded', driftRows: 0 });
    } finally {
      await propsync.close();
    }
    expect(await rent()).toBe(space.rent);
  }, 180_000);

  it('samples least recently verified properties first, so every property is verified within ceil(100 / percent) runs', async () => {
    const count = h.sim.dataset.properties.length;
    const seen = new Set<string>();
    // 30%: ceil(4 * 0.3) = 2 properties a run, every one of 4 within ceil(100 / 30) = 4 runs (here 2).
    for (let i = 0; i < Math.ceil(100 / 30); i++) {
      const result = await verify({ kind: 'sample', percent: 30 });
      expect(result.propertyIds).toHaveLength(Math.ceil((count * 30) / 100));
      for (const id of result.propertyIds) seen.add(id);
    }
    expect(seen.size).toBe(count);
    // At least one property, however small the share.
    expect((await verify({ kind: 'sample', percent: 1 })).propertyIds).toHaveLength(1);
  }, 120_000);

  it('stops when the daily call budget is spent, as a sync does, and records what it verified', async () => {
    const result = await verify({ kind: 'all' }, { dailyCallBudget: 4 });
    expect(result.status).toBe('budget_exhausted');
    expect(result.error).toMatch(/budget/);
    expect(result.propertyIds.length).toBeLessThan(h.sim.dataset.properties.length);
    expect(await lastVerification(h.warehouse.db, 'default')).toMatchObject({
      status: 'budget_exhausted',
      propertyIds: result.propertyIds,
    });
    const { rows } = await sql<{ kind: string; status: string; calls: number }>`
      select kind, status, calls from sync_runs where account_id = 'default' and run_id = ${result.runId}`.execute(
      h.warehouse.db,
    );
    expect(rows[0]).toMatchObject({ kind: 'verify', status: 'budget_exhausted' });
    expect(rows[0].calls).toBeLessThanOrEqual(4);
  }, 60_000);

  it('keeps within the source rate limit (no call refused with 429)', async () => {
    // The same data set (same seed and today) served by a simulator that limits the rate.
    const limited = await startSimulator({
      port: 0,
      scale: 'small',
      seed: 11,
      today: '2026-06-15',
      username: SIM_USER,
      password: SIM_PASSWORD,
      rateLimit: '6/2s',
    });
    try {
      const result = await verify({ kind: 'all' }, { url: limited.url });
      expect(result).toMatchObject({ status: 'succeeded', driftRows: 0 });
      const stats = limited.stats();
      expect(stats.total).toBeGreaterThan(6);
      for (const byStatus of Object.values(stats.calls)) expect(byStatus['429'] ?? 0).toBe(0);
    } finally {
      await limited.close();
    }
  }, 120_000);
});
