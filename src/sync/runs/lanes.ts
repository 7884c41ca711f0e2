/**
 * The lanes of a run put on the queue (`sync_run_lanes`): noted when queued, each ended once, and the run closed by
 * whichever process ends its last lane (the run's row is locked while that is decided).
 */
import { sql } from 'kysely';
import type { Db } from '../../catalog/tables.js';
import { cleanUpSeen } from '../work-units.js';
import type { RunSummary } from '../types.js';
import { announceClosed, closeRunIn, sumUnits } from './lifecycle.js';
import { queuedRunFacts, type LaneState, type LaneStatus } from './states.js';

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

/** How a lane ends: its run, its key, its status and why. */
export interface LaneEnd {
  account: string;
  runId: number;
  laneKey: string;
  status: LaneStatus;
  error?: string;
  abandonedAfterMinutes: number;
}

/**
 * Ends lanes still queued (each once), and closes their run when none of its lanes is left queued; returns the
 * run's summary when that closed it (null: lanes are still queued, or the run was closed already).
 */
export async function endLanes(db: Db, ends: readonly LaneEnd[]): Promise<RunSummary | null> {
  if (ends.length === 0) return null;
  const { account, runId, abandonedAfterMinutes } = ends[0]!;
  const summary = await db.transaction().execute(async (trx) => {
    for (const end of ends)
      await trx
        .updateTable('sync_run_lanes')
        .set({ status: end.status, error: end.error ?? null, finished_at: sql<Date>`now()` })
        .where('account_id', '=', end.account)
        .where('run_id', '=', end.runId)
        .where('lane_key', '=', end.laneKey)
        .where('status', '=', 'queued')
        .execute();
    return closeIfLastLane(trx, account, runId);
  });
  if (summary) {
    await cleanUpSeen(db, { runId, abandonedAfterMinutes }).catch(() => 0);
    announceClosed(summary);
  }
  return summary;
}

/** Ends one lane (see `endLanes`). */
export function endLane(db: Db, end: LaneEnd): Promise<RunSummary | null> {
  return endLanes(db, [end]);
}

/**
 * In a transaction: closes the run when none of its lanes is left queued and it is still running (the row lock
 * makes it once). The outcome comes from its lanes and its failed units (`queuedRunFacts`).
 */
export async function closeIfLastLane(trx: Db, account: string, runId: number): Promise<RunSummary | null> {
  const run = await trx
    .selectFrom('sync_runs')
    .select(['status', 'calls', 'throttled', 'work_units_total'])
    .where('run_id', '=', runId)
    .forUpdate()
    .executeTakeFirst();
  if (!run || run.status !== 'running') return null;
  const lanes = await trx
    .selectFrom('sync_run_lanes')
    .select(['lane_key', 'status', 'error'])
    .where('account_id', '=', account)
    .where('run_id', '=', runId)
    .orderBy('lane_key')
    .execute();
  if (lanes.some((lane) => lane.status === 'queued')) return null;
  const sums = await sumUnits(trx, { runId });
  const facts = queuedRunFacts(
    lanes.map((lane) => lane.status as LaneState),
    sums.failedOrInterrupted,
    [],
  );
  return closeRunIn(trx, {
    runId,
    facts,
    errors: lanes.filter((lane) => lane.error).map((lane) => `${lane.lane_key}: ${lane.error}`),
    extraCalls: run.calls,
    throttled: run.throttled,
    workUnitsTotal: run.work_units_total,
  });
}

/** Closes a run whose planning failed: its one lane, `plan`, failed with the error. */
export async function failPlanning(
  db: Db,
  args: { account: string; runId: number; error: string; abandonedAfterMinutes: number },
): Promise<RunSummary | null> {
  await addLanes(db, args.account, args.runId, [{ laneKey: 'plan', stream: '' }]);
  return endLane(db, { ...args, laneKey: 'plan', status: 'failed' });
}

/** The lanes of an account's runs still queued, with their runs: what the sweeps look at. */
export async function openLanes(
  db: Db,
  accounts: readonly string[],
): Promise<{ account: string; runId: number; laneKey: string; stream: string }[]> {
  if (accounts.length === 0) return [];
  const rows = await db
    .selectFrom('sync_run_lanes')
    .select(['account_id', 'run_id', 'lane_key', 'stream'])
    .where('account_id', 'in', accounts as string[])
    .where('status', '=', 'queued')
    .execute();
  return rows.map((row) => ({
    account: row.account_id,
    runId: Number(row.run_id),
    laneKey: row.lane_key,
    stream: row.stream,
  }));
}

/** Whether a lane is still queued (a job of a lane already ended, by a sweep or a refusal, has nothing to do). */
export async function laneIsOpen(
  db: Db,
  args: { account: string; runId: number; laneKey: string },
): Promise<boolean> {
  const row = await db
    .selectFrom('sync_run_lanes')
    .select('status')
    .where('account_id', '=', args.account)
    .where('run_id', '=', args.runId)
    .where('lane_key', '=', args.laneKey)
    .executeTakeFirst();
  return row?.status === 'queued';
}
