/**
 * The source's clock: its "now" as learned from the HTTP `Date` header of the latest reply
 * (the offset to the local clock is kept, so time goes on between replies), else the local
 * clock. Days are read in the configured time zone (the source's), never in UTC.
 */
import { DateTime } from 'luxon';

/** Options of a source clock. */
export interface SourceClockOptions {
  /** The configured time zone: the zone of the source's dates and of "today". */
  timeZone: string;
  /** The local clock in epoch milliseconds (default `Date.now`; tests pass their own). */
  now?: () => number;
}

/** The source's time, learned from replies. */
export class SourceClock {
  readonly timeZone: string;
  private readonly localNow: () => number;
  private offsetMs = 0;
  private latest?: Date;

  constructor(options: SourceClockOptions) {
    this.timeZone = options.timeZone;
    this.localNow = options.now ?? Date.now;
  }

  /**
   * Takes in a reply's `Date` header (ignored when absent or unreadable), received at
   * `receivedAt` on the local clock. Returns the date read, if any.
   */
  observe(dateHeader: string | undefined, receivedAt: number = this.localNow()): Date | undefined {
    if (!dateHeader) return undefined;
    const at = Date.parse(dateHeader);
    if (Number.isNaN(at)) return undefined;
    this.offsetMs = at - receivedAt;
    this.latest = new Date(at);
    return this.latest;
  }

  /** The latest reply's `Date`, if any came. */
  serverDate(): Date | undefined {
    return this.latest;
  }

  /** The source's current time in epoch milliseconds. */
  nowMs(): number {
    return this.localNow() + this.offsetMs;
  }

  /** A day (`YYYY-MM-DD`) in the source's zone of an epoch-millisecond instant (default now). */
  dayOf(epochMs: number = this.nowMs()): string {
    return DateTime.fromMillis(epochMs, { zone: this.timeZone }).toISODate()!;
  }

  /** The source's "today" as `YYYY-MM-DD`. */
  today(): string {
    return this.dayOf();
  }

  /** The instant the given source day ends: the next midnight in the source's zone. */
  endOfDay(day: string): Date {
    return DateTime.fromISO(day, { zone: this.timeZone }).plus({ days: 1 }).startOf('day').toJSDate();
  }
}
