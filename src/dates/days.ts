import { DateTime } from 'luxon';

/**
 * Calendar days: the one check of whether a date exists, and day arithmetic on `YYYY-MM-DD`
 * strings. Days carry no time zone: the source's dates are days in the configured time zone,
 * and "today" is taken from the source (see the client's `today()`), so nothing here looks at
 * a clock. Streams, the engine, the source's quirk readers and the CLI all check dates here.
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

function parse(day: string): DateTime {
  if (!isDay(day)) throw new RangeError(`not a YYYY-MM-DD day: ${day}`);
  return DateTime.fromISO(day, { zone: 'UTC' });
}

/** `day` plus `days` (negative to go back). */
export function addDays(day: string, days: number): string {
  return parse(day).plus({ days }).toISODate()!;
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round(parse(to).diff(parse(from), 'days').days);
}

/** The first day of the month before `day`'s month. */
export function firstDayOfPreviousMonth(day: string): string {
  return parse(day).startOf('month').minus({ months: 1 }).toISODate()!;
}

/** The earlier of two days. */
export function minDay(a: string, b: string): string {
  return a <= b ? a : b;
}

/** Cuts the inclusive range [from, to] into consecutive inclusive chunks of a calendar size. */
export function chunkRange(from: string, to: string, size: ChunkSize | { days: number }): { from: string; to: string }[] {
  const chunks: { from: string; to: string }[] = [];
  let start = parse(from);
  const end = parse(to);
  const step = typeof size === 'object' ? { days: size.days } : size === '1m' ? { months: 1 } : size === '3m' ? { months: 3 } : { years: 1 };
  while (start <= end) {
    const next = start.plus(step);
    const last = next.minus({ days: 1 });
    chunks.push({ from: start.toISODate()!, to: (last < end ? last : end).toISODate()! });
    start = next;
  }
  return chunks;
}
