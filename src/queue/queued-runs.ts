/**
 * A run whose lanes are on the queue: its lanes' rows (`sync_run_lanes`), and its end, written
 * once by whichever worker ends its last lane (the run's row is locked while it is decided).
 */
import { sql } from 'kysely';
import type { Db } from '../catalog/tables.js';
import type { StreamName } from '../streams/registry.js';
import { cleanUpSeen } from '../sync/work-units.js';
import { deadLetters } from './boss.js';
import { finishRun } from '../sync/runs.js';
import type { RunStatus, RunSummary, SyncRequest } from '../sync/types.js';

/** How a lane's job ended for good. */
export type LaneStatus = 'done' | 'failed' | 'budget_exhausted' | 'dead' | 'skipped';

/** Notes the lanes of a run about to be queued. */
export async function addLanes(
  db: Db,
  account: string,
  runId: number,
  lanes: readonly { laneKey: string; stream: string }[],
): Promise<void> {
  if (lanes.length === 0) return;
  await db
    .insertInto('sync_run_lanes')
    .values(
      lanes.map((lane) => ({
        account_id: account,
        run_id: runId,
        lane_key: lane.laneKey,
        stream: lane.stream,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Adds what a job of the run saw that the units do not keep: calls outside units and throttled replies. */
export async function addRunCounts(
  db: Db,
  runId: number,
  counts: { calls?: number; throttled?: number },
): Promise<void> {
  await db
    .updateTable('sync_runs')
    .set((eb) => ({
      calls: eb('calls', '+', counts.calls ?? 0),
      throttled: eb('throttled', '+', counts.throttled ?? 0),
    }))
    .where('run_id', '=', runId)
    .execute();
}

/**
 * How a lane ended, and the run's summary when that ended the run (null: other lanes are still on the queue,
 * or the run was already ended).
 */
export async function endLane(
  db: Db,
  args: {
    account: string;
    runId: number;
    laneKey: string;
    status: LaneStatus;
    error?: string;
    abandonedAfterMinutes: number;
  },
): Promise<RunSummary | null> {
  const summary = await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('sync_run_lanes')
      .set({ status: args.status, error: args.error ?? null, finished_at: sql<Date>`now()` })
      .where('account_id', '=', args.account)
      .where('run_id', '=', args.runId)
      .where('lane_key', '=', args.laneKey)
      .where('finished_at', 'is', null)
      .execute();
    return finishIfLast(trx, args.account, args.runId);
  });
  if (summary)
    await cleanUpSeen(db, { runId: args.runId, abandonedAfterMinutes: args.abandonedAfterMinutes }).catch(
      () => 0,
    );
  return summary;
}

/**
 * In a transaction: ends the run when none of its lanes is left on the queue and it is still running (the
 * row lock makes it once).
 */
export async function finishIfLast(trx: Db, account: string, runId: number): Promise<RunSummary | null> {
  const run = await trx
    .selectFrom('sync_runs')
    .select([
      'status',
      'kind',
      'streams',
      'requested',
      'started_at',
      'calls',
      'throttled',
      'work_units_total',
    ])
    .where('run_id', '=', runId)
    .forUpdate()
    .executeTakeFirst();
  if (!run || run.status !== 'running') return null;
  const lanes = await trx
    .selectFrom('sync_run_lanes')
    .select(['lane_key', 'status', 'error'])
    .where('account_id', '=', account)
    .where('run_id', '=', runId)
    .execute();
  if (lanes.some((lane) => lane.status === 'queued')) return null;
  const errors = lanes.filter((lane) => lane.error).map((lane) => `${lane.lane_key}: ${lane.error}`);
  const done = lanes.filter((lane) => lane.status === 'done' || lane.status === 'skipped').length;
  const status: RunStatus = lanes.some((lane) => lane.status === 'budget_exhausted')
    ? 'budget_exhausted'
    : done === lanes.length
      ? 'succeeded'
      : done > 0
        ? 'partial'
        : 'failed';
  const counts = await finishRun(trx, {
    runId,
    status,
    error: errors.length ? errors.join('\n') : undefined,
    extraCalls: run.calls,
    throttled: run.throttled,
    workUnitsTotal: run.work_units_total,
  });
  const requested = run.requested as SyncRequest;
  // A lane that ended well whose units failed on the way still leaves the run partial (as `sync` says it).
  const final: RunStatus = status === 'succeeded' && counts.workUnits.failed > 0 ? 'partial' : status;
  if (final !== status)
    await trx.updateTable('sync_runs').set({ status: final }).where('run_id', '=', runId).execute();
  return {
    ...counts,
    status: final,
    account,
    kind: requested.kind ?? 'sync',
    streams: run.streams as StreamName[],
    durationMs: Date.now() - run.started_at.getTime(),
    errors,
  };
}

/**
 * Ends, as `dead`, the lanes still open whose job is in the dead-letter queue: a worker killed
 * during a job's last attempt never said so (pg-boss moved the expired job there). Returns the
 * summaries of the runs that this ended.
 */
export async function endDeadLanes(
  db: Db,
  accounts: readonly string[],
  abandonedAfterMinutes: number,
): Promise<RunSummary[]> {
  const letters = await deadLetters(db, accounts);
  if (letters.length === 0) return [];
  // The dead-letter queue keeps its jobs for days: only the lanes still open among them are ended.
  const open = await db
    .selectFrom('sync_run_lanes')
    .select(['account_id', 'run_id', 'lane_key'])
    .where('finished_at', 'is', null)
    .where((eb) =>
      eb.or(
        letters.map((letter) =>
          eb.and([
            eb('account_id', '=', letter.account),
            eb('run_id', '=', letter.runId),
            eb('lane_key', '=', letter.laneKey),
          ]),
        ),
      ),
    )
    .execute();
  const laneId = (account: string, runId: number | string, laneKey: string) =>
    JSON.stringify([account, Number(runId), laneKey]);
  const stillOpen = new Set(open.map((lane) => laneId(lane.account_id, lane.run_id, lane.lane_key)));
  const ended: RunSummary[] = [];
  for (const letter of letters) {
    if (!stillOpen.has(laneId(letter.account, letter.runId, letter.laneKey))) continue;
    const summary = await endLane(db, {
      account: letter.account,
      runId: letter.runId,
      laneKey: letter.laneKey,
      status: 'dead',
      error: `its retries ran out (dead-letter queue): ${letter.error}`,
      abandonedAfterMinutes,
    });
    if (summary) ended.push(summary);
  }
  return ended;
}
