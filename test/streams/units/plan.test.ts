import { describe, expect, it } from 'vitest';
import { groupProperties, planUnits, planUnitsBackfill } from '../../../src/streams/units/plan.js';
import type { WorkUnitPlan } from '../../../src/streams/types.js';
import { planContext } from '../plan-support.js';

const fixture = {
  today: '2024-06-15',
  propertyIds: ['100002', '100001', '100003'],
  cursors: {},
  expected: {},
};

describe('units plan', () => {
  it('groups properties under the units a call may list, by what the warehouse last held', () => {
    const sizes = new Map([
      ['1', 300],
      ['2', 300],
      ['3', 4000],
      ['4', 9000],
      ['5', 100],
    ]);
    expect(groupProperties(['5', '4', '3', '2', '1'], sizes, 5000)).toEqual([['1', '2', '3'], ['4'], ['5']]);
    // A property never synced is taken for 1000 units.
    expect(groupProperties(['7', '8', '9'], new Map(), 2500)).toEqual([['7', '8'], ['9']]);
  });

  it('lists every unit, disabled ones included, and marks deleted what the listing no longer holds', async () => {
    const lanes = await planUnits(planContext('units', { ...fixture, settings: { unitsPerCall: 2000 } }));
    expect(lanes.map((lane) => lane.propertyIds)).toEqual([['100001', '100002'], ['100003']]);
    const unit = lanes[0].steps[0] as WorkUnitPlan;
    expect(unit.unitKey).toBe('units:listing:100001,100002@2024-06-15');
    expect(unit.request.params).toEqual({
      propertyIds: ['100001', '100002'],
      includeDisabledUnits: true,
      includeDisabledFloorplans: true,
    });
    expect(unit.trackSeen).toBe(true);
    expect(unit.onComplete).toEqual([
      { type: 'mark-unseen-deleted', scope: { column: 'property_id', values: [100001, 100002] } },
    ]);
  });

  it('backfills today whole, loading only', () => {
    const lanes = planUnitsBackfill(planContext('units', fixture));
    expect(lanes).toHaveLength(1);
    expect(lanes[0].steps[0]).toMatchObject({ kind: 'backfill', trackSeen: false, onComplete: [] });
  });
});
