import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { planInvoices, planInvoicesBackfill, propertyGroups } from '../../../src/streams/invoices/plan.js';
import { planContext, planned, type PlanFixture } from '../plan-support.js';

const fixture = JSON.parse(
  readFileSync(new URL('./fixtures/plan-incremental.json', import.meta.url), 'utf8'),
) as PlanFixture;

describe('propertyGroups', () => {
  it('sorts ids numerically and cuts them into groups of the given size', () => {
    expect(propertyGroups(['30', '4', '100', '2', '7'], 2)).toEqual([['2', '4'], ['7', '30'], ['100']]);
    expect(propertyGroups([], 50)).toEqual([]);
  });
});

describe('invoices plan', () => {
  it('reads a group per window from its cursors (post date back to the previous month), cut in windowDays; a new group whole', async () => {
    const lanes = await planInvoices(planContext('invoices', fixture));
    expect(planned(lanes)).toEqual(fixture.expected);
  });

  it('backfills each group by post date, one unit per chunk', () => {
    const lanes = planInvoicesBackfill(planContext('invoices', fixture), {
      from: '2024-01-01',
      to: '2024-06-30',
      chunk: '3m',
    });
    expect(lanes.map((lane) => lane.key)).toEqual(['invoices:100001,100002', 'invoices:100003']);
    expect(lanes[0].steps).toHaveLength(2);
    expect(lanes[0].steps[0]).toMatchObject({
      kind: 'backfill',
      request: {
        params: { fromDate: '2024-01-01', toDate: '2024-03-31', propertyIds: ['100001', '100002'] },
      },
    });
  });
});
