/**
 * The daily call budget of a process: at most `limit` calls per day in the source's zone
 * (the configured time zone), shared by every request of the client. Each HTTP call, retries included,
 * spends one call; it is checked before the call is made. The client gives it a clock that
 * reads the local time (not the replies' `Date`), so that learning the source's time never
 * starts a new budget day.
 */
import { BudgetExhaustedError, type CallSite } from './errors.js';
import type { SourceClock } from './clock.js';

/** Counts the calls of the current source day against a limit. */
export class DailyBudget {
  private day: string;
  private spent = 0;
  /** Calls other processes spent today (the warehouse's run history), set by `shareWith`. */
  private elsewhere = 0;

  constructor(
    /** Calls allowed per day (`source.dailyCallBudget`). */
    readonly limit: number,
    private readonly clock: SourceClock,
  ) {
    this.day = clock.today();
  }

  private roll(): void {
    const today = this.clock.today();
    if (today !== this.day) {
      this.day = today;
      this.spent = 0;
      this.elsewhere = 0;
    }
  }

  /** Notes what other processes spent today, as the warehouse last said; this process's own calls stay counted here. */
  spentElsewhere(calls: number): void {
    this.roll();
    this.elsewhere = Math.max(0, calls);
  }

  /** Calls left today. */
  left(): number {
    this.roll();
    return Math.max(0, this.limit - this.elsewhere - this.spent);
  }

  /** Calls spent today. */
  spentToday(): number {
    this.roll();
    return this.spent;
  }

  /** Throws `BudgetExhaustedError` for `site`: the budget shared by every process is spent. */
  refuse(site: Partial<CallSite> = {}): never {
    this.roll();
    throw new BudgetExhaustedError({
      ...site,
      budget: this.limit,
      day: this.day,
      resetsAt: this.clock.endOfDay(this.day),
      timeZone: this.clock.timeZone,
      now: this.clock.nowMs(),
    });
  }

  /** Spends one call, or throws `BudgetExhaustedError` (naming the budget and its reset) when none is left. */
  take(site: Partial<CallSite> = {}): void {
    this.roll();
    if (this.spent + this.elsewhere >= this.limit) this.refuse(site);
    this.spent += 1;
  }
}
