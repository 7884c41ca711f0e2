import { describe, expect, it } from 'vitest';
import {
  parseRateLimitHeaders,
  parseRetryAfter,
  tightestRemaining,
  windowLengthMs,
} from '../../src/source/rate-headers.js';

describe('parseRateLimitHeaders', () => {
  it('reads the documented form', () => {
    const windows = parseRateLimitHeaders('15000/day;1000/hour;150/minute', '14999;999;149', '36686;686;26');
    expect(windows).toEqual([
      { name: 'day', limit: 15000, lengthMs: 86_400_000, remaining: 14999, resetMs: 36_686_000 },
      { name: 'hour', limit: 1000, lengthMs: 3_600_000, remaining: 999, resetMs: 686_000 },
      { name: 'minute', limit: 150, lengthMs: 60_000, remaining: 149, resetMs: 26_000 },
    ]);
    expect(tightestRemaining(windows)).toBe(149);
  });
  it('reads the remaining calls named like the limit, as the source documents them', () => {
    const windows = parseRateLimitHeaders(
      '15000/day;1000/hour;150/minute',
      '14996/day;999/hour;149/minute',
      '36686;686;26',
    );
    expect(windows.map((w) => [w.name, w.limit, w.remaining, w.resetMs])).toEqual([
      ['day', 15000, 14996, 36_686_000],
      ['hour', 1000, 999, 686_000],
      ['minute', 150, 149, 26_000],
    ]);
    expect(tightestRemaining(windows)).toBe(149);
  });
  it('matches named values by name, in any order', () => {
    const windows = parseRateLimitHeaders('20/2s, 500/hour', '499/hour, 3/2s', '1/2s;100/hour');
    expect(windows.map((w) => [w.name, w.limit, w.lengthMs, w.remaining, w.resetMs])).toEqual([
      ['hour', 500, 3_600_000, 499, 100_000],
      ['2s', 20, 2_000, 3, 1_000],
    ]);
  });
  it('tolerates missing headers and ignores unreadable ones', () => {
    expect(parseRateLimitHeaders(undefined, undefined, undefined)).toEqual([]);
    expect(parseRateLimitHeaders('10/minute', 'lots', '5')).toEqual([]);
    expect(parseRateLimitHeaders(undefined, '7', undefined)).toEqual([
      { name: '0', limit: undefined, lengthMs: undefined, remaining: 7, resetMs: undefined },
    ]);
    expect(tightestRemaining([])).toBeUndefined();
  });
  it('knows window names', () => {
    expect(windowLengthMs('second')).toBe(1000);
    expect(windowLengthMs('5min')).toBe(300_000);
    expect(windowLengthMs('1h')).toBe(3_600_000);
    expect(windowLengthMs('fortnight')).toBeUndefined();
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('2', 0)).toBe(2000);
    expect(parseRetryAfter('0.5', 0)).toBe(500);
    const now = Date.parse('Sat, 15 Jun 2024 12:00:00 GMT');
    expect(parseRetryAfter('Sat, 15 Jun 2024 12:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('Sat, 15 Jun 2024 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
