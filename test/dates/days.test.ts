import { describe, expect, it } from 'vitest';
import { isDay, isValidDate } from '../../src/dates/calendar.js';
import { addDays, chunkRange, daysBetween, firstDayOfPreviousMonth, minDay } from '../../src/dates/days.js';

describe('isValidDate and isDay', () => {
  it('knows leap years and month lengths', () => {
    expect(isValidDate(2024, 2, 29)).toBe(true);
    expect(isValidDate(2023, 2, 29)).toBe(false);
    expect(isValidDate(1900, 2, 29)).toBe(false);
    expect(isValidDate(2000, 2, 29)).toBe(true);
    expect(isValidDate(2024, 4, 31)).toBe(false);
    expect(isValidDate(2024, 13, 1)).toBe(false);
    expect(isValidDate(2024, 1, 0)).toBe(false);
  });

  it('reads YYYY-MM-DD only', () => {
    expect(isDay('2024-02-29')).toBe(true);
    expect(isDay('2024-02-30')).toBe(false);
    expect(isDay('2024-2-3')).toBe(false);
    expect(isDay('02/03/2024')).toBe(false);
    expect(() => addDays('2024-02-30', 1)).toThrow(RangeError);
  });
});

describe('day arithmetic', () => {
  it('adds days across months and years, and measures between days', () => {
    expect(addDays('2024-02-28', 2)).toBe('2024-03-01');
    expect(addDays('2025-01-01', -1)).toBe('2024-12-31');
    expect(daysBetween('2024-01-01', '2024-03-01')).toBe(60);
    expect(firstDayOfPreviousMonth('2024-03-15')).toBe('2024-02-01');
    expect(firstDayOfPreviousMonth('2024-01-01')).toBe('2023-12-01');
    expect(minDay('2024-01-02', '2023-12-31')).toBe('2023-12-31');
  });
});

describe('chunkRange (window chunking)', () => {
  it('cuts a range into calendar months, quarters and years, the last chunk cut at the end', () => {
    expect(chunkRange('2024-01-15', '2024-03-10', '1m')).toEqual([
      { from: '2024-01-15', to: '2024-02-14' },
      { from: '2024-02-15', to: '2024-03-10' },
    ]);
    expect(chunkRange('2024-01-01', '2024-12-31', '3m').map((chunk) => chunk.from)).toEqual([
      '2024-01-01',
      '2024-04-01',
      '2024-07-01',
      '2024-10-01',
    ]);
    expect(chunkRange('2020-01-01', '2021-06-30', '1y')).toEqual([
      { from: '2020-01-01', to: '2020-12-31' },
      { from: '2021-01-01', to: '2021-06-30' },
    ]);
  });

  it('cuts by a number of days, covering every day once', () => {
    const chunks = chunkRange('2024-01-01', '2024-01-10', { days: 4 });
    expect(chunks).toEqual([
      { from: '2024-01-01', to: '2024-01-04' },
      { from: '2024-01-05', to: '2024-01-08' },
      { from: '2024-01-09', to: '2024-01-10' },
    ]);
    expect(chunkRange('2024-01-01', '2024-01-01', { days: 92 })).toEqual([
      { from: '2024-01-01', to: '2024-01-01' },
    ]);
    expect(chunkRange('2024-01-02', '2024-01-01', { days: 92 })).toEqual([]);
  });
});
