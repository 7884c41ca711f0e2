/**
 * One delivered job of a worker: its lane run by `runLaneJob`, its expiry moved on while it runs, then settled
 * (completed, failed for a retry, or given back), only while the job is still this delivery.
 */
import type PgBoss from 'pg-boss';
import { lockOptions, type AccountRuntime } from '../app/propsync.js';
import type { SyncMetrics } from '../app/metrics.js';
import type { Db } from '../catalog/tables.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import { JOB_HEARTBEAT_MS, settleJob } from '../queue/boss.js';
import { releaseJob, touchJob, type Delivery } from '../queue/jobs.js';
import { runLaneJob, type LaneJobData } from '../queue/lane-job.js';
import { endLane } from '../sync/runs/lanes.js';
import { endingMessage } from '../sync/errors.js';

/** What running a delivered job needs from its worker. */
export interface DeliveryContext {
  db: Db;
  boss: PgBoss;
  config: Config;
  logger: Logger;
  metrics: SyncMetrics;
  /** Aborted when the worker stops. */
  stop: AbortSignal;
  /** Asks for the reporting refresh after a run ended. */
  refresh(): void;
}

/** Runs one delivered job of `runtime`'s account and settles it (see the module comment). */
export async function runDelivery(
  job: PgBoss.JobWithMetadata<LaneJobData>,
  runtime: AccountRuntime,
  context: DeliveryContext,
): Promise<void> {
  const { db, boss, config, logger, metrics, stop } = context;
  const data = job.data;
  const delivery: Delivery = { queue: job.name, id: job.id, retryCount: job.retryCount };
  const log = logger.child({ account: data.account, runId: data.runId, lane: data.laneKey, job: job.id });
  const touch = setInterval(() => touchJob(db, delivery).catch(() => {}), JOB_HEARTBEAT_MS);
  const lastAttempt = job.retryCount >= job.retryLimit;
  const settle = async (how: { complete: true } | { fail: string }) => {
    if (!(await settleJob(db, boss, delivery, how)))
      log.warn(
        { event: 'job_taken_over' },
        `lane ${data.laneKey}: its job expired while this worker ran it and was delivered again; left to that delivery`,
      );
  };
  log.info(
    { event: 'job_started', attempt: job.retryCount + 1 },
    `lane ${data.laneKey} of run ${data.runId} started (attempt ${job.retryCount + 1})`,
  );
  try {
    const outcome = await runLaneJob(data, {
      db,
      config,
      account: runtime.account,
      client: runtime.client,
      logger,
      lockOptions: lockOptions(config, logger),
      signal: stop,
      observer: metrics.observer,
      lastAttempt,
    });
    clearInterval(touch);
    switch (outcome.kind) {
      case 'released':
        log.info(
          { event: 'job_released', reason: outcome.reason },
          `lane ${data.laneKey} given back to the queue: ${outcome.reason}`,
        );
        await releaseJob(db, delivery, stop.aborted ? 0 : 30);
        return;
      case 'gone':
        log.info({ event: 'job_done', status: 'gone' }, `${outcome.reason}; its job is completed unrun`);
        await settle({ complete: true });
        return;
      case 'failed':
        log.warn(
          { event: 'job_failed', lastAttempt, err: outcome.error },
          `lane ${data.laneKey} failed` +
            `${lastAttempt ? '; its retries ran out: dead-letter queue' : '; it is retried'}: ${outcome.error}`,
        );
        await settle({ fail: outcome.error });
        break;
      case 'refused':
        log.error(
          { event: 'job_refused', err: outcome.error },
          `lane ${data.laneKey} failed for good, with the run's other lanes: ${outcome.error}`,
        );
        await settle({ complete: true });
        break;
      case 'ended':
        log.info({ event: 'job_done', status: outcome.status }, `lane ${data.laneKey} ${outcome.status}`);
        await settle({ complete: true });
    }
    if (outcome.runEnded) {
      log.info(
        { event: 'run_finished', status: outcome.runEnded.status },
        `run ${data.runId} ${outcome.runEnded.status}: the last of its lanes ended here`,
      );
      metrics.observer.onRunEnd?.(outcome.runEnded);
      context.refresh();
    }
  } catch (error) {
    clearInterval(touch);
    const message = endingMessage(error);
    log.error({ event: 'job_failed', lastAttempt, err: message }, `lane ${data.laneKey} failed: ${message}`);
    if (lastAttempt) {
      const ended = await endLane(db, {
        account: data.account,
        runId: data.runId,
        laneKey: data.laneKey,
        status: 'dead',
        error: `its retries ran out (dead-letter queue): ${message}`,
        abandonedAfterMinutes: config.abandonedAfterMinutes,
      }).catch(() => null);
      if (ended) context.refresh();
    }
    await settle({ fail: message }).catch(() => {});
  }
}
