/**
 * The one check of whether a day exists, and the chunk sizes of a date range, with no date
 * library (why: docs/architecture.md#lazy-loading). `days.ts` re-exports these.
 */

/** Chunk sizes of a date range: one month, three months, one year. */
export const CHUNK_SIZES = ['1m', '3m', '1y'] as const;
export type ChunkSize = (typeof CHUNK_SIZES)[number];

/** Days in each month of a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** Days in a month (1-12) of a year of the Gregorian calendar. */
export function daysInMonth(year: number, month: number): number {
  return month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : MONTH_DAYS[month - 1];
}

/** True when year, month (1-12) and day of month make a date of the Gregorian calendar (year 1 on). */
export function isValidDate(year: number, month: number, day: number): boolean {
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return false;
  if (month < 1 || month > 12 || day < 1 || year < 1) return false;
  return day <= daysInMonth(year, month);
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True when `value` is a real calendar day written `YYYY-MM-DD`. */
export function isDay(value: string): boolean {
  const m = ISO_DAY.exec(value);
  return m !== null && isValidDate(Number(m[1]), Number(m[2]), Number(m[3]));
}
