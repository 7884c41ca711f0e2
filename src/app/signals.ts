import type { Logger } from '../log/logger.js';
import { EXIT } from './exit-codes.js';

/** An abort signal tied to SIGINT and SIGTERM, and the way to untie it. */
export interface SignalStop {
  signal: AbortSignal;
  dispose(): void;
}

/**
 * An AbortSignal that SIGINT or SIGTERM aborts: the engine then starts no new page or work unit
 * and lets the page in flight commit or roll back. A second signal ends the process at once
 * (Postgres rolls back the open transaction). `dispose` removes the handlers.
 */
export function abortOnSignals(logger: Logger, what: string): SignalStop {
  const controller = new AbortController();
  const handler = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      logger.warn({ event: 'signal', signal: name }, `${name} again: stopping at once; the page in flight rolls back`);
      process.exit(EXIT.workFailed);
    }
    logger.warn({ event: 'signal', signal: name }, `${name}: stopping ${what} after the page in flight (send it again to stop at once)`);
    controller.abort(new Error(`stopped by ${name}`));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

/** Resolves with the first SIGINT or SIGTERM (for long-running processes that stop on their own terms). */
export function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals) => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
      resolve(signal);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}
