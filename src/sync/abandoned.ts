import { sql } from 'kysely';
import type { StreamName } from '../streams/registry.js';
import type { Db } from '../catalog/tables.js';
import { finishRun } from './runs.js';

/** A run closed as abandoned: its id, streams, and the process that left it. */
export interface AbandonedRun {
  runId: number;
  streams: StreamName[];
  host: string | null;
  pid: number | null;
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
    .select(['run_id', 'streams', 'host', 'pid', 'started_at', 'heartbeat_at', 'work_units_total'])
    .where('account_id', '=', args.account)
    .where('status', '=', 'running')
    .where('run_id', '<>', args.runId)
    .where(sql<boolean>`streams && ${args.streams as string[]}::text[]`)
    // A run whose lanes are on the queue belongs to no process: its workers finish it.
    .where(sql<boolean>`not (requested ? 'queued')`)
    .orderBy('run_id')
    .execute();
  for (const row of rows) {
    const why = `abandoned: its process (pid ${row.pid ?? '?'} on ${row.host ?? '?'}) ended without closing it; run ${args.runId} found it so`;
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('sync_work_units')
        .set({ status: 'abandoned', finished_at: sql<Date>`now()`, error: why })
        .where('account_id', '=', args.account)
        .where('run_id', '=', row.run_id)
        .where('status', '=', 'running')
        .execute();
      await finishRun(trx, {
        runId: row.run_id,
        status: 'abandoned',
        error: why,
        extraCalls: 0,
        throttled: 0,
        workUnitsTotal: row.work_units_total,
        finishedAt: row.heartbeat_at ?? row.started_at,
      });
    });
  }
  return rows.map((row) => ({
    runId: row.run_id,
    streams: row.streams as StreamName[],
    host: row.host,
    pid: row.pid,
  }));
}
