/**
 * Puts one account's run on the queue: the run is opened and planned exactly as `sync` plans it
 * (discovery, then each stream's lanes), and each lane becomes one job of the account's queue,
 * keyed by account, stream and scope, so that a lane already waiting is not queued twice.
 */
import type PgBoss from 'pg-boss';
import type { Db } from '../catalog/tables.js';
import type { Account, Config, StreamName } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import type { SourceClient } from '../source/types.js';
import { planRun } from '../sync/plan-run.js';
import { createRun, notePlan } from '../sync/runs.js';
import type { RunSummary, SyncRequest } from '../sync/types.js';
import { queueOf } from './boss.js';
import type { LaneJobData } from './lane-job.js';
import { addLanes, addRunCounts, endLane, finishIfLast } from './queued-runs.js';

/** What enqueueing an account's run came to. */
export interface Enqueued {
  account: string;
  runId: number;
  /** Lanes put on the queue. */
  queued: number;
  /** Lanes already waiting on the queue (from an earlier run): not queued again. */
  alreadyQueued: number;
  /** The run's summary when it ended at once (nothing to queue, or its planning failed). */
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
}

/**
 * Plans one account's run and sends its lanes (see the module comment); the account's queue exists
 * (`ensureQueue`, one account after the other: pg-boss makes a queue with DDL).
 */
export async function enqueueRun(
  request: SyncRequest & { streams: StreamName[] },
  deps: EnqueueDeps,
): Promise<Enqueued> {
  const { db, boss, config, account, client } = deps;
  const kind = request.kind === 'backfill' ? 'backfill' : request.full ? 'full' : 'sync';
  const runId = await createRun(db, {
    account: account.id,
    kind,
    streams: request.streams,
    propertyIds: request.propertyIds,
    requested: { ...request, queued: true } as SyncRequest,
  });
  const logger = deps.logger.child({ account: account.id, runId });
  const before = client.stats().calls;
  let plan;
  try {
    plan = await planRun(request, request.streams, { db, client, config, account, logger });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await addRunCounts(db, runId, { calls: client.stats().calls - before });
    logger.error({ event: 'run_failed', err: message }, `run ${runId} could not be planned: ${message}`);
    const ended = await db
      .transaction()
      .execute((trx) => finishIfLastWithError(trx, account.id, runId, message));
    return { account: account.id, runId, queued: 0, alreadyQueued: 0, ended };
  }
  await addRunCounts(db, runId, { calls: client.stats().calls - before });
  await notePlan(db, runId, { sourceToday: plan.today, workUnits: plan.workUnits });
  const lanes = plan.lanes.map(({ stream, lane }) => ({ laneKey: lane.key, stream: stream.name }));
  await addLanes(db, account.id, runId, lanes);
  const queue = queueOf(account.id);
  let queued = 0;
  let alreadyQueued = 0;
  let ended: RunSummary | null = null;
  for (const lane of lanes) {
    const data: LaneJobData = {
      account: account.id,
      runId,
      stream: lane.stream as StreamName,
      laneKey: lane.laneKey,
      request,
      today: plan.today,
      propertyIds: plan.propertyIds,
    };
    const id = await boss.send(queue, data, { singletonKey: `${account.id}/${lane.stream}/${lane.laneKey}` });
    if (id) queued += 1;
    else {
      alreadyQueued += 1;
      ended =
        (await endLane(db, {
          account: account.id,
          runId,
          laneKey: lane.laneKey,
          status: 'skipped',
          abandonedAfterMinutes: config.abandonedAfterMinutes,
        })) ?? ended;
    }
  }
  if (lanes.length === 0)
    ended = await db.transaction().execute((trx) => finishIfLast(trx, account.id, runId));
  logger.info(
    {
      event: 'run_enqueued',
      lanes: lanes.length,
      queued,
      alreadyQueued,
      workUnits: plan.workUnits,
      sourceToday: plan.today,
    },
    `run ${runId}: ${queued} lanes (${plan.workUnits} work units) put on the queue${alreadyQueued ? `, ${alreadyQueued} already waiting there` : ''}`,
  );
  return { account: account.id, runId, queued, alreadyQueued, ended };
}

/** Ends a run that could not be planned. */
async function finishIfLastWithError(
  trx: Db,
  account: string,
  runId: number,
  error: string,
): Promise<RunSummary | null> {
  await addLanes(trx, account, runId, [{ laneKey: 'plan', stream: '' }]);
  await trx
    .updateTable('sync_run_lanes')
    .set({ status: 'failed', error, finished_at: new Date() })
    .where('run_id', '=', runId)
    .where('lane_key', '=', 'plan')
    .execute();
  return finishIfLast(trx, account, runId);
}
