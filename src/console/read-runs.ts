import { sql, type RawBuilder } from 'kysely';
import type { ConsoleContext } from './context.js';

/** The filters of the runs page, each optional. */
export interface RunFilter {
  account?: string;
  stream?: string;
  kind?: string;
  status?: string;
}

/** One run in the list. */
export interface RunRow {
  account: string;
  runId: number;
  kind: string;
  status: string;
  streams: string[];
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
  records: number;
  rows: number;
  calls: number;
  quarantined: number;
  unitsFailed: number;
  error: string | null;
}

/** One point of the runs chart: when it started, how long it took, what it read, how it ended. */
export interface RunPoint {
  at: number;
  seconds: number;
  records: number;
  status: string;
}

/** The accounts a filter covers: the one asked for, if the console shows it, else every one. */
function accountsOf(context: ConsoleContext, filter: RunFilter): string[] {
  const all = context.accounts.map((account) => account.id);
  return filter.account ? all.filter((id) => id === filter.account) : all;
}

/** The `where` of a filter: the accounts' index on (account_id, started_at) bounds every scan. */
function whereOf(
  context: ConsoleContext,
  filter: RunFilter,
  since?: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const parts = [sql`account_id = any(${accountsOf(context, filter)}::text[])`];
  if (since) parts.push(sql`started_at >= ${since}`);
  if (filter.stream) parts.push(sql`${filter.stream} = any(streams)`);
  if (filter.kind) parts.push(sql`kind = ${filter.kind}`);
  if (filter.status) parts.push(sql`status = ${filter.status}`);
  return sql.join(parts, sql` and `);
}

/** A page of runs, newest first; `more` when an older page exists. */
export async function readRuns(
  context: ConsoleContext,
  filter: RunFilter,
  page: number,
  pageSize: number,
): Promise<{ runs: RunRow[]; more: boolean }> {
  const { rows } = await sql<{
    account_id: string;
    run_id: number;
    kind: string;
    status: string;
    streams: string[];
    started_at: Date;
    finished_at: Date | null;
    records: number;
    rows: number;
    calls: number;
    quarantined: number;
    work_units_failed: number;
    error: string | null;
  }>`
    select account_id, run_id, kind, status, streams, started_at, finished_at, records,
           rows_inserted + rows_updated + rows_deleted as rows, calls, quarantined, work_units_failed, error
      from sync_runs where ${whereOf(context, filter)}
     order by started_at desc, run_id desc
     limit ${pageSize + 1} offset ${page * pageSize}`.execute(context.db);
  return {
    more: rows.length > pageSize,
    runs: rows.slice(0, pageSize).map((row) => ({
      account: row.account_id,
      runId: Number(row.run_id),
      kind: row.kind,
      status: row.status,
      streams: row.streams,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      durationMs: row.finished_at ? row.finished_at.getTime() - row.started_at.getTime() : null,
      records: row.records,
      rows: Number(row.rows),
      calls: row.calls,
      quarantined: row.quarantined,
      unitsFailed: row.work_units_failed,
      error: row.error,
    })),
  };
}

/** Most points the chart draws (the newest). */
export const CHART_POINTS = 5_000;

/** The finished runs of the last `days` days that match the filter, oldest first, for the chart. */
export async function readRunPoints(
  context: ConsoleContext,
  filter: RunFilter,
  days = 30,
): Promise<RunPoint[]> {
  const { rows } = await sql<{ at: string; seconds: string; records: number; status: string }>`
    select * from (
      select extract(epoch from started_at)::text as at,
             extract(epoch from finished_at - started_at)::text as seconds, records, status
        from sync_runs
       where ${whereOf(context, filter, sql`now() - make_interval(days => ${days})`)} and finished_at is not null
       order by started_at desc limit ${CHART_POINTS}) as newest
     order by at::float8`.execute(context.db);
  return rows.map((row) => ({
    at: Number(row.at),
    seconds: Number(row.seconds),
    records: row.records,
    status: row.status,
  }));
}

/** The kinds and statuses the runs of the last 90 days have, for the filters: read, not listed here. */
export async function readRunVocabulary(
  context: ConsoleContext,
): Promise<{ kinds: string[]; statuses: string[] }> {
  const accounts = context.accounts.map((account) => account.id);
  const { rows } = await sql<{ kinds: string[]; statuses: string[] }>`
    select coalesce(array_agg(distinct kind order by kind), '{}') as kinds,
           coalesce(array_agg(distinct status order by status), '{}') as statuses
      from sync_runs
     where account_id = any(${accounts}::text[]) and started_at >= now() - interval '90 days'`.execute(
    context.db,
  );
  return rows[0] ?? { kinds: [], statuses: [] };
}
