/**
 * Posts one alert message to one webhook, retried with exponential backoff (cockatiel) and
 * bounded in time: each attempt waits at most the target's `timeout`, the whole at most its
 * `giveUpAfter`. It never throws: it says whether the message was delivered and, if not, why,
 * in words that never hold the URL.
 */
import { ExponentialBackoff, handleAll, retry } from 'cockatiel';
import type { AlertTarget } from '../../config/schema.js';
import { scrubSecrets } from '../../log/redact.js';

/** How a delivery ended. */
export type Delivery =
  { delivered: true; attempts: number } | { delivered: false; attempts: number; error: string };

/** The first waits between attempts; the backoff doubles from here up to 10 s, with jitter. */
const FIRST_BACKOFF_MS = 500;

/** Posts `body` (JSON) to the target's URL until it answers 2xx, the attempts run out, or its time is up. */
export async function deliver(target: AlertTarget, body: unknown, signal?: AbortSignal): Promise<Delivery> {
  const deadline = AbortSignal.timeout(target.giveUpAfterMs);
  const stop = signal ? AbortSignal.any([deadline, signal]) : deadline;
  const policy = retry(handleAll, {
    maxAttempts: 8,
    backoff: new ExponentialBackoff({ initialDelay: FIRST_BACKOFF_MS, maxDelay: 10_000 }),
  });
  let attempts = 0;
  let lastError = 'no attempt was made';
  try {
    await policy.execute(async () => {
      attempts += 1;
      try {
        await postOnce(target, body, stop);
      } catch (error) {
        // An attempt cut short by the deadline says less than the one before it.
        if (!stop.aborted || attempts === 1) lastError = describe(error, target);
        throw error;
      }
    }, stop);
    return { delivered: true, attempts };
  } catch {
    const why =
      stop.aborted && deadline.aborted ? `gave up after ${Math.round(target.giveUpAfterMs / 1000)} s: ` : '';
    return { delivered: false, attempts, error: `${why}${lastError}` };
  }
}

async function postOnce(target: AlertTarget, body: unknown, stop: AbortSignal): Promise<void> {
  const attempt = AbortSignal.any([stop, AbortSignal.timeout(target.timeoutMs)]);
  const response = await fetch(target.url.reveal(), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'propsync-alerts' },
    body: JSON.stringify(body),
    signal: attempt,
    redirect: 'error',
  });
  // The body is read and dropped: the connection goes back to the pool.
  await response.arrayBuffer().catch(() => undefined);
  if (!response.ok) throw new Error(`the receiver answered HTTP ${response.status}`);
}

/** Why an attempt failed, without the URL (fetch's errors name none, but the cause is scrubbed all the same). */
function describe(error: unknown, target: AlertTarget): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  let text: string;
  if (err.name === 'TimeoutError' || err.name === 'AbortError')
    text = `no answer within ${Math.round(target.timeoutMs / 1000)} s`;
  else if (err.cause?.code) text = `could not connect (${err.cause.code})`;
  else text = err.message ?? String(error);
  const url = target.url.reveal();
  return scrubSecrets(text, [url, new URL(url).pathname.length > 1 ? new URL(url).pathname : undefined]);
}
