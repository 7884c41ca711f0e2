import { describe, expect, it } from 'vitest';
import { fullRefreshDue, nextFullRefresh } from '../../src/streams/full-refresh.js';

describe('nextFullRefresh (next refresh day)', () => {
  it('is a period after the last refresh once a scope was loaded', () => {
    expect(nextFullRefresh('2024-06-15', 7, false, 0, 10)).toBe('2024-06-22');
    expect(nextFullRefresh('2024-06-15', 1, true, 5, 10)).toBe('2024-06-16');
  });

  it('spreads the first refreshes of a first load evenly over the period, none later than a period', () => {
    const days = Array.from({ length: 14 }, (_, slot) => nextFullRefresh('2024-06-15', 7, true, slot, 14));
    expect(days[0]).toBe('2024-06-16');
    expect(days[13]).toBe('2024-06-22');
    const perDay = new Map<string, number>();
    for (const day of days) perDay.set(day, (perDay.get(day) ?? 0) + 1);
    // Two a day; the first day also takes the slot that would fall on the load day itself.
    expect([...perDay.values()]).toEqual([3, 2, 2, 2, 2, 2, 1]);
  });
});

describe('fullRefreshDue', () => {
  it('is due when never done or when its day has come', () => {
    expect(fullRefreshDue(undefined, '2024-06-15')).toBe(true);
    expect(fullRefreshDue({}, '2024-06-15')).toBe(true);
    expect(fullRefreshDue({ nextDue: '2024-06-15' }, '2024-06-15')).toBe(true);
    expect(fullRefreshDue({ nextDue: '2024-06-16' }, '2024-06-15')).toBe(false);
  });
});
