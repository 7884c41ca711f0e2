import { DateTime } from 'luxon';
import type { IsoDay } from '../data/model.js';

/** The source's time zone: its dates, datetimes and "today". */
export const SOURCE_ZONE = 'America/Denver';

/** Today's date in America/Denver as `YYYY-MM-DD`. */
export function denverToday(now: Date = new Date()): IsoDay {
  return DateTime.fromJSDate(now).setZone(SOURCE_ZONE).toISODate()!;
}

/**
 * The HTTP `Date` of a reply: the simulated day at the real wall-clock time of day in
 * America/Denver, so that a client reading the header learns the simulator's "today".
 */
export function simulatedHttpDate(today: IsoDay, now: Date = new Date()): string {
  const wall = DateTime.fromJSDate(now).setZone(SOURCE_ZONE);
  const [year, month, day] = today.split('-').map(Number);
  const simulated = DateTime.fromObject(
    { year, month, day, hour: wall.hour, minute: wall.minute, second: wall.second },
    { zone: SOURCE_ZONE },
  );
  return simulated.toHTTP()!;
}
