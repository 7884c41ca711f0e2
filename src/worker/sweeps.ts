/**
 * A worker's sweep, every `worker.sweepSeconds` (30 s): ends the lanes whose job ended without a word
 * (dead-lettered when their worker died on the last attempt, or gone from the queue), closes the runs whose
 * process is gone, and says when jobs wait that no worker takes.
 */
import type { SyncMetrics } from '../app/metrics.js';
import type { Db } from '../catalog/tables.js';
import type { Config } from '../config/schema.js';
import { messageOf } from '../log/errors.js';
import type { Logger } from '../log/logger.js';
import { endDeadLanes, endOrphanedLanes, waitingUntaken } from '../queue/queued-runs.js';
import { closeStaleRuns } from '../sync/runs/abandoned.js';
import { heartbeatEveryMs } from '../sync/runs/lifecycle.js';

/** What the sweep needs from its worker. */
export interface SweepContext {
  db: Db;
  config: Config;
  logger: Logger;
  metrics: SyncMetrics;
  accounts: readonly string[];
  queues: readonly string[];
  /** Jobs this worker runs now, and how many it may run. */
  busy(): { active: number; concurrency: number };
  refresh(): void;
}

/** One pass of the sweep (see the module comment); a failure is logged, and the next pass tries again. */
export async function sweepOnce(context: SweepContext): Promise<void> {
  const { db, config, logger, accounts } = context;
  const abandonedAfterMinutes = config.abandonedAfterMinutes;
  const step = async <T>(what: string, work: () => Promise<T[]>): Promise<T[]> => {
    try {
      const closed = await work();
      if (closed.length) context.refresh();
      return closed;
    } catch (error) {
      logger.warn(
        { event: 'sweep_failed', what, err: messageOf(error) },
        `could not ${what}: ${messageOf(error)}`,
      );
      return [];
    }
  };
  for (const summary of await step('end the lanes of dead-lettered jobs', () =>
    endDeadLanes(db, accounts, abandonedAfterMinutes),
  ))
    context.metrics.observer.onRunEnd?.(summary);
  const graceMs = 2 * heartbeatEveryMs(abandonedAfterMinutes) + 30_000;
  for (const summary of await step('end the lanes whose job left the queue', () =>
    endOrphanedLanes(db, accounts, { graceMs, abandonedAfterMinutes }),
  ))
    context.metrics.observer.onRunEnd?.(summary);
  for (const run of await step('close the runs whose process is gone', () =>
    closeStaleRuns(db, { accounts, abandonedAfterMinutes }),
  ))
    logger.warn(
      { event: 'run_abandoned', abandonedRunId: run.runId, host: run.host, pid: run.pid },
      `run ${run.runId} was left running by a process that ended (pid ${run.pid ?? '?'} ` +
        `on ${run.host ?? '?'}); closed it as abandoned`,
    );
  const { active, concurrency } = context.busy();
  if (active >= concurrency) return;
  const sweepSeconds = config.worker.sweepSeconds;
  const waiting = await waitingUntaken(db, context.queues, sweepSeconds).catch(
    () => new Map<string, number>(),
  );
  for (const [queue, jobs] of waiting)
    logger.warn(
      { event: 'jobs_waiting_untaken', queue, jobs, active, concurrency },
      `${jobs} job(s) of queue ${queue} have waited over ${sweepSeconds} s, ` +
        `and this worker (${active} of ${concurrency} busy) could take none; ` +
        `see the queue's jobs in propsync_queue.job and the Postgres log`,
    );
}

/** Sweeps every `worker.sweepSeconds` until stopped. */
export function startSweeps(context: SweepContext): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void sweepOnce(context).finally(() => (running = false));
  }, context.config.worker.sweepSeconds * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
