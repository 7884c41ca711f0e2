import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { planProperties, planPropertiesBackfill } from '../../../src/streams/properties/plan.js';
import type { WorkUnitPlan } from '../../../src/streams/types.js';
import { planContext, planned, type PlanFixture } from '../plan-support.js';

const fixture = JSON.parse(
  readFileSync(new URL('./fixtures/plan.json', import.meta.url), 'utf8'),
) as PlanFixture;

describe('properties plan', () => {
  it('reads the whole listing in one lane of one unit, whatever the run covers', async () => {
    const lanes = await planProperties(planContext('properties', fixture));
    expect(planned(lanes)).toEqual(fixture.expected);
    const unit = lanes[0].steps[0] as WorkUnitPlan;
    expect(unit.request.method.name).toBe('getProperties');
    expect(unit.request.params).toEqual({});
  });

  it('tracks what it sees and marks deleted, at the end, the properties it no longer lists', async () => {
    const [lane] = await planProperties(planContext('properties', fixture));
    const unit = lane.steps[0] as WorkUnitPlan;
    expect(unit.trackSeen).toBe(true);
    // The warehouse of the fixture holds no property yet: nothing is in scope.
    expect(unit.onComplete).toEqual([
      { type: 'mark-unseen-deleted', scope: { column: 'property_id', values: [] } },
    ]);
  });

  it('backfills by reading the listing whole once, loading only', () => {
    const lanes = planPropertiesBackfill(planContext('properties', fixture));
    expect(planned(lanes)).toEqual({ properties: { units: ['properties:backfill@2024-06-15'] } });
    expect(lanes[0].steps[0]).toMatchObject({ kind: 'backfill', trackSeen: false, onComplete: [] });
  });
});
