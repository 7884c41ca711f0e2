import { DateTime } from 'luxon';
import { isDay, type ChunkSize } from './calendar.js';

/**
 * Calendar days: day arithmetic on `YYYY-MM-DD` strings, and (from `calendar.ts`) the one check
 * of whether a date exists. Days carry no time zone: the source's dates are days in the
 * configured time zone, and "today" is taken from the source (see the client's `today()`), so
 * nothing here looks at a clock. Streams, the engine and the source's quirk readers check dates
 * here; the CLI reads `calendar.ts` alone (docs/architecture.md#lazy-loading).
 */

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
export function chunkRange(
  from: string,
  to: string,
  size: ChunkSize | { days: number },
): { from: string; to: string }[] {
  const chunks: { from: string; to: string }[] = [];
  let start = parse(from);
  const end = parse(to);
  const step =
    typeof size === 'object'
      ? { days: size.days }
      : size === '1m'
        ? { months: 1 }
        : size === '3m'
          ? { months: 3 }
          : { years: 1 };
  while (start <= end) {
    const next = start.plus(step);
    const last = next.minus({ days: 1 });
    chunks.push({ from: start.toISODate()!, to: (last < end ? last : end).toISODate()! });
    start = next;
  }
  return chunks;
}
