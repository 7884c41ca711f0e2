import { describe, expect, it } from 'vitest';
import { DailyBudget } from '../../src/source/budget.js';
import { SourceClock } from '../../src/source/clock.js';
import { BudgetExhaustedError } from '../../src/source/errors.js';

/** The zone these tests read days in (the configuration's default). */
const ZONE = 'America/Denver';

describe('SourceClock', () => {
  it('reads today in America/Denver, not UTC', () => {
    // 03:00 UTC on 16 June is 21:00 MDT on 15 June.
    const clock = new SourceClock({ timeZone: ZONE, now: () => Date.parse('2024-06-16T03:00:00Z') });
    expect(clock.today()).toBe('2024-06-15');
  });
  it("takes the source's today from the Date header, and lets time go on from it", () => {
    // Local: 13:00 MST on 29 February; the source is eleven hours ahead (within the 36-hour bound).
    let local = Date.parse('2024-02-29T20:00:00Z');
    const clock = new SourceClock({ timeZone: ZONE, now: () => local });
    clock.observe('Fri, 01 Mar 2024 06:59:00 GMT');
    expect(clock.today()).toBe('2024-02-29');
    local += 60_000;
    expect(clock.today()).toBe('2024-03-01');
    expect(clock.serverDate()?.toISOString()).toBe('2024-03-01T06:59:00.000Z');
    clock.observe('not a date');
    expect(clock.today()).toBe('2024-03-01');
  });
  it('ends a day at midnight in its zone', () => {
    const clock = new SourceClock({ timeZone: ZONE });
    expect(clock.endOfDay('2024-06-15').toISOString()).toBe('2024-06-16T06:00:00.000Z');
    expect(clock.endOfDay('2024-01-15').toISOString()).toBe('2024-01-16T07:00:00.000Z');
  });
});

describe('DailyBudget', () => {
  it('stops at the limit with a clear message, and starts again on the next Denver day', () => {
    let now = Date.parse('2024-06-15T20:00:00Z');
    const budget = new DailyBudget(3, new SourceClock({ timeZone: ZONE, now: () => now }));
    budget.take();
    budget.take();
    expect(budget.left()).toBe(1);
    budget.take();
    let error: unknown;
    try {
      budget.take({ method: 'getLeases', property: '100001', page: 2 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(BudgetExhaustedError);
    const budgetError = error as BudgetExhaustedError;
    expect(budgetError.budget).toBe(3);
    expect(budgetError.day).toBe('2024-06-15');
    expect(budgetError.resetsAt.toISOString()).toBe('2024-06-16T06:00:00.000Z');
    expect(budgetError.retryable).toBe(false);
    expect(budgetError.message).toContain('source.dailyCallBudget = 3');
    expect(budgetError.message).toContain('2024-06-16T06:00:00.000Z');
    expect(budgetError.message).toContain('in 10 h 0 min');
    expect(budgetError.message).toContain('getLeases, property 100001, page 2');
    // Past midnight UTC, still the same day in Denver.
    now = Date.parse('2024-06-16T05:59:00Z');
    expect(() => budget.take()).toThrow(BudgetExhaustedError);
    now = Date.parse('2024-06-16T06:00:00Z');
    expect(budget.left()).toBe(3);
    budget.take();
    expect(budget.spentToday()).toBe(1);
  });
});
