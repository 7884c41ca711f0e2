import { describe, expect, it } from 'vitest';
import {
  AccessError,
  AuthenticationError,
  BadParameterError,
  BudgetExhaustedError,
  MalformedReplyError,
  ServerError,
  ThrottledError,
  TransportError,
  UnknownMethodError,
} from '../../src/source/errors.js';
import { RetrySchedule } from '../../src/source/retry.js';

const settings = { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 1_000, maxTotalWaitMs: 60_000 };
const site = { method: 'getLeases' as const, property: '1', page: 1 };

describe('RetrySchedule', () => {
  it('never retries what cannot pass', () => {
    const never = [
      new AuthenticationError('x', site),
      new AccessError('x', site),
      new BadParameterError('x', site),
      new UnknownMethodError('x', site),
      new BudgetExhaustedError({
        ...site,
        budget: 1,
        day: '2024-06-15',
        resetsAt: new Date(),
        timeZone: 'America/Denver',
        now: Date.now(),
      }),
      new Error('plain'),
    ];
    for (const error of never) expect(new RetrySchedule(settings).next(error, 1)).toBeUndefined();
  });
  it('retries what may pass, with full jitter under an exponential cap, for a bounded number of attempts', () => {
    const errors = [
      new ServerError('x', site),
      new TransportError('x', { ...site, failure: 'timeout' }),
      new MalformedReplyError('x', site),
      new ThrottledError('x', site),
    ];
    for (const error of errors) {
      const schedule = new RetrySchedule(settings);
      const delays: number[] = [];
      for (let attempt = 1; ; attempt++) {
        const delay = schedule.next(error, attempt);
        if (delay === undefined) break;
        delays.push(delay);
      }
      expect(delays).toHaveLength(settings.maxAttempts - 1);
      delays.forEach((delay, i) => {
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** i) + 1);
      });
    }
  });
  it('jitters', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 20; i++)
      seen.add(
        new RetrySchedule({ ...settings, baseDelayMs: 10_000, maxDelayMs: 10_000 }).next(
          new ServerError('x', site),
          1,
        )!,
      );
    expect(seen.size).toBeGreaterThan(5);
  });
  it('bounds the total wait', () => {
    const schedule = new RetrySchedule({
      maxAttempts: 20,
      baseDelayMs: 1000,
      maxDelayMs: 1000,
      maxTotalWaitMs: 2500,
    });
    const throttled = new ThrottledError('x', { ...site, retryAfterMs: 1000 });
    expect(schedule.next(throttled, 1)).toBe(1000);
    expect(schedule.next(throttled, 2)).toBe(1000);
    expect(schedule.next(throttled, 3)).toBeUndefined();
    expect(schedule.totalWaitMs).toBe(2000);
  });
  it('honours Retry-After as the least delay', () => {
    const schedule = new RetrySchedule(settings);
    expect(schedule.next(new ThrottledError('x', { ...site, retryAfterMs: 5_000 }), 1)).toBe(5_000);
  });
});
