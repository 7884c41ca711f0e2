/**
 * The source lists a record twice on one page, an older copy first: the later copy is what the
 * row must hold. When the later copy is the row as it stands (passed over undecoded, or its digest
 * the stored one), the older copy must not be written over it, not even for the moment before the
 * unit, finding fewer distinct records than the listing's total, reads its pages again.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';

let h: SyncHarness;
beforeAll(async () => {
  h = await startSyncHarness({ scale: 'small', seed: 41, today: '2026-04-14' });
});
afterAll(async () => {
  await h?.close();
});

it.each(['json', 'xml'] as const)(
  'keeps the later copy of a record listed twice on a page (%s)',
  { timeout: 120_000 },
  async (format) => {
    const loaded = await h.sync({}, { format });
    expect(loaded.status).toBe('succeeded');
    const { dataset } = h.sim;
    // A current lease: the nightly run reads every current lease again.
    const at = dataset.leases.findIndex((lease) => lease.leaseStatusTypeId === '4' && lease.unitNumber);
    const lease = dataset.leases[at];
    const row = sql<{ unit_number: string; last_run_id: number }>`
      select unit_number, last_run_id from leases where lease_id = ${lease._id}`;
    const before = (await row.execute(h.warehouse.db)).rows;
    // An older copy of the lease, listed right before it.
    dataset.leases.splice(at, 0, { ...structuredClone(lease), unitNumber: `older-${format}` });
    h.sim.advance(0);
    const next = await h.sync({}, { format });
    expect(next).toMatchObject({ quarantined: 0, rowsUpdated: 0, rowsInserted: 0 });
    expect(before).toEqual([{ unit_number: lease.unitNumber, last_run_id: expect.any(Number) }]);
    expect((await row.execute(h.warehouse.db)).rows).toEqual(before);
    dataset.leases.splice(at, 1);
    h.sim.advance(0);
  },
);
