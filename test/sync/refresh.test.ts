import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SimArTransaction } from '../../src/simulator/data/model.js';
import { addDays, daysBetween } from '../../src/dates/days.js';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';
import { cents, expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';

const TODAY = '2026-03-10';
const LOOKBACK = 60;
let h: SyncHarness;

beforeAll(async () => {
  // Pages of 30, so that no property is small enough to be read whole on every run.
  h = await startSyncHarness({
    scale: 'small',
    seed: 5,
    today: TODAY,
    source: { pageSize: 30 },
    streams: { leases: { lookbackDays: LOOKBACK, fullRefreshDays: 7 } },
  });
});
afterAll(async () => {
  await h?.close();
});

/** AR totals per lease, from the warehouse and from the source. */
async function arByLease() {
  const { rows } = await sql<{ lease_id: number; cents: string }>`
    select lease_id, (sum(amount) * 100)::bigint::text as cents from ar_transactions where deleted_at is null group by lease_id`.execute(
    h.warehouse.db,
  );
  return new Map(rows.map((row) => [row.lease_id, row.cents]));
}

it('misses a write-off on a long-gone lease until the property’s periodic full refresh, then catches it', async () => {
  await h.sync();
  const { rows: due } = await sql<{ scope: string; next_due: string }>`
    select scope, state->>'nextDue' as next_due from sync_cursors where stream = 'leases' and cursor = 'full_refresh' order by state->>'nextDue' desc, scope`.execute(
    h.warehouse.db,
  );
  // The first refreshes are spread over the following week; take the property refreshed last.
  const { scope: propertyId, next_due: nextDue } = due[0];
  expect(nextDue > addDays(TODAY, 1)).toBe(true);
  expect(nextDue <= addDays(TODAY, 7)).toBe(true);

  // A write-off posted today on a lease that moved out well before the move-out lookback.
  const old = h.sim.dataset.leases.find(
    (lease) =>
      lease.propertyId === propertyId &&
      lease._status === 6 &&
      lease._moveOut! < addDays(TODAY, -LOOKBACK - 30),
  );
  expect(old).toBeDefined();
  const template = old!.arTransactions!.arTransaction[0];
  const day = h.sim.dataset.today;
  const mdy = `${day.slice(5, 7)}/${day.slice(8, 10)}/${day.slice(0, 4)}`;
  const writeOff: SimArTransaction = {
    ...template,
    id: 99_000_001,
    description: 'Bad debt write-off',
    arCodeName: 'Bad Debt Write Off',
    transactionDate: mdy,
    postDate: mdy,
    postMonth: `${mdy.slice(0, 2)}/01/${mdy.slice(6)}`,
    dueDate: mdy,
    amount: -412.37,
    amountPaid: 0,
    balanceDue: -412.37,
  };
  old!.arTransactions!.arTransaction.push(writeOff);

  // Next day: the incremental plan does not read that lease, so the write-off is not there...
  h.sim.advance(1);
  const next = await h.sync();
  expect(next.status).toBe('succeeded');
  const missing = await h.warehouse.db
    .selectFrom('ar_transactions')
    .select('ar_transaction_id')
    .where('ar_transaction_id', '=', writeOff.id)
    .execute();
  expect(missing).toEqual([]);
  // ...while everything the plan can see is equal: every lease, every invoice, and the AR of
  // every lease that is live or moved out within the lookback.
  const expected = expectedTotals(h.sim.dataset);
  const actual = await warehouseTotals(h.warehouse.db, expected);
  for (const table of [
    'leases',
    'lease_intervals',
    'lease_customers',
    'lease_unit_spaces',
    'lease_scheduled_charges',
    'invoices',
    'invoice_line_items',
    'invoice_payments',
    'voided_payments',
  ]) {
    expect(actual[table], table).toEqual(expected[table]);
  }
  const warehouseAr = await arByLease();
  const horizon = addDays(h.sim.dataset.today, -LOOKBACK - 1);
  for (const lease of h.sim.dataset.leases) {
    if (lease._status === 6 && lease._moveOut! < horizon) continue;
    if (lease._status === 2) continue;
    const sourceCents = String(
      (lease.arTransactions?.arTransaction ?? []).reduce((sum, t) => sum + cents(t.amount), 0n),
    );
    expect(warehouseAr.get(Number(lease.id)) ?? '0', `AR of lease ${lease.id}`).toBe(sourceCents);
  }

  // On the property's refresh day the write-off arrives, and the warehouse equals the source.
  h.sim.advance(Math.max(0, daysBetween(h.sim.dataset.today, nextDue)));
  const refresh = await h.sync();
  expect(refresh.status).toBe('succeeded');
  const found = await h.warehouse.db
    .selectFrom('ar_transactions')
    .select(['amount', 'lease_id'])
    .where('ar_transaction_id', '=', writeOff.id)
    .executeTakeFirst();
  expect(found).toEqual({ amount: '-412.37', lease_id: Number(old!.id) });
  const full = expectedTotals(h.sim.dataset);
  expect(await warehouseTotals(h.warehouse.db, full)).toEqual(full);
});
