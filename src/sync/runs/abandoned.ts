import { sql } from 'kysely';
import type { StreamName } from '../../streams/registry.js';
import type { Db } from '../../catalog/tables.js';
import { announceClosed, writeClose } from './lifecycle.js';
import type { RunSummary } from '../types.js';

/** A run closed as abandoned: its id, streams, and the process that left it. */
export interface AbandonedRun {
  runId: number;
  streams: StreamName[];
  host: string | null;
  pid: number | null;
}

/** A run found left running, as both sweeps read it. */
interface LeftRun {
  account_id: string;
  run_id: number;
  streams: string[];
  host: string | null;
  pid: number | null;
  started_at: Date;
  heartbeat_at: Date | null;
  work_units_total: number;
}

/**
 * Closes each of `rows` as `abandoned`, with its running work units, in one transaction per run; it ends at
 * its last heartbeat. `why` says how the run was found; the closed runs are announced once all are written.
 */
async function abandon(
  db: Db,
  rows: readonly LeftRun[],
  why: (row: LeftRun) => string,
): Promise<AbandonedRun[]> {
  const closed: RunSummary[] = [];
  for (const row of rows) {
    const reason = why(row);
    closed.push(
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('sync_work_units')
          .set({ status: 'abandoned', finished_at: sql<Date>`now()`, error: reason })
          .where('account_id', '=', row.account_id)
          .where('run_id', '=', row.run_id)
          .where('status', '=', 'running')
          .execute();
        return writeClose(trx, {
          runId: row.run_id,
          status: 'abandoned',
          errors: [reason],
          extraCalls: 0,
          throttled: 0,
          workUnitsTotal: row.work_units_total,
          finishedAt: row.heartbeat_at ?? row.started_at,
        });
      }),
    );
  }
  for (const summary of closed) announceClosed(summary);
  return rows.map((row) => ({
    runId: row.run_id,
    streams: row.streams as StreamName[],
    host: row.host,
    pid: row.pid,
  }));
}

/**
 * Closes as `abandoned` the runs of an account's `streams` still marked running, other than `runId`, with
 * their running work units (not the runs put on the queue). The caller holds those streams' locks, and a run
 * holds its locks
 * until it ends, so such a run's process died. Each run's counters are summed from its units
 * and it ends at its last heartbeat; its unfinished units resume from their checkpoints as before.
 */
export async function closeAbandonedRuns(
  db: Db,
  args: { account: string; runId: number; streams: readonly StreamName[] },
): Promise<AbandonedRun[]> {
  const rows = await db
    .selectFrom('sync_runs')
    .select([
      'account_id',
      'run_id',
      'streams',
      'host',
      'pid',
      'started_at',
      'heartbeat_at',
      'work_units_total',
    ])
    .where('account_id', '=', args.account)
    .where('status', '=', 'running')
    .where('run_id', '<>', args.runId)
    .where(sql<boolean>`streams && ${args.streams as string[]}::text[]`)
    // A run whose lanes are on the queue belongs to no process: its workers finish it.
    .where(sql<boolean>`not (requested ? 'queued')`)
    .orderBy('run_id')
    .execute();
  return abandon(
    db,
    rows,
    (row) =>
      `abandoned: its process (pid ${row.pid ?? '?'} on ${row.host ?? '?'}) ended without closing ` +
      `it; run ${args.runId} found it so`,
  );
}

/**
 * Closes as `abandoned` the runs of `accounts` still running whose heartbeat is older than `abandonedAfterMinutes`
 * (a run beats at least four times in that while): their process is gone, whatever kind they are (sync, verify,
 * or a queued run killed while it was planned, before it had lanes). A queued run with lanes is closed by its
 * lanes instead (the queue's sweeps end those whose job is gone). Returns the runs closed.
 */
export async function closeStaleRuns(
  db: Db,
  args: { accounts: readonly string[]; abandonedAfterMinutes: number },
): Promise<AbandonedRun[]> {
  if (args.accounts.length === 0) return [];
  const rows = await db
    .selectFrom('sync_runs as r')
    .select([
      'r.account_id',
      'r.run_id',
      'r.streams',
      'r.host',
      'r.pid',
      'r.started_at',
      'r.heartbeat_at',
      'r.work_units_total',
    ])
    .where('r.account_id', 'in', args.accounts as string[])
    .where('r.status', '=', 'running')
    .where(
      sql<boolean>`coalesce(r.heartbeat_at, r.started_at)
                   < now() - make_interval(mins => ${args.abandonedAfterMinutes})`,
    )
    .where(
      sql<boolean>`not exists (select 1 from sync_run_lanes l
                                where l.account_id = r.account_id and l.run_id = r.run_id)`,
    )
    .orderBy('r.run_id')
    .execute();
  return abandon(
    db,
    rows,
    (row) =>
      `abandoned: its process (pid ${row.pid ?? '?'} on ${row.host ?? '?'}) ` +
      `stopped beating ${args.abandonedAfterMinutes} min or more ago without closing it`,
  );
}
