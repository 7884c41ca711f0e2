import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';

let h: SyncHarness;
beforeAll(async () => {
  h = await startSyncHarness({ scale: 'small', seed: 12, today: '2026-07-07' });
});
afterAll(async () => {
  await h?.close();
});

it('an interrupted run resumes from its checkpoints, and starts a unit over when the page size changed', async () => {
  const stop = new AbortController();
  let pages = 0;
  const interrupted = await h.sync(
    { streams: ['leases'] },
    {
      pageSize: 20,
      signal: stop.signal,
      observer: { onPage: () => (++pages === 3 ? stop.abort() : undefined) },
    },
  );
  expect(interrupted.status).toBe('interrupted');
  const unfinished = await h.warehouse.db
    .selectFrom('sync_work_units')
    .select(['unit_key', 'next_page', 'per_page'])
    .where('status', '=', 'interrupted')
    .execute();
  expect(unfinished.length).toBeGreaterThan(0);
  expect(unfinished.every((unit) => unit.per_page === 20 && unit.next_page > 1)).toBe(true);

  // The same units again with pages of 500: page 2 of 500 is not page 2 of 20, so they start over.
  const resumed = await h.sync({ streams: ['leases'] }, { pageSize: 500 });
  expect(resumed.status).toBe('succeeded');
  expect(h.logs.some((line) => line.event === 'work_unit_resumed')).toBe(false);
  const expected = expectedTotals(h.sim.dataset);
  const actual = await warehouseTotals(h.warehouse.db, expected);
  for (const table of [
    'leases',
    'lease_intervals',
    'lease_customers',
    'lease_unit_spaces',
    'lease_scheduled_charges',
    'ar_transactions',
  ])
    expect(actual[table], table).toEqual(expected[table]);
});

it('resumes at the checkpoint page when the page size is the same', async () => {
  h.sim.advance(2);
  const stop = new AbortController();
  let pages = 0;
  const interrupted = await h.sync(
    { streams: ['leases'], full: true },
    {
      pageSize: 20,
      signal: stop.signal,
      observer: { onPage: () => (++pages === 2 ? stop.abort() : undefined) },
    },
  );
  expect(interrupted.status).toBe('interrupted');
  const resumed = await h.sync({ streams: ['leases'], full: true }, { pageSize: 20 });
  expect(resumed.status).toBe('succeeded');
  expect(h.logs.some((line) => line.event === 'work_unit_resumed')).toBe(true);
  const expected = expectedTotals(h.sim.dataset);
  const actual = await warehouseTotals(h.warehouse.db, expected);
  for (const table of ['leases', 'ar_transactions']) expect(actual[table], table).toEqual(expected[table]);
});
