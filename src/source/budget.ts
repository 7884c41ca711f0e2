/**
 * The daily call budget: at most `limit` calls per day in the source's zone (the configured time
 * zone). Each HTTP call that reaches the source, retries included, spends one; it is booked
 * before the call goes, by the client's one gate (`CallGate`): the warehouse's shared gate for a
 * running propsync (queue/call-gate.ts), or `processGate` here for a client that shares nothing.
 * The budget's clock reads the local time (not the replies' `Date`), so that learning the source's
 * time never starts a new budget day.
 */
import { BudgetExhaustedError, type CallSite } from './errors.js';
import type { SourceClock } from './clock.js';
import type { CallGate } from './types.js';

/** Counts the calls of the current source day against a limit. */
export class DailyBudget {
  private day: string;
  private spent = 0;

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
    }
  }

  /** Calls left today. */
  left(): number {
    this.roll();
    return Math.max(0, this.limit - this.spent);
  }

  /** Calls spent today. */
  spentToday(): number {
    this.roll();
    return this.spent;
  }

  /** Throws `BudgetExhaustedError` for `site`: the day's budget is spent. */
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

  /** Spends one call when one is left; false (nothing spent) when none is. */
  tryTake(): boolean {
    this.roll();
    if (this.spent >= this.limit) return false;
    this.spent += 1;
    return true;
  }

  /** Spends one call, or throws `BudgetExhaustedError` (naming the budget and its reset) when none is left. */
  take(site: Partial<CallSite> = {}): void {
    if (!this.tryTake()) this.refuse(site);
  }

  /** Gives back a call that never reached the source. */
  giveBack(): void {
    this.roll();
    this.spent = Math.max(0, this.spent - 1);
  }
}

/** The gate of a client that shares nothing with other processes: its budget counted here, no shared pacing. */
export function processGate(budget: DailyBudget): CallGate {
  return {
    reserve: async () => (budget.tryTake() ? 0 : null),
    release: async () => budget.giveBack(),
    left: () => budget.left(),
    observe: async () => {},
  };
}
