/**
 * A run's life in `sync_runs`, the one place that opens and closes runs: open (running, with a heartbeat), note
 * its plan, close it once with the outcome its lanes and units give (states.ts), and the summary of a closed row.
 * `sync`, `verify`, the workers, `enqueue` and the scheduler all go through here; listeners registered with
 * `onRunClosed` hear of every run closed, whoever closed it.
 */
import { hostname } from 'node:os';
import { sql, type Selectable } from 'kysely';
import type { Db, Warehouse } from '../../catalog/tables.js';
import { messageOf } from '../../log/errors.js';
import type { StreamName } from '../../streams/registry.js';
import {
  pickCounts,
  RUN_COUNTERS,
  UNIT_COUNTERS,
  type Counts,
  type UnitCounter,
} from '../../warehouse/run-counters.js';
import type { RunSummary, SyncRequest } from '../types.js';
import { runOutcome, type RunFacts, type RunState } from './states.js';

/** The kind a run's row records for a request: sync, full, backfill (or verify). */
export function runKind(request: Pick<SyncRequest, 'kind' | 'full'> | { kind: 'verify' }): string {
  if (request.kind === 'verify' || request.kind === 'backfill') return request.kind;
  return 'full' in request && request.full ? 'full' : 'sync';
}

/** Opens a run in `sync_runs` (running, with its first heartbeat) and returns its id. */
export async function openRun(
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

/** How often a run writes its heartbeat: a quarter of the time after which it counts as abandoned, at most 1 min. */
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
 * Writes a run's heartbeat every `everyMs` (the run's row starts with one) until stopped, so that `status` and the
 * sweep tell a run in progress from one whose process died. A failed beat is logged and tried again.
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
        { event: 'heartbeat_failed', err: messageOf(error) },
        `could not write the run's heartbeat: ${messageOf(error)}`,
      ),
    );
  const timer = setInterval(write, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * Notes what planning found: the source's today, the planned work units, and the windows the plan knowingly leaves
 * unread (they make the run `incomplete` when it closes).
 */
export async function notePlan(
  db: Db,
  runId: number,
  args: { sourceToday: string; workUnits: number; unread?: readonly string[] },
): Promise<void> {
  await db
    .updateTable('sync_runs')
    .set({
      source_today: args.sourceToday,
      work_units_total: args.workUnits,
      unread: args.unread?.length ? args.unread.join('\n') : null,
    })
    .where('run_id', '=', runId)
    .execute();
}

/** Adds what a process saw of a run that its units do not keep: calls outside units and throttled replies. */
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

type RunRow = Selectable<Warehouse['sync_runs']>;

/** The summary of a closed run as its row tells it (the units' sums add how many were skipped). */
export function summaryOfRow(row: RunRow, extra: { skipped?: number; errors?: string[] } = {}): RunSummary {
  const counts = Object.fromEntries(
    RUN_COUNTERS.map((counter) => [counter.key, Number(row[counter.column] ?? 0)]),
  ) as Counts;
  const requested = row.requested as { kind?: string };
  return {
    ...counts,
    account: row.account_id,
    runId: row.run_id,
    kind: requested.kind === 'backfill' ? 'backfill' : 'sync',
    streams: row.streams as StreamName[],
    status: row.status as RunSummary['status'],
    workUnits: {
      total: row.work_units_total,
      done: row.work_units_done,
      failed: row.work_units_failed,
      skipped: extra.skipped ?? 0,
    },
    durationMs: (row.finished_at ?? new Date()).getTime() - row.started_at.getTime(),
    errors: extra.errors ?? (row.error ? row.error.split('\n') : []),
    unread: row.unread ? row.unread.split('\n') : [],
  };
}

/** The summary of a run once it has closed (null while it runs, or when there is no such run). */
export async function readRunSummary(db: Db, runId: number): Promise<RunSummary | null> {
  const row = await db.selectFrom('sync_runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
  if (!row || row.status === 'running' || !row.finished_at) return null;
  return summaryOfRow(row);
}

/** Hears of every closed run (alerts, metrics): called after the close committed; a throw is ignored. */
export type RunClosedListener = (summary: RunSummary) => void;
const listeners = new Set<RunClosedListener>();

/** Registers a listener of every run this process closes; returns its removal. */
export function onRunClosed(listener: RunClosedListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells the listeners that a run closed (after its transaction committed). */
export function announceClosed(summary: RunSummary | null): void {
  if (!summary) return;
  for (const listener of listeners) {
    try {
      listener(summary);
    } catch {
      // A listener's trouble is its own: the run is closed.
    }
  }
}

/** What closing a run needs: what it did beyond its units, and why it stopped early (for its errors). */
export interface CloseArgs {
  runId: number;
  /** What the run did; the windows it left unread come from its row (`notePlan`). */
  facts: Omit<RunFacts, 'unread'>;
  errors: readonly string[];
  /** Calls outside units (discovery) and throttled replies, added to the units' sums. */
  extraCalls: number;
  throttled: number;
  workUnitsTotal: number;
  /** Why the run stopped early, said first when it was interrupted (a signal, a lost lock). */
  stopped?: string;
  /** The account's daily call budget, said first when it ran out. */
  dailyCallBudget?: number;
}

/**
 * Closes a running run, once (a closed run is left as it is: its summary is returned): its counters are the sums
 * of its units (right even for units resumed after a crash) plus calls outside units; its status follows from what
 * it did (`runOutcome`); its errors start with why it stopped early. In the caller's transaction when given one;
 * `closeRun` announces the close, `closeRunIn` leaves that to the caller once its transaction commits.
 */
export async function closeRunIn(db: Db, args: CloseArgs): Promise<RunSummary> {
  const row = await db
    .selectFrom('sync_runs')
    .select('unread')
    .where('run_id', '=', args.runId)
    .executeTakeFirstOrThrow();
  const unread = row.unread ? row.unread.split('\n') : [];
  const status = runOutcome({ ...args.facts, unread });
  const errors = [...args.errors];
  if (status === 'budget_exhausted' && args.dailyCallBudget !== undefined)
    errors.unshift(
      `the daily call budget (${args.dailyCallBudget} calls) is spent; unfinished work resumes on the next run`,
    );
  else if (status === 'interrupted' && args.stopped !== undefined)
    errors.unshift(`${args.stopped}; unfinished work resumes from its checkpoints on the next run`);
  return writeClose(db, { ...args, status, errors });
}

/** `closeRunIn`, then tells the listeners. */
export async function closeRun(db: Db, args: CloseArgs): Promise<RunSummary> {
  const summary = await closeRunIn(db, args);
  announceClosed(summary);
  return summary;
}

/** Writes a run's close, where it is still running; returns the summary of its row either way. */
export async function writeClose(
  db: Db,
  args: {
    runId: number;
    status: Exclude<RunState, 'running'>;
    errors: readonly string[];
    extraCalls: number;
    throttled: number;
    workUnitsTotal: number;
    finishedAt?: Date;
  },
): Promise<RunSummary> {
  const sums = await sumUnits(db, { runId: args.runId });
  const counts: Counts = {
    ...pickCounts(UNIT_COUNTERS, sums),
    calls: sums.calls + args.extraCalls,
    throttled: args.throttled,
  };
  const closed = await db
    .updateTable('sync_runs')
    .set({
      ...Object.fromEntries(RUN_COUNTERS.map((counter) => [counter.column, counts[counter.key]])),
      status: args.status,
      finished_at: args.finishedAt ?? new Date(),
      work_units_total: Math.max(args.workUnitsTotal, sums.done + sums.failedOrInterrupted + sums.skipped),
      work_units_done: sums.done,
      work_units_failed: sums.failedOrInterrupted,
      error: args.errors.length ? args.errors.join('\n') : null,
    })
    .where('run_id', '=', args.runId)
    .where('status', '=', 'running')
    .returningAll()
    .executeTakeFirst();
  const row =
    closed ??
    (await db.selectFrom('sync_runs').selectAll().where('run_id', '=', args.runId).executeTakeFirstOrThrow());
  return summaryOfRow(row, { skipped: sums.skipped, ...(closed && { errors: [...args.errors] }) });
}
