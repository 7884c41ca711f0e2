import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/app/exit-codes.js';
import { lockName, withStreamLock } from '../../src/sync/lock.js';
import { runPropsync } from '../support/cli.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';
import { startCliWorld, type CliWorld } from './support.js';

let world: CliWorld;
beforeAll(async () => {
  world = await startCliWorld();
  const sync = await runPropsync(['sync'], { env: world.env });
  expect(sync.code, sync.stderr).toBe(0);
}, 180_000);
afterAll(async () => {
  await world?.close();
});

interface VerifyJson {
  ok: boolean;
  accounts: {
    id: string;
    streams: {
      stream: string;
      tables: {
        table: string;
        checked: number;
        missing: string[];
        extra: string[];
        differing: { key: string; columns: string[] }[];
      }[];
    }[];
    afterRepair?: unknown;
  }[];
}

describe('propsync verify, as a child process', () => {
  it('exits 0 on an exact warehouse and prints the JSON document: ok, accounts, streams, tables', async () => {
    const result = await runPropsync(['verify', '--all', '--json'], { env: world.env });
    expect(result.code, result.stderr).toBe(EXIT.ok);
    const report = JSON.parse(result.stdout) as VerifyJson;
    expect(Object.keys(report)).toEqual(['ok', 'accounts']);
    expect(report.ok).toBe(true);
    expect(report.accounts.map((account) => account.id)).toEqual(['default']);
    const [account] = report.accounts;
    expect(Object.keys(account)).toEqual(['id', 'streams']);
    expect(account.streams.map((stream) => stream.stream).sort()).toEqual([
      'invoices',
      'leases',
      'properties',
      'units',
    ]);
    for (const stream of account.streams) {
      for (const table of stream.tables) {
        expect(Object.keys(table)).toEqual(['table', 'checked', 'missing', 'extra', 'differing']);
        expect(table).toMatchObject({ missing: [], extra: [], differing: [] });
      }
    }
    expect(
      account.streams.find((s) => s.stream === 'leases')!.tables.find((t) => t.table === 'ar_transactions')!
        .checked,
    ).toBeGreaterThan(100);
    const units = account.streams.find((s) => s.stream === 'units')!;
    expect(units.tables.map((table) => table.table)).toEqual(['unit_inventories', 'units', 'unit_spaces']);
    expect(units.tables.find((table) => table.table === 'unit_spaces')!.checked).toBeGreaterThan(100);
  }, 120_000);

  it('exits 4 on drift, naming the drifted rows in a table per stream, leaves them, and status shows the pass; --repair heals them', async () => {
    const db = world.database.db;
    const { rows } = await sql<{ line_item_id: string; invoice_id: string; property_id: string }>`
      select line_item_id::text, invoice_id::text, property_id::text from invoice_line_items where deleted_at is null and property_id is not null order by line_item_id limit 1`.execute(
      db,
    );
    const [line] = rows;
    await sql`update invoice_line_items set amount = amount * 2 + 1, description = 'edited by hand' where line_item_id = ${line.line_item_id}`.execute(
      db,
    );
    await sql`delete from invoice_payments where invoice_id = (select invoice_id from invoice_payments where deleted_at is null order by invoice_id, payment_id limit 1)`.execute(
      db,
    );

    const text = await runPropsync(['verify', '--property', line.property_id, '--stream', 'invoices'], {
      env: world.env,
    });
    expect(text.code, text.stderr).toBe(EXIT.drift);
    expect(text.stdout).toMatch(/invoices\n\s+table\s+checked\s+missing\s+extra\s+differing/);
    expect(text.stdout).toMatch(/invoice_line_items\s+\d+\s+0\s+0\s+1/);
    expect(text.stdout).toContain(`differing: line_item_id=${line.line_item_id} (description, amount)`);
    expect(text.stdout).toMatch(/run propsync verify --repair/);
    const still = await sql<{
      description: string;
    }>`select description from invoice_line_items where line_item_id = ${line.line_item_id}`.execute(db);
    expect(still.rows[0].description).toBe('edited by hand');

    const status = await runPropsync(['status'], { env: world.env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(
      /last verification: #\d+ check \(property\) at .*succeeded, 1 properties, \d+ rows drifted/,
    );
    expect(status.stdout).toContain(`line_item_id=${line.line_item_id}`);
    const statusJson = JSON.parse((await runPropsync(['status', '--json'], { env: world.env })).stdout);
    expect(statusJson.accounts[0].lastVerification).toMatchObject({
      pass: 'check',
      selection: 'property',
      clean: false,
      propertyIds: [line.property_id],
    });

    const repair = await runPropsync(['verify', '--all', '--repair', '--json'], { env: world.env });
    expect(repair.code, repair.stderr).toBe(EXIT.ok);
    const report = JSON.parse(repair.stdout) as VerifyJson;
    expect(report.ok).toBe(true);
    const invoices = report.accounts[0].streams.find((stream) => stream.stream === 'invoices')!;
    expect(invoices.tables.find((t) => t.table === 'invoice_line_items')!.differing).toEqual([
      { key: `line_item_id=${line.line_item_id}`, columns: ['description', 'amount'] },
    ]);
    expect(invoices.tables.find((t) => t.table === 'invoice_payments')!.missing.length).toBeGreaterThan(0);
    expect(report.accounts[0].afterRepair).toEqual({
      streams: [{ stream: 'invoices', tables: expect.any(Array) }],
    });
    const expected = expectedTotals(world.sim.dataset);
    expect(await warehouseTotals(db, expected)).toEqual(expected);
    const again = await runPropsync(['verify', '--all'], { env: world.env });
    expect(again.code, again.stderr).toBe(EXIT.ok);
  }, 240_000);

  it('refuses to compare while a run of a stream is in progress (exit 1, naming the holder), recording nothing', async () => {
    const before = await world.database.db
      .selectFrom('sync_verifications')
      .select('verification_id')
      .execute();
    const held = await withStreamLock(world.database.url, lockName('default', 'leases'), () =>
      runPropsync(['verify', '--all'], { env: world.env }),
    );
    expect(held.acquired).toBe(true);
    if (!held.acquired) return;
    expect(held.value.code).toBe(EXIT.workFailed);
    expect(held.value.stdout).toContain('stream default/leases is being synced by another propsync process');
    expect(held.value.stdout).toContain('nothing was verified');
    expect(
      await world.database.db.selectFrom('sync_verifications').select('verification_id').execute(),
    ).toHaveLength(before.length);
  }, 60_000);

  it('exits 1 when the daily call budget stops it, and 2 on bad usage', async () => {
    const budget = await runPropsync(['verify', '--all'], {
      env: { ...world.env, PROPSYNC_DAILY_CALL_BUDGET: '3' },
    });
    expect(budget.code).toBe(EXIT.workFailed);
    const usage = await runPropsync(['verify', '--all', '--sample', '10'], { env: world.env });
    expect(usage.code).toBe(EXIT.usage);
    expect(usage.stderr).toMatch(/choose one of --all, --sample and --property/);
    expect((await runPropsync(['verify', '--sample', '0'], { env: world.env })).code).toBe(EXIT.usage);
  }, 120_000);
});
