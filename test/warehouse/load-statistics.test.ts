import { sql } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SOURCE_TABLES, type Db } from '../../src/catalog/tables.js';
import { storedParents, storedTextDigests } from '../../src/warehouse/bulk-load/index.js';
import { analyzeChanged, LoadStatistics } from '../../src/warehouse/statistics.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  // Only the statements under test measure the table here.
  for (const table of ['leases', 'invoices', 'invoice_payments'])
    await sql`alter table ${sql.table(table)} set (autovacuum_enabled = false)`.execute(t.db);
  // Autovacuum on, but never so soon as to measure the table under test itself.
  await sql`alter table voided_payments set (autovacuum_analyze_threshold = 2000000000)`.execute(t.db);
});
afterAll(async () => {
  await t?.drop();
});

const LEASES = SOURCE_TABLES.find((table) => table.name === 'leases')!;

/** `count` leases of the account from `first` on (ids first…, text digests `d<id>`): well over eight blocks. */
async function addLeases(db: Db, account: string, first: number, count: number): Promise<void> {
  await sql`
    insert into leases (account_id, lease_id, property_id, source_hash, source_text_hash, raw)
    select ${account}, g, 100 + g % 7, 'h' || g, 'd' || g, jsonb_build_object('leaseId', g, 'note', repeat('x', 80))
      from generate_series(${first}::bigint, ${first + count - 1}::bigint) g`.execute(db);
}

/** `count` invoices of the account from `first` on. */
async function addInvoices(db: Db, account: string, first: number, count: number): Promise<void> {
  await sql`
    insert into invoices (account_id, invoice_id, raw)
    select ${account}, g, jsonb_build_object('invoiceId', g, 'note', repeat('x', 80))
      from generate_series(${first}::bigint, ${first + count - 1}::bigint) g`.execute(db);
}

/** The accounts Postgres's statistics of `invoices` list, or null when it has none. */
async function accountsInStatistics(db: Db): Promise<string[] | null> {
  const { rows } = await sql<{ vals: string[] | null }>`
    select most_common_vals::text::text[] as vals from pg_stats
     where schemaname = current_schema() and tablename = 'invoices' and attname = 'account_id'`.execute(db);
  return rows[0]?.vals ?? null;
}

/** Index entries read on `leases` by `work`, in one transaction (the transaction's own counts of its indexes). */
async function indexEntriesRead(db: Db, work: (trx: Db) => Promise<unknown>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await work(trx);
    const { rows } = await sql<{
      n: string;
    }>`select coalesce(sum(pg_stat_get_xact_tuples_returned(indexrelid)), 0) as n from pg_index where indrelid = 'leases'::regclass`.execute(
      trx,
    );
    return Number(rows[0].n);
  });
}

/** A page's worth of keys: every tenth of `first`… (500 of them), and one the table does not hold. */
function pageKeys(first: number): number[] {
  return [...Array.from({ length: 500 }, (_, i) => first + i * 10), 999_999_999];
}

it('reads a page’s stored keys and digests by key, even from a table Postgres has never measured', async () => {
  await addLeases(t.db, 'north', 1, 6000);
  const { rows } = await sql<{
    reltuples: number;
  }>`select reltuples from pg_class where relname = 'leases'`.execute(t.db);
  expect(rows[0].reltuples).toBeLessThan(0);

  const keys = pageKeys(1);
  const read = await indexEntriesRead(t.db, async (trx) => {
    const stored = await storedParents(trx, LEASES, keys, 'north');
    expect(stored.present.size).toBe(500);
    expect(stored.digests.get(21)).toBe('h21');
    const byText = await storedTextDigests(
      trx,
      LEASES,
      keys.map((key) => `d${key}`),
      'north',
    );
    expect(byText.size).toBe(500);
    expect(byText.get('d21')).toBe('21');
    expect((await storedParents(trx, LEASES, keys, 'south')).present.size).toBe(0);
  });
  // A few index entries a key, not the account's 6,000 read for each lookup.
  expect(read).toBeLessThan(3 * 3 * keys.length);
});

it('reads by key where the statistics take an account for a sliver of the table', async () => {
  await sql`analyze leases`.execute(t.db);
  await addLeases(t.db, 'south', 1, 60);
  await sql`analyze leases`.execute(t.db);
  // The account grows far past what the statistics say of it (a first load between measures).
  await addLeases(t.db, 'south', 61, 12_000);
  const keys = pageKeys(5001);
  const read = await indexEntriesRead(t.db, async (trx) => {
    expect((await storedParents(trx, LEASES, keys, 'south')).present.size).toBe(500);
    expect(
      (
        await storedTextDigests(
          trx,
          LEASES,
          keys.map((key) => `d${key}`),
          'south',
        )
      ).size,
    ).toBe(500);
  });
  expect(read).toBeLessThan(3 * 2 * keys.length);
});

it('analyzes a table as soon as it holds the account’s rows its statistics do not know, once per table and account', async () => {
  const statistics = new LoadStatistics(t.db);
  // Too small to matter yet: nothing analyzed, and looked at again later.
  await addInvoices(t.db, 'north', 1, 10);
  expect(await statistics.afterInsert(['invoices', 'voided_payments'], 'north', 0)).toEqual([]);
  expect(await accountsInStatistics(t.db)).toBeNull();

  await addInvoices(t.db, 'north', 11, 3000);
  // Within the pause between looks: not yet.
  expect(await statistics.afterInsert(['invoices', 'voided_payments'], 'north', 1_000)).toEqual([]);
  // The table without the account's rows is left alone.
  expect(await statistics.afterInsert(['invoices', 'voided_payments'], 'north', 10_000)).toEqual([
    'invoices',
  ]);
  expect(await accountsInStatistics(t.db)).toEqual(['north']);
  expect(await statistics.afterInsert(['invoices'], 'north', 20_000)).toEqual([]);

  // A second account's first rows: the statistics list every account they saw, not this one.
  await addInvoices(t.db, 'south', 1, 3000);
  expect(await statistics.afterInsert(['invoices'], 'south', 30_000)).toEqual(['invoices']);
  expect((await accountsInStatistics(t.db))?.sort()).toEqual(['north', 'south']);

  // A process that finds the statistics knowing the account analyzes nothing.
  expect(await new LoadStatistics(t.db).afterInsert(['invoices'], 'south', 0)).toEqual([]);
});

it('leaves a table whose lock another session holds to that session, at once', async () => {
  await addLeases(t.db, 'west', 1, 3000);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const holding = new Promise<void>((resolve) => (locked = resolve));
  // ANALYZE in an open transaction holds the table's SHARE UPDATE EXCLUSIVE lock until it ends, as autovacuum's does.
  const holder = t.db.transaction().execute(async (trx) => {
    await sql`analyze leases`.execute(trx);
    locked();
    await released;
  });
  await holding;
  try {
    const started = Date.now();
    expect(await new LoadStatistics(t.db).afterInsert(['leases'], 'west', 0)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5_000);
  } finally {
    release();
    await holder;
  }
});

it('measures a grown table from a small sample when autovacuum will take its full measure, else fully', async () => {
  // Servers tuned for tests run without autovacuum (this machine's CI cluster), others with it (embedded).
  const { rows: settings } = await sql<{
    on: boolean;
  }>`select current_setting('autovacuum')::boolean as on`.execute(t.db);
  const autovacuum = settings[0].on;
  await sql`
    insert into voided_payments (account_id, invoice_id, payment_id, amount, voided_on, raw)
    select 'east', g / 3, g, (g % 997) * 1.25, date '2026-01-01' + (g % 400), jsonb_build_object('paymentId', g)
      from generate_series(1, 40000) g`.execute(t.db);
  // The inserts counted first (a session reports its counts once idle), so that the ANALYZE below sees them.
  const changes = async () =>
    Number(
      (
        await sql<{ n: string }>`select n_mod_since_analyze as n from pg_stat_user_tables
                                  where relname = 'voided_payments'`.execute(t.db)
      ).rows[0]?.n ?? 0,
    );
  for (let tries = 0; (await changes()) < 40_000 && tries < 100; tries++) await sleep(100);
  expect(await changes()).toBeGreaterThanOrEqual(40_000);
  expect(await analyzeChanged(t.db, ['voided_payments'])).toEqual(['voided_payments']);
  const { rows: sizes } = await sql<{ reltuples: number }>`
    select reltuples from pg_class where relname = 'voided_payments'`.execute(t.db);
  expect(sizes[0].reltuples).toBeGreaterThan(36_000);
  expect(sizes[0].reltuples).toBeLessThan(44_000);
  // Every column has statistics: from a sample of a tenth of the default (at most 11 histogram
  // bounds), or the full 101 where nobody else would measure the table.
  const { rows: columns } = await sql<{ attname: string; bounds: number | null }>`
    select attname, array_length(histogram_bounds::text::text[], 1) as bounds from pg_stats
     where schemaname = current_schema() and tablename = 'voided_payments'`.execute(t.db);
  expect(columns.map((column) => column.attname)).toEqual(
    expect.arrayContaining(['account_id', 'invoice_id', 'payment_id', 'amount', 'voided_on']),
  );
  if (autovacuum) for (const column of columns) expect(column.bounds ?? 0).toBeLessThanOrEqual(11);
  else expect(columns.find((column) => column.attname === 'payment_id')!.bounds).toBe(101);
  // The quick measure keeps the count of changes since the last full one, for autovacuum; the full one resets it.
  if (autovacuum) expect(await changes()).toBeGreaterThanOrEqual(40_000);
  else expect(await changes()).toBe(0);
});

it('takes the full measure itself of a table autovacuum leaves alone', async () => {
  await sql`
    insert into invoice_payments (account_id, invoice_id, payment_id, amount, raw)
    select 'east', g / 3, g, (g % 997) * 1.25, jsonb_build_object('paymentId', g)
      from generate_series(1, 40000) g`.execute(t.db);
  expect(await analyzeChanged(t.db, ['invoice_payments'])).toEqual(['invoice_payments']);
  const { rows } = await sql<{ bounds: number }>`
    select array_length(histogram_bounds::text::text[], 1) as bounds from pg_stats
     where schemaname = current_schema() and tablename = 'invoice_payments' and attname = 'payment_id'`.execute(
    t.db,
  );
  expect(rows[0].bounds).toBe(101);
});
