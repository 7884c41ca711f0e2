import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SimLease } from '../../src/simulator/data/model.js';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';

const PAGE = 5;
let h: SyncHarness;
beforeAll(async () => {
  h = await startSyncHarness({
    scale: 'small',
    seed: 44,
    today: '2026-08-03',
    streams: { leases: { fullRefreshDays: 30 } },
  });
});
afterAll(async () => {
  await h?.close();
});

const isLive = (lease: SimLease) => [1, 3, 4, 5].includes(lease._status);

it('loses no record when the live set changes while it is being paged', async () => {
  await h.sync();
  const propertyId = h.sim.dataset.leases[0].propertyId;

  // A brand-new lease (highest id, so last in the listing) that the warehouse has never seen.
  const template = h.sim.dataset.leases.find(
    (lease) => lease.propertyId === propertyId && lease._status === 4,
  )!;
  const newId = Math.max(...h.sim.dataset.leases.map((lease) => lease._id)) + 1;
  const fresh: SimLease = {
    ...structuredClone(template),
    id: String(newId),
    _id: newId,
    arTransactions: undefined,
    scheduledCharges: undefined,
    leaseIntervals: { leaseInterval: [] },
    leaseHistory: undefined,
  };
  h.sim.dataset.leases.push(fresh);
  h.sim.advance(0); // the simulator re-indexes its data

  const live = h.sim.dataset.leases
    .filter((lease) => lease.propertyId === propertyId && isLive(lease))
    .sort((a, b) => a._id - b._id);
  const lastIndex = live.length - 1;
  // Read pages up to the one before the new lease's page, then 5 earlier leases get cancelled:
  // every later record slides back one page, and the new lease would be skipped.
  const pageBefore = Math.floor(lastIndex / PAGE);
  expect(pageBefore).toBeGreaterThanOrEqual(1);
  const cancelled = live.slice(0, PAGE);
  let mutated = false;
  const summary = await h.sync(
    {},
    {
      pageSize: PAGE,
      observer: {
        onPage(event) {
          if (
            mutated ||
            !event.unitKey.startsWith(`leases:live:${propertyId}@`) ||
            event.pageNo !== pageBefore
          )
            return;
          mutated = true;
          for (const lease of cancelled) {
            lease._status = 2;
            lease.leaseStatusTypeId = '2';
          }
        },
      },
    },
  );
  expect(mutated).toBe(true);
  expect(summary.status).toBe('succeeded');
  expect(h.logs.some((line) => line.event === 'listing_changed')).toBe(true);

  const row = await h.warehouse.db
    .selectFrom('leases')
    .select(['lease_id', 'lease_status_type_id'])
    .where('lease_id', '=', newId)
    .executeTakeFirst();
  expect(row).toEqual({ lease_id: newId, lease_status_type_id: 4 });
  const statuses = await h.warehouse.db
    .selectFrom('leases')
    .select('lease_status_type_id')
    .where(
      'lease_id',
      'in',
      cancelled.map((lease) => lease._id),
    )
    .execute();
  expect(statuses.map((s) => s.lease_status_type_id)).toEqual(cancelled.map(() => 2));
  const expected = expectedTotals(h.sim.dataset);
  expect(await warehouseTotals(h.warehouse.db, expected)).toEqual(expected);
});
