import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ALL_STATUSES,
  LIVE_STATUSES,
  planLeases,
  planLeasesBackfill,
} from '../../../src/streams/leases/plan.js';
import { planContext, planned, type PlanFixture } from '../plan-support.js';

const fixture = JSON.parse(
  readFileSync(new URL('./fixtures/plan-incremental.json', import.meta.url), 'utf8'),
) as PlanFixture;

describe('leases plan', () => {
  it('reads due and never-loaded properties whole, the others by live set, move-outs and disappearances', async () => {
    const lanes = await planLeases(planContext('leases', fixture));
    expect(planned(lanes)).toEqual(fixture.expected);
    const [live, moveOuts] = lanes[0].steps as {
      request: { params: Record<string, unknown> };
      window?: unknown;
    }[];
    expect(live.request.params.leaseStatusTypeIds).toEqual([...LIVE_STATUSES]);
    // Move-outs reach back lookbackDays (60) behind the cursor.
    expect(moveOuts.request.params.moveOutDateFrom).toBe('2024-04-15');
    expect(lanes[1].steps[0]).toMatchObject({
      kind: 'full',
      trackSeen: true,
      request: { params: { leaseStatusTypeIds: [...ALL_STATUSES] } },
    });
  });

  it('reads everything with --full', async () => {
    const lanes = await planLeases(planContext('leases', { ...fixture, full: true }));
    expect(lanes.map((lane) => lane.steps.length)).toEqual([1, 1, 1]);
  });

  it('backfills each property by move-in date, one unit per chunk', () => {
    const lanes = planLeasesBackfill(planContext('leases', fixture), {
      from: '2023-01-01',
      to: '2023-12-31',
      chunk: '3m',
    });
    expect(lanes).toHaveLength(3);
    expect(lanes[0].steps.map((step) => (typeof step === 'function' ? 'dynamic' : step.unitKey))).toEqual([
      'leases:backfill:100001:2023-01-01..2023-03-31',
      'leases:backfill:100001:2023-04-01..2023-06-30',
      'leases:backfill:100001:2023-07-01..2023-09-30',
      'leases:backfill:100001:2023-10-01..2023-12-31',
    ]);
  });
});
