/**
 * The source's clock: its "now" from the replies' `Date` header (bounded by the allowed skew),
 * else the local clock; days in the configured time zone. Why: docs/source-client.md#clock
 */
import { DateTime } from 'luxon';
import type { Logger } from '../log/logger.js';

/** Default bound on the distance between the source's `Date` and the local clock: 36 hours. */
export const MAX_CLOCK_SKEW_MS = 36 * 3_600_000;

/** Options of a source clock. */
export interface SourceClockOptions {
  /** The configured time zone: the zone of the source's dates and of "today". */
  timeZone: string;
  /** The local clock in epoch milliseconds (default `Date.now`; tests pass their own). */
  now?: () => number;
  /**
   * A `Date` farther than this from the local clock is ignored (default `MAX_CLOCK_SKEW_MS`);
   * 0 or Infinity trusts any date (a simulated source whose day is set on purpose).
   */
  maxSkewMs?: number;
  /** Where the warning about an ignored `Date` goes. */
  logger?: Pick<Logger, 'warn'>;
}

/** The source's time, learned from replies. */
export class SourceClock {
  readonly timeZone: string;
  private readonly localNow: () => number;
  private readonly maxSkewMs: number;
  private readonly logger?: Pick<Logger, 'warn'>;
  private offsetMs = 0;
  private latest?: Date;
  /** Whether the latest `Date` was ignored (one warning per run of ignored dates). */
  private ignoring = false;
  /** The latest `Date`, when it was ignored for running ahead of the local clock. */
  private ignoredAhead?: number;

  constructor(options: SourceClockOptions) {
    this.timeZone = options.timeZone;
    this.localNow = options.now ?? Date.now;
    const bound = options.maxSkewMs ?? MAX_CLOCK_SKEW_MS;
    this.maxSkewMs = bound > 0 ? bound : Number.POSITIVE_INFINITY;
    this.logger = options.logger;
  }

  /**
   * Takes in a reply's `Date` header (ignored when absent, unreadable, or farther from the
   * local clock than the bound), received at `receivedAt` on the local clock. Returns the date
   * taken, if any.
   */
  observe(dateHeader: string | undefined, receivedAt: number = this.localNow()): Date | undefined {
    if (!dateHeader) return undefined;
    const at = Date.parse(dateHeader);
    if (Number.isNaN(at)) return undefined;
    if (Math.abs(at - receivedAt) > this.maxSkewMs) {
      if (!this.ignoring) {
        const hours = Math.round((at - receivedAt) / 3_600_000);
        this.logger?.warn(
          {
            event: 'source.clock_ignored',
            date: dateHeader,
            local: new Date(receivedAt).toISOString(),
            skewHours: hours,
          },
          `the source's clock (Date: ${dateHeader}) is ${Math.abs(hours)} ` +
            `hours ${hours > 0 ? 'ahead of' : 'behind'} the local clock, ` +
            `more than source.maxClockSkewHours allows; it is ignored and the local day is used`,
        );
      }
      this.ignoring = true;
      this.ignoredAhead = at > receivedAt ? at : undefined;
      return undefined;
    }
    this.ignoring = false;
    this.ignoredAhead = undefined;
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

  /** The day of the latest `Date`, when it was ignored for running ahead of the local clock. */
  dayAhead(): string | undefined {
    return this.ignoredAhead === undefined ? undefined : this.dayOf(this.ignoredAhead);
  }

  /** The instant the given source day ends: the next midnight in the source's zone. */
  endOfDay(day: string): Date {
    return DateTime.fromISO(day, { zone: this.timeZone }).plus({ days: 1 }).startOf('day').toJSDate();
  }
}
