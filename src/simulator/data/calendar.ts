/**
 * Calendar arithmetic on epoch days (days since 1970-01-01, plain integers) and the source's
 * text formats. Hot loops work on integers; strings are formatted once per distinct day and
 * cached, so millions of records share a few thousand date strings.
 *
 * Mountain Time: the only zone-dependent output is the `MDT`/`MST` suffix of datetimes. The
 * DST change days of each year are found once with luxon (America/Denver rules, any year) and
 * cached; everything else is integer math.
 */
import { DateTime } from 'luxon';
import type { IsoDay } from './model.js';

/** A day as an integer: days since 1970-01-01. */
export type EpochDay = number;

const ZONE = 'America/Denver';

/** The epoch day of a civil date (proleptic Gregorian; Howard Hinnant's days_from_civil). */
export function dayFromYmd(year: number, month: number, day: number): EpochDay {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Year, month (1-12) and day of an epoch day. */
export function ymd(epochDay: EpochDay): { year: number; month: number; day: number } {
  const z = epochDay + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** Days in a month of a year. */
export function daysInMonth(year: number, month: number): number {
  return (
    dayFromYmd(month === 12 ? year + 1 : year, month === 12 ? 1 : month + 1, 1) - dayFromYmd(year, month, 1)
  );
}

/** Day of the month (1-31). */
export function dayOfMonth(epochDay: EpochDay): number {
  return ymd(epochDay).day;
}

/** Day of the week, 0 = Sunday ... 6 = Saturday. */
export function weekday(epochDay: EpochDay): number {
  return (((epochDay + 4) % 7) + 7) % 7;
}

/** The first day of the epoch day's month. */
export function firstOfMonth(epochDay: EpochDay): EpochDay {
  const { year, month } = ymd(epochDay);
  return dayFromYmd(year, month, 1);
}

/** The last day of the epoch day's month. */
export function lastOfMonth(epochDay: EpochDay): EpochDay {
  const { year, month } = ymd(epochDay);
  return dayFromYmd(year, month, 1) + daysInMonth(year, month) - 1;
}

/** The same day of the month `months` later (clamped to the month's last day). */
export function addMonths(epochDay: EpochDay, months: number): EpochDay {
  const { year, month, day } = ymd(epochDay);
  const index = year * 12 + (month - 1) + months;
  const y = Math.floor(index / 12);
  const m = index - y * 12 + 1;
  return dayFromYmd(y, m, Math.min(day, daysInMonth(y, m)));
}

/** The first day of the month before the epoch day's month. */
export function firstOfPreviousMonth(epochDay: EpochDay): EpochDay {
  return firstOfMonth(firstOfMonth(epochDay) - 1);
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/** `YYYY-MM-DD` to epoch day; throws on anything else. */
export function dayFromIso(iso: IsoDay): EpochDay {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) throw new Error(`not a YYYY-MM-DD day: ${JSON.stringify(iso)}`);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
    throw new Error(`no such day: ${iso}`);
  return dayFromYmd(year, month, day);
}

const isoCache = new Map<EpochDay, string>();
/** Epoch day to `YYYY-MM-DD` (cached). */
export function isoFromDay(epochDay: EpochDay): IsoDay {
  let s = isoCache.get(epochDay);
  if (s === undefined) {
    const { year, month, day } = ymd(epochDay);
    s = `${year}-${pad2(month)}-${pad2(day)}`;
    isoCache.set(epochDay, s);
  }
  return s;
}

const mdyCache = new Map<EpochDay, string>();
/** Epoch day to the source's date format `MM/DD/YYYY` (cached, so equal days share one string). */
export function mdy(epochDay: EpochDay): string {
  let s = mdyCache.get(epochDay);
  if (s === undefined) {
    const { year, month, day } = ymd(epochDay);
    s = `${pad2(month)}/${pad2(day)}/${year}`;
    mdyCache.set(epochDay, s);
  }
  return s;
}

/** `MM/DD/YYYY` to epoch day; throws on anything else. */
export function dayFromMdy(text: string): EpochDay {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text);
  if (!m) throw new Error(`not a MM/DD/YYYY date: ${JSON.stringify(text)}`);
  return dayFromYmd(Number(m[3]), Number(m[1]), Number(m[2]));
}

/** The source's post month of a day: `MM/01/YYYY`. */
export function postMonth(epochDay: EpochDay): string {
  return mdy(firstOfMonth(epochDay));
}

const dstCache = new Map<number, { start: EpochDay; end: EpochDay }>();
/**
 * The days on which America/Denver switches to daylight time (`start`) and back (`end`) in a
 * year, found with luxon at noon and cached. A year without DST gets start = end = +Infinity.
 */
export function dstChangeDays(year: number): { start: EpochDay; end: EpochDay } {
  let found = dstCache.get(year);
  if (found) return found;
  if (year >= 2007) {
    // The US rule since 2007 (Energy Policy Act of 2005): second Sunday of March to first
    // Sunday of November. Tests check it against luxon's tz data.
    const mar1 = dayFromYmd(year, 3, 1);
    const nov1 = dayFromYmd(year, 11, 1);
    found = { start: mar1 + ((7 - weekday(mar1)) % 7) + 7, end: nov1 + ((7 - weekday(nov1)) % 7) };
    dstCache.set(year, found);
    return found;
  }
  const jan1 = dayFromYmd(year, 1, 1);
  const days = daysInMonth(year, 2) === 29 ? 366 : 365;
  const inDst = (d: EpochDay): boolean => {
    const { month, day } = ymd(d);
    return DateTime.fromObject({ year, month, day, hour: 12 }, { zone: ZONE }).isInDST;
  };
  let start = Number.POSITIVE_INFINITY;
  let end = Number.POSITIVE_INFINITY;
  // Compare month starts; walk day by day only through a month in which the state flips.
  for (let month = 1; month <= 12; month++) {
    const first = dayFromYmd(year, month, 1);
    const next = month === 12 ? jan1 + days : dayFromYmd(year, month + 1, 1);
    if (inDst(first) === inDst(next)) continue;
    let previous = inDst(first);
    for (let d = first + 1; d <= next; d++) {
      const now = inDst(d);
      if (now && !previous) start = d;
      if (!now && previous) end = d;
      previous = now;
    }
  }
  found = { start, end };
  dstCache.set(year, found);
  return found;
}

/**
 * True when a local wall time in America/Denver is daylight time. The change happens at 02:00
 * local: on the spring day times from 02:00 are MDT (02:00-02:59 does not exist; callers avoid
 * it); on the autumn day times before 02:00 are MDT (01:00-01:59 happens twice; taken as the
 * first, MDT) and later ones MST.
 */
export function isMountainDst(epochDay: EpochDay, secondOfDay: number): boolean {
  const { start, end } = dstChangeDays(ymd(epochDay).year);
  if (epochDay > start && epochDay < end) return true;
  if (epochDay === start) return secondOfDay >= 7200;
  if (epochDay === end) return secondOfDay < 7200;
  return false;
}

/** A Mountain Time datetime as the source writes it: `MM/DD/YYYY HH:MM:SS MDT|MST`. */
export function mountainDateTime(epochDay: EpochDay, secondOfDay: number): string {
  const h = Math.floor(secondOfDay / 3600);
  const m = Math.floor((secondOfDay % 3600) / 60);
  const s = secondOfDay % 60;
  return `${mdy(epochDay)} ${pad2(h)}:${pad2(m)}:${pad2(s)} ${isMountainDst(epochDay, secondOfDay) ? 'MDT' : 'MST'}`;
}

/** A business-hours second of the day (07:00:00-19:59:59), never inside a DST change hour. */
export function businessSecond(randomFloat: number): number {
  return 7 * 3600 + Math.floor(randomFloat * 13 * 3600);
}
