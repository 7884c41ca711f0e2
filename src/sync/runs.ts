import { hostname } from 'node:os';
import { sql } from 'kysely';
import type { StreamName } from '../streams/registry.js';
import type { Db } from '../catalog/tables.js';
import {
  pickCounts,
  RUN_COUNTERS,
  UNIT_COUNTERS,
  type Counts,
  type UnitCounter,
} from '../warehouse/run-counters.js';
import type { RunStatus, RunSummary, SyncRequest } from './types.js';

/** Opens a run in `sync_runs` and returns its id. */
export async function createRun(
  db: Db,
  args: {
    account: string;
    kind: string;
    streams: StreamName[];
    propertyIds: string[] | undefined;
    requested: SyncRequest | Record<string, unknown>;
  },
): Promise<number> {
  const row = await db
    .insertInto('sync_runs')
    .values({
      account_id: args.account,
      kind: args.kind,
      streams: args.streams,
      property_ids: args.propertyIds?.map(Number) ?? null,
      requested: JSON.stringify(args.requested),
      host: hostname(),
      pid: process.pid,
      heartbeat_at: new Date(),
    })
    .returning('run_id')
    .executeTakeFirstOrThrow();
  return row.run_id;
}

/**
 * How often a run writes its heartbeat: a quarter of the time after which it counts as abandoned, at most every minute.
 */
export function heartbeatEveryMs(abandonedAfterMinutes: number): number {
  return Math.min(60_000, (abandonedAfterMinutes * 60_000) / 4);
}

/** Writes a run's heartbeat now. */
export async function beat(db: Db, runId: number): Promise<void> {
  await db
    .updateTable('sync_runs')
    .set({ heartbeat_at: sql<Date>`now()` })
    .where('run_id', '=', runId)
    .execute();
}

/**
 * Writes a run's heartbeat every `everyMs` (the run's row starts with one) until stopped, so that `status` can
 * tell a run in progress from one whose process died. A failed beat is logged and tried again.
 */
export function startHeartbeat(
  db: Db,
  runId: number,
  everyMs: number,
  logger: { warn(obj: object, msg: string): void },
): { stop(): void } {
  const write = () =>
    beat(db, runId).catch((error: unknown) =>
      logger.warn(
        { event: 'heartbeat_failed', err: (error as Error).message },
        `could not write the run's heartbeat: ${(error as Error).message}`,
      ),
    );
  const timer = setInterval(write, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Notes the source's today and the number of planned work units once planning is done. */
export async function notePlan(
  db: Db,
  runId: number,
  args: { sourceToday: string; workUnits: number },
): Promise<void> {
  await db
    .updateTable('sync_runs')
    .set({ source_today: args.sourceToday, work_units_total: args.workUnits })
    .where('run_id', '=', runId)
    .execute();
}

/** Work units counted by outcome, and the sums of their counters. */
export type UnitSums = Counts<UnitCounter> & {
  units: number;
  done: number;
  doneOrSkipped: number;
  failed: number;
  failedOrInterrupted: number;
  skipped: number;
};

/** Sums of the work unit counters of the units `where` selects, with the units counted by outcome. */
export async function sumUnits(db: Db, where: { runId: number; stream?: string }): Promise<UnitSums> {
  let query = db
    .selectFrom('sync_work_units')
    .select([
      sql<number>`count(*)::int`.as('units'),
      sql<number>`count(*) filter (where status = 'done')::int`.as('done'),
      sql<number>`count(*) filter (where status in ('done', 'skipped'))::int`.as('doneOrSkipped'),
      sql<number>`count(*) filter (where status = 'failed')::int`.as('failed'),
      sql<number>`count(*) filter (where status in ('failed', 'interrupted', 'abandoned'))::int`.as(
        'failedOrInterrupted',
      ),
      sql<number>`count(*) filter (where status = 'skipped')::int`.as('skipped'),
      // bigint sums come back as numbers (see warehouse/db.ts).
      ...UNIT_COUNTERS.map((counter) =>
        sql<number>`coalesce(sum(${sql.ref(counter.column)}), 0)::bigint`.as(counter.key),
      ),
    ])
    .where('run_id', '=', where.runId);
  if (where.stream !== undefined) query = query.where('stream', '=', where.stream);
  return (await query.executeTakeFirstOrThrow()) as UnitSums;
}

/** How a run ended: as the engine says, or `abandoned` when a later run found its process dead. */
export type ClosedStatus = RunStatus | 'abandoned';

/**
 * Closes a run: its counters are the sums of its work units (so they are right even for
 * units resumed after a crash), plus calls made outside units (discovery).
 */
export async function finishRun<S extends ClosedStatus>(
  db: Db,
  args: {
    runId: number;
    status: S;
    error?: string;
    extraCalls: number;
    throttled: number;
    workUnitsTotal: number;
    finishedAt?: Date;
  },
): Promise<
  Omit<RunSummary, 'account' | 'kind' | 'streams' | 'durationMs' | 'errors' | 'status'> & { status: S }
> {
  const sums = await sumUnits(db, { runId: args.runId });
  const counts: Counts = {
    ...pickCounts(UNIT_COUNTERS, sums),
    calls: sums.calls + args.extraCalls,
    throttled: args.throttled,
  };
  const workUnits = {
    total: Math.max(args.workUnitsTotal, sums.done + sums.failedOrInterrupted + sums.skipped),
    done: sums.done,
    failed: sums.failedOrInterrupted,
    skipped: sums.skipped,
  };
  await db
    .updateTable('sync_runs')
    .set({
      ...Object.fromEntries(RUN_COUNTERS.map((counter) => [counter.column, counts[counter.key]])),
      status: args.status,
      finished_at: args.finishedAt ?? new Date(),
      work_units_total: workUnits.total,
      work_units_done: workUnits.done,
      work_units_failed: workUnits.failed,
      error: args.error ?? null,
    })
    .where('run_id', '=', args.runId)
    .execute();
  return { runId: args.runId, status: args.status, workUnits, ...counts };
}
