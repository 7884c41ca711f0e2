/**
 * Alerts in a running process: evaluated after each run (`afterRun`, never awaited by the run)
 * and, in long-running processes, on a timer, so that a stream going stale with nothing running
 * is noticed too. One evaluation at a time; a request meanwhile asks for one more.
 */
import type { Db } from '../../catalog/tables.js';
import type { Logger } from '../../log/logger.js';
import { evaluateAlerts, type AlertScope, type DeliveryEvent } from './evaluate.js';

/** How often a long-running process evaluates the alerts when no run ends. */
export const ALERTS_EVERY_MS = 60_000;

export interface AlertMonitor {
  /** Asks for an evaluation (after a run ended); returns at once. */
  afterRun(): void;
  /** Waits for the evaluation in flight (and the one asked for meanwhile). */
  settled(): Promise<void>;
  /** Stops the timer and waits for the evaluation in flight. */
  stop(): Promise<void>;
}

export function alertMonitor(
  db: Db,
  scope: AlertScope,
  options: { logger: Logger; everyMs?: number; onDelivery?: (event: DeliveryEvent) => void },
): AlertMonitor {
  const stopping = new AbortController();
  let running: Promise<void> | null = null;
  let again = false;
  const evaluate = (): void => {
    if (scope.config.alerts.length === 0) return;
    if (running) {
      again = true;
      return;
    }
    running = evaluateAlerts(db, scope, { logger: options.logger, onDelivery: options.onDelivery })
      .then(() => undefined)
      .finally(() => {
        running = null;
        if (again && !stopping.signal.aborted) {
          again = false;
          evaluate();
        }
      });
  };
  const timer = options.everyMs ? setInterval(evaluate, options.everyMs) : undefined;
  timer?.unref();
  const settled = async () => {
    while (running) await running;
  };
  return {
    afterRun: evaluate,
    settled,
    async stop() {
      if (timer) clearInterval(timer);
      stopping.abort();
      await settled();
    },
  };
}
