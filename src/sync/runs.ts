import { hostname } from 'node:os';
import { sql, type Kysely } from 'kysely';
import type { StreamName } from '../config/schema.js';
import type { RunStatus, RunSummary, SyncRequest } from './types.js';

/** Opens a run in `sync_runs` and returns its id. */
export async function createRun(
  db: Kysely<any>,
  args: { kind: string; streams: StreamName[]; propertyIds: string[] | undefined; requested: SyncRequest },
): Promise<number> {
  const row = await db
    .insertInto('sync_runs')
    .values({
      kind: args.kind,
      streams: args.streams,
      property_ids: args.propertyIds?.map(Number) ?? null,
      requested: JSON.stringify(args.requested),
      host: hostname(),
      pid: process.pid,
    })
    .returning('run_id')
    .executeTakeFirstOrThrow();
  return row.run_id;
}

/** Notes the source's today and the number of planned work units once planning is done. */
export async function notePlan(db: Kysely<any>, runId: number, args: { sourceToday: string; workUnits: number }): Promise<void> {
  await db
    .updateTable('sync_runs')
    .set({ source_today: args.sourceToday, work_units_total: args.workUnits })
    .where('run_id', '=', runId)
    .execute();
}

/**
 * Closes a run: its counters are the sums of its work units (so they are right even for
 * units resumed after a crash), plus calls made outside units (discovery).
 */
export async function finishRun(
  db: Kysely<any>,
  args: { runId: number; status: RunStatus; error?: string; extraCalls: number; throttled: number; workUnitsTotal: number },
): Promise<Omit<RunSummary, 'kind' | 'streams' | 'durationMs' | 'errors'>> {
  const { rows } = await sql<{
    done: number; failed: number; skipped: number; pages: number; records: number; rows_inserted: number; rows_updated: number;
    rows_unchanged: number; rows_deleted: number; quarantined: number; calls: number; retries: number; bytes: number;
  }>`
    select count(*) filter (where status = 'done')::int as done,
           count(*) filter (where status in ('failed', 'interrupted'))::int as failed,
           count(*) filter (where status = 'skipped')::int as skipped,
           coalesce(sum(pages), 0)::int as pages, coalesce(sum(records), 0)::int as records,
           coalesce(sum(rows_inserted), 0)::int as rows_inserted, coalesce(sum(rows_updated), 0)::int as rows_updated,
           coalesce(sum(rows_unchanged), 0)::int as rows_unchanged, coalesce(sum(rows_deleted), 0)::int as rows_deleted,
           coalesce(sum(quarantined), 0)::int as quarantined, coalesce(sum(calls), 0)::int as calls,
           coalesce(sum(retries), 0)::int as retries, coalesce(sum(bytes), 0)::bigint as bytes
    from sync_work_units where run_id = ${args.runId}
  `.execute(db);
  const t = rows[0];
  const calls = t.calls + args.extraCalls;
  await db
    .updateTable('sync_runs')
    .set({
      status: args.status,
      finished_at: new Date(),
      work_units_total: Math.max(args.workUnitsTotal, t.done + t.failed + t.skipped),
      work_units_done: t.done,
      work_units_failed: t.failed,
      pages: t.pages,
      records: t.records,
      rows_inserted: t.rows_inserted,
      rows_updated: t.rows_updated,
      rows_unchanged: t.rows_unchanged,
      rows_deleted: t.rows_deleted,
      quarantined: t.quarantined,
      calls,
      retries: t.retries,
      bytes: Number(t.bytes),
      throttled: args.throttled,
      error: args.error ?? null,
    })
    .where('run_id', '=', args.runId)
    .execute();
  return {
    runId: args.runId,
    status: args.status,
    workUnits: { total: Math.max(args.workUnitsTotal, t.done + t.failed + t.skipped), done: t.done, failed: t.failed, skipped: t.skipped },
    pages: t.pages,
    records: t.records,
    rowsInserted: t.rows_inserted,
    rowsUpdated: t.rows_updated,
    rowsUnchanged: t.rows_unchanged,
    rowsDeleted: t.rows_deleted,
    quarantined: t.quarantined,
    calls,
    retries: t.retries,
    throttled: args.throttled,
    bytes: Number(t.bytes),
  };
}
