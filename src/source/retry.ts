/**
 * When to try a failed call again, and after how long: exponential backoff with full jitter,
 * bounded (`source.retry`), for errors that may pass. Why: docs/source-client.md#retries
 */
import { ExponentialBackoff, fullJitterGenerator, type IBackoff } from 'cockatiel';
import { MAX_TIMER_DELAY_MS, type RetrySettings } from './settings.js';
import { SourceError, ThrottledError } from './errors.js';

/** A delay made safe for `setTimeout`: whole, at least 0, and below 2^31 ms. */
export function timerDelay(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(Math.ceil(ms), MAX_TIMER_DELAY_MS);
}

/** Whether an error may pass when the call is tried again. */
export function isRetryable(error: unknown): boolean {
  return error instanceof SourceError && error.retryable;
}

/** The retry decisions of one logical call (one page): make a new one per page. */
export class RetrySchedule {
  private readonly factory: ExponentialBackoff<number>;
  private backoff: IBackoff<unknown> | undefined;
  private waitedMs = 0;

  /**
   * `maxServerWaitMs`: the longest wait a `Retry-After` may impose (`source.rateLimit.maxWaitMs`);
   * the pacer warns when it cuts one.
   */
  constructor(
    private readonly settings: RetrySettings,
    private readonly maxServerWaitMs: number = Number.POSITIVE_INFINITY,
  ) {
    this.factory = new ExponentialBackoff({
      generator: fullJitterGenerator,
      initialDelay: settings.baseDelayMs,
      maxDelay: settings.maxDelayMs,
      exponent: 2,
    });
  }

  /** Milliseconds waited between attempts so far. */
  get totalWaitMs(): number {
    return this.waitedMs;
  }

  /**
   * After attempt number `attempt` (from 1) failed with `error`: the delay before the next
   * attempt, or `undefined` to give up (not retryable, attempts spent, or the wait would
   * pass `maxTotalWaitMs`).
   */
  next(error: unknown, attempt: number): number | undefined {
    if (!isRetryable(error) || attempt >= this.settings.maxAttempts) return undefined;
    this.backoff = this.backoff ? this.backoff.next(undefined) : this.factory.next();
    let delay = this.backoff.duration;
    if (error instanceof ThrottledError && error.retryAfterMs !== undefined)
      delay = Math.max(delay, Math.min(error.retryAfterMs, this.maxServerWaitMs));
    if (this.waitedMs + delay > this.settings.maxTotalWaitMs) return undefined;
    this.waitedMs += delay;
    return delay;
  }
}
