import type { Db } from '../catalog/tables.js';
import type { StreamName } from '../config/schema.js';
import { RUN_COUNTERS, type Counts } from '../warehouse/run-counters.js';
import type { RunStatus, RunSummary, SyncRequest } from '../sync/types.js';

/** The summary of a run as its row tells it once it has ended (null while it is running). */
export async function readRunSummary(db: Db, runId: number): Promise<RunSummary | null> {
  const row = await db.selectFrom('sync_runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
  if (!row || row.status === 'running' || !row.finished_at) return null;
  const counts = Object.fromEntries(
    RUN_COUNTERS.map((counter) => [counter.key, Number(row[counter.column] ?? 0)]),
  ) as Counts;
  return {
    ...counts,
    account: row.account_id,
    runId,
    kind: (row.requested as SyncRequest).kind ?? 'sync',
    streams: row.streams as StreamName[],
    status: row.status as RunStatus,
    workUnits: {
      total: row.work_units_total,
      done: row.work_units_done,
      failed: row.work_units_failed,
      skipped: 0,
    },
    durationMs: row.finished_at.getTime() - row.started_at.getTime(),
    errors: row.error ? row.error.split('\n') : [],
  };
}
