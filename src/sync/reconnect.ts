import type { Logger } from '../log/logger.js';
import { isConnectionLost } from '../warehouse/connection-errors.js';
import { createReconnect, type Reconnect, type ReconnectSettings } from '../warehouse/reconnect.js';
import { LockNotHeldError } from './lock.js';

/**
 * The engine's reconnect policy (`database.reconnect`): a lost warehouse connection, and a
 * stream lock being taken again after its connection was lost, are waited out with backoff;
 * each retry is logged.
 */
export function engineReconnect(settings: ReconnectSettings, logger: Pick<Logger, 'warn'>): Reconnect {
  return createReconnect(settings, {
    retryable: (error) => isConnectionLost(error) || error instanceof LockNotHeldError,
    onRetry: ({ error, attempt, delayMs }) =>
      logger.warn(
        { event: 'database_retry', attempt, delayMs: Math.round(delayMs), err: error.message },
        `${error instanceof LockNotHeldError ? error.message : `lost the warehouse connection: ${error.message}`}; ` +
          `trying again in ${(delayMs / 1000).toFixed(1)} s`,
      ),
  });
}
