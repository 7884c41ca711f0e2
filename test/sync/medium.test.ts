import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';

let h: SyncHarness;
beforeAll(async () => {
  h = await startSyncHarness({
    scale: 'medium',
    seed: 2,
    today: '2026-10-01',
    source: { pageSize: 500, concurrency: 4 },
  });
});
afterAll(async () => {
  await h?.close();
});

it('loads the medium data set (about 20 properties, 5,000 leases) exactly', async () => {
  const summary = await h.sync();
  expect(summary).toMatchObject({ status: 'succeeded', quarantined: 0 });
  const expected = expectedTotals(h.sim.dataset);
  expect(expected.leases.rows).toBeGreaterThan(4000);
  expect(await warehouseTotals(h.warehouse.db, expected)).toEqual(expected);
}, 300_000);
