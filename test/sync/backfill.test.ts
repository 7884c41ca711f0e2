import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';
import { mdyToIso } from '../support/warehouse-truth.js';

let h: SyncHarness;
beforeAll(async () => {
  h = await startSyncHarness({ scale: 'small', seed: 9, today: '2026-09-09' });
});
afterAll(async () => {
  await h?.close();
});

it('backfills invoices by post date and leases by move-in date, chunk by chunk, and a rerun resumes instead of repeating', async () => {
  const from = '2025-01-01';
  const to = '2025-12-31';
  const first = await h.sync({
    kind: 'backfill',
    streams: ['invoices', 'leases'],
    backfill: { from, to, chunk: '3m' },
  });
  expect(first.status).toBe('succeeded');
  const properties = new Set(h.sim.dataset.leases.map((lease) => lease.propertyId)).size;
  // Four quarters per property (leases) and per property group (invoices: one group here).
  expect(first.workUnits).toMatchObject({ total: 4 * properties + 4, done: 4 * properties + 4, skipped: 0 });

  const invoices = await h.warehouse.db
    .selectFrom('invoices')
    .select('invoice_id')
    .orderBy('invoice_id')
    .execute();
  const expectedInvoices = h.sim.dataset.invoices
    .filter((invoice) => invoice._postDay >= from && invoice._postDay <= to)
    .map((invoice) => invoice._id)
    .sort((a, b) => a - b);
  expect(invoices.map((row) => row.invoice_id)).toEqual(expectedInvoices);
  const leases = await h.warehouse.db.selectFrom('leases').select('lease_id').orderBy('lease_id').execute();
  const expectedLeases = h.sim.dataset.leases
    .filter((lease) => mdyToIso(lease.moveInDate)! >= from && mdyToIso(lease.moveInDate)! <= to)
    .map((lease) => lease._id)
    .sort((a, b) => a - b);
  expect(leases.map((row) => row.lease_id)).toEqual(expectedLeases);

  // The same backfill again: every chunk is already done, so only the discovery call is spent.
  const again = await h.sync({
    kind: 'backfill',
    streams: ['invoices', 'leases'],
    backfill: { from, to, chunk: '3m' },
  });
  expect(again.workUnits).toMatchObject({ done: 0, skipped: 4 * properties + 4 });
  expect(again.calls).toBe(1);

  // A longer range only reads the chunks not done yet.
  const longer = await h.sync({
    kind: 'backfill',
    streams: ['invoices'],
    backfill: { from, to: '2026-06-30', chunk: '3m' },
  });
  expect(longer.workUnits).toMatchObject({ done: 2, skipped: 4 });
});
