import type { Logger } from '../log/logger.js';
import { EXIT } from './exit-codes.js';

/** The signals that stop propsync: Ctrl-C, a service manager's or container's stop, a closed terminal. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * A stop signal this soon after the first is the same stop arriving twice (sent to the process
 * group and passed on by a wrapper such as npm), not an operator asking again.
 */
const SAME_STOP_MS = 1000;

/**
 * Calls `onStop(signal, false)` on the first stop signal and `onStop(signal, true)` on each one
 * more than SAME_STOP_MS later; those in between are ignored. Returns the way to remove the handlers.
 */
function watchStopSignals(onStop: (signal: NodeJS.Signals, again: boolean) => void): () => void {
  let first: number | undefined;
  const handler = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (first === undefined) {
      first = now;
      onStop(signal, false);
    } else if (now - first > SAME_STOP_MS) onStop(signal, true);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, handler);
  return () => {
    for (const signal of STOP_SIGNALS) process.off(signal, handler);
    // A stop under way: the same stop arriving late must not kill the process by the signal's
    // default action while it closes; after SAME_STOP_MS a signal acts as usual again.
    if (first === undefined) return;
    const late = () => {};
    for (const signal of STOP_SIGNALS) process.on(signal, late);
    setTimeout(
      () => {
        for (const signal of STOP_SIGNALS) process.off(signal, late);
      },
      Math.max(0, first + SAME_STOP_MS - Date.now()),
    ).unref();
  };
}

/** An abort signal tied to the stop signals, and the way to untie it. */
export interface SignalStop {
  signal: AbortSignal;
  dispose(): void;
}

/**
 * An AbortSignal that SIGINT, SIGTERM or SIGHUP aborts: the engine then starts no new page or
 * work unit and lets the page in flight commit or roll back. A signal sent again (see
 * SAME_STOP_MS) ends the process at once (Postgres rolls back the open transaction).
 */
export function abortOnSignals(logger: Logger, what: string): SignalStop {
  const controller = new AbortController();
  const dispose = watchStopSignals((name, again) => {
    if (again) {
      logger.warn(
        { event: 'signal', signal: name, again: true },
        `${name} again: stopping at once; the page in flight rolls back`,
      );
      process.exit(EXIT.workFailed);
    }
    logger.warn(
      { event: 'signal', signal: name },
      `${name}: stopping ${what} after the page in flight (send a signal again, a second later, to stop at once)`,
    );
    controller.abort(new Error(`stopped by ${name}`));
  });
  return { signal: controller.signal, dispose };
}

/** Resolves with the first stop signal; `again` is called on a later one (see `watchStopSignals`). */
export function nextSignal(again: (signal: NodeJS.Signals) => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    watchStopSignals((signal, isAgain) => (isAgain ? again(signal) : resolve(signal)));
  });
}
