/**
 * Puts one account's run on the queue: the run is opened and planned exactly as `sync` plans it
 * (discovery, then each stream's lanes), and each lane becomes one job of the account's queue,
 * keyed by account, stream and scope, so that a lane already waiting or running is not queued twice.
 */
import type PgBoss from 'pg-boss';
import type { Db } from '../catalog/tables.js';
import type { Account, Config, StreamName } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import type { SourceClient } from '../source/types.js';
import { planRun } from '../sync/plan-run.js';
import { endingMessage } from '../sync/errors.js';
import { addLanes, endLanes, failPlanning, closeIfLastLane, type LaneEnd } from '../sync/runs/lanes.js';
import {
  addRunCounts,
  announceClosed,
  closeRun,
  heartbeatEveryMs,
  notePlan,
  openRun,
  runKind,
  startHeartbeat,
} from '../sync/runs/lifecycle.js';
import type { RunSummary, SyncRequest } from '../sync/types.js';
import { liveLaneJobs, queueOf, laneJobKey } from './jobs.js';
import type { LaneJobData } from './lane-job.js';

/** What enqueueing an account's run came to. */
export interface Enqueued {
  account: string;
  runId: number;
  /** Lanes put on the queue. */
  queued: number;
  /** Lanes already waiting or running on the queue for an earlier run that covers them: not queued again. */
  alreadyQueued: number;
  /** Lanes not queued because an earlier run's job of another kind holds them (why, in the run's errors). */
  refused: number;
  /** The run's summary when it ended at once (nothing to queue, or its planning failed or was stopped). */
  ended: RunSummary | null;
}

/** What `enqueueRun` needs. */
export interface EnqueueDeps {
  db: Db;
  boss: PgBoss;
  config: Config;
  account: Account;
  client: SourceClient;
  logger: Logger;
  /** Aborted by a stop signal: planning stops and the run is closed, or the lanes not sent yet are ended. */
  signal?: AbortSignal;
}

/**
 * Whether a job already waiting or running, of an earlier run's `waiting` request, does what `wanted` asks of
 * the lane: an incremental run is covered by any incremental or full run; anything else only by the same request.
 */
export function covers(waiting: SyncRequest, wanted: SyncRequest): boolean {
  if (wanted.kind === 'sync' && !wanted.full && waiting.kind === 'sync') return true;
  const shape = (request: SyncRequest) =>
    JSON.stringify([request.kind, request.full === true, request.backfill ?? null]);
  return shape(waiting) === shape(wanted);
}

/**
 * Plans one account's run and sends its lanes (see the module comment); the account's queue exists
 * (`ensureQueue`, one account after the other: pg-boss makes a queue with DDL).
 */
export async function enqueueRun(
  request: SyncRequest & { streams: StreamName[] },
  deps: EnqueueDeps,
): Promise<Enqueued> {
  const { db, boss, config, account, client, signal } = deps;
  const runId = await openRun(db, {
    account: account.id,
    kind: runKind(request),
    streams: request.streams,
    propertyIds: request.propertyIds,
    requested: { ...request, queued: true } as SyncRequest,
  });
  const logger = deps.logger.child({ account: account.id, runId });
  const heartbeat = startHeartbeat(db, runId, heartbeatEveryMs(config.abandonedAfterMinutes), logger);
  try {
    return await planAndSend(runId, request, { ...deps, logger });
  } finally {
    heartbeat.stop();
  }

  async function planAndSend(
    id: number,
    asked: SyncRequest & { streams: StreamName[] },
    { logger: log }: { logger: Logger },
  ): Promise<Enqueued> {
    const result = { account: account.id, runId: id, queued: 0, alreadyQueued: 0, refused: 0 };
    const before = client.stats().calls;
    let plan;
    try {
      plan = await planRun(asked, asked.streams, { db, client, config, account, logger: log, signal });
    } catch (error) {
      await addRunCounts(db, id, { calls: client.stats().calls - before });
      if (signal?.aborted) {
        log.warn({ event: 'run_interrupted' }, `run ${id} stopped by a signal before its lanes were queued`);
        const ended = await closeRun(db, {
          runId: id,
          facts: { budgetSpent: false, interrupted: true, failed: 0, done: 0 },
          errors: [],
          extraCalls: 0,
          throttled: 0,
          workUnitsTotal: 0,
          stopped: 'enqueue was stopped by a signal before its lanes were queued',
        });
        return { ...result, ended };
      }
      const message = endingMessage(error);
      log.error({ event: 'run_failed', err: message }, `run ${id} could not be planned: ${message}`);
      const ended = await failPlanning(db, {
        account: account.id,
        runId: id,
        error: message,
        abandonedAfterMinutes: config.abandonedAfterMinutes,
      });
      return { ...result, ended };
    }
    await addRunCounts(db, id, { calls: client.stats().calls - before });
    await notePlan(db, id, { sourceToday: plan.today, workUnits: plan.workUnits, unread: plan.unread });
    const lanes = plan.lanes.map(({ stream, lane }) => ({ laneKey: lane.key, stream: stream.name }));
    await addLanes(db, account.id, id, lanes);
    const queue = queueOf(account.id);
    // Lanes with a job waiting or running: never queued again (a second job of a running lane stalls the queue).
    const live = await liveLaneJobs(
      db,
      queue,
      lanes.map((lane) => laneJobKey(account.id, lane.stream, lane.laneKey)),
    );
    const ends: LaneEnd[] = [];
    const end = (laneKey: string, status: LaneEnd['status'], error?: string) =>
      ends.push({
        account: account.id,
        runId: id,
        laneKey,
        status,
        error,
        abandonedAfterMinutes: config.abandonedAfterMinutes,
      });
    for (const lane of lanes) {
      const key = laneJobKey(account.id, lane.stream, lane.laneKey);
      if (signal?.aborted) {
        end(
          lane.laneKey,
          'failed',
          'not queued: enqueue was stopped by a signal first; run propsync enqueue again',
        );
        continue;
      }
      const holder = live.get(key);
      if (holder && !covers(holder.request, asked)) {
        result.refused += 1;
        end(
          lane.laneKey,
          'failed',
          `not queued: run ${holder.runId}'s ${runKind(holder.request)} job of this lane ` +
            `is ${holder.state === 'active' ? 'running' : 'waiting'}, and a lane is queued once; ` +
            `enqueue this ${runKind(asked)} again once run ${holder.runId} has ended`,
        );
        continue;
      }
      const data: LaneJobData = {
        account: account.id,
        runId: id,
        stream: lane.stream as StreamName,
        laneKey: lane.laneKey,
        request: asked,
        today: plan.today,
        propertyIds: plan.propertyIds,
      };
      const sent = holder ? null : await boss.send(queue, data, { singletonKey: key });
      if (sent) result.queued += 1;
      else {
        result.alreadyQueued += 1;
        end(lane.laneKey, 'skipped');
      }
    }
    let ended = await endLanes(db, ends);
    if (lanes.length === 0) {
      ended = await db.transaction().execute((trx) => closeIfLastLane(trx, account.id, id));
      announceClosed(ended);
    }
    log.info(
      {
        event: 'run_enqueued',
        lanes: lanes.length,
        queued: result.queued,
        alreadyQueued: result.alreadyQueued,
        refused: result.refused,
        workUnits: plan.workUnits,
        sourceToday: plan.today,
      },
      `run ${id}: ${result.queued} lanes (${plan.workUnits} work units) ` +
        `put on the queue${result.alreadyQueued ? `, ${result.alreadyQueued} already waiting there` : ''}` +
        (result.refused ? `, ${result.refused} refused (a job of another kind holds them)` : ''),
    );
    return { ...result, ended };
  }
}
