import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import { isConnectionLost } from './connection-errors.js';

/** How long a database outage is ridden through (`database.reconnect`). */
export interface ReconnectSettings {
  /** Longest outage waited out, from its first failure: past it, work fails with the last error. */
  maxOutageMs: number;
  /** First wait before trying again; it grows exponentially (with jitter). */
  baseDelayMs: number;
  /** Longest single wait. */
  maxDelayMs: number;
}

/** One failed attempt that is tried again. */
export interface RetryEvent {
  error: Error;
  /** Attempts failed so far in this piece of work. */
  attempt: number;
  delayMs: number;
}

/** Runs database work again, on a new connection, while the database is away. */
export interface Reconnect {
  /**
   * Runs `work`; when it fails because the connection was lost (or `retryable` says so), runs
   * it again after a backoff, as long as the outage has lasted less than `maxOutageMs`. `work`
   * receives the attempt (0 first). An aborted `signal` stops the retries after the attempt.
   */
  execute<T>(work: (attempt: number) => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/**
 * A reconnect policy (cockatiel's retry with exponential backoff). The outage is shared by
 * every piece of work run through it: it starts at the first failure and ends at the first
 * success, so that once the database has been away for `maxOutageMs`, all work fails at once
 * instead of each piece waiting that long again.
 */
export function createReconnect(
  settings: ReconnectSettings,
  options: {
    retryable?: (error: Error) => boolean;
    onRetry?: (event: RetryEvent) => void;
    unref?: boolean;
  } = {},
): Reconnect {
  const retryable = options.retryable ?? isConnectionLost;
  let outageSince: number | undefined;
  const withinOutage = (error: Error) => {
    if (!retryable(error)) return false;
    outageSince ??= Date.now();
    return Date.now() - outageSince < settings.maxOutageMs;
  };
  let policy = retry(handleWhen(withinOutage), {
    maxAttempts: Number.POSITIVE_INFINITY,
    backoff: new ExponentialBackoff({ initialDelay: settings.baseDelayMs, maxDelay: settings.maxDelayMs }),
  });
  if (options.unref) policy = policy.dangerouslyUnref();
  policy.onSuccess(() => {
    outageSince = undefined;
  });
  policy.onRetry((event) => {
    if ('error' in event)
      options.onRetry?.({ error: event.error, attempt: event.attempt, delayMs: event.delay });
  });
  return { execute: (work, signal) => policy.execute(({ attempt }) => work(attempt), signal) };
}
