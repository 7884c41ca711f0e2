import { sql, type Selectable } from 'kysely';
import { STREAM_NAMES, type StreamName } from '../streams/registry.js';
import { SOURCE_TABLE_NAMES, type Db, type Warehouse } from '../catalog/tables.js';
import { pickCounts, RUN_COUNTERS, type Counts, type RunCounter } from '../warehouse/run-counters.js';
import { budgetSpentToday } from './budget-spent.js';
import { sumUnits } from './runs/lifecycle.js';
import { lastVerification, type VerificationRecord } from './verifications.js';
import { readPrivacyStatus, type PrivacyStatus } from './privacy/status.js';
import type { PrivacyConfig } from '../config/privacy.js';
import { readFreshness, type FreshnessTarget, type StreamFreshness } from './freshness.js';

/** The run counters `status` shows. */
const STATUS_COUNTER_KEYS = ['records', 'rowsInserted', 'rowsUpdated', 'quarantined', 'calls'] as const;
type StatusCounter = Extract<RunCounter, { key: (typeof STATUS_COUNTER_KEYS)[number] }>;
const STATUS_COUNTERS = RUN_COUNTERS.filter((counter): counter is StatusCounter =>
  (STATUS_COUNTER_KEYS as readonly string[]).includes(counter.key),
);

/**
 * One run, as `status` shows it. Under a stream, the counters are the stream's share of the
 * run (its work units) when the run covered several streams.
 */
export interface RunInfo extends Counts<StatusCounter> {
  runId: number;
  kind: string;
  status: string;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  /** `skipped`: units an earlier run had already done (a backfill run again). */
  workUnits: { total: number; done: number; failed: number; skipped: number };
  error: string | null;
}

/** One cursor row: a window's position for a stream and scope. */
export interface CursorInfo {
  cursor: string;
  value: string | null;
  updatedAt: string;
  lastRunId: number | null;
}

/** The cursors of one scope (a property, or a property group) and its last work unit. */
export interface ScopeStatus {
  /** The cursor scope: a property id, or comma-joined sorted property ids. */
  scope: string;
  propertyIds: string[];
  cursors: CursorInfo[];
  /** The latest incremental work unit of the scope's properties, with its outcome. */
  lastWorkUnit: {
    runId: number;
    unitKey: string;
    kind: string;
    status: string;
    finishedAt: string | null;
    error: string | null;
  } | null;
}

/** What `status` says about one stream. */
export interface StreamStatus {
  stream: StreamName;
  lastRun: RunInfo | null;
  lastSuccess: RunInfo | null;
  running: RunInfo[];
  scopes: ScopeStatus[];
  callsToday: number;
  openQuarantine: number;
  /** Its freshness, when status was asked to judge it (enabled streams, or those named). */
  freshness: StreamFreshness | null;
}

/** Rows of one source table, and how many of them the source no longer lists. */
export interface TableCount {
  table: string;
  rows: number;
  deleted: number;
}

/** An open quarantine entry (its raw record is left out; it stays in the table). */
export interface OpenQuarantineEntry {
  quarantineId: number;
  stream: string;
  entity: string;
  recordKey: string | null;
  propertyId: number | null;
  window: string | null;
  page: number | null;
  reason: string;
  runId: number | null;
  createdAt: string;
}

/** The whole of `propsync status`. */
export interface StatusReport {
  /** The source account reported on. */
  account: string;
  generatedAt: string;
  /** The day of the budget, in the configured time zone. */
  today: string;
  /** The configured time zone. */
  timeZone: string;
  budget: { dailyCallBudget: number; callsToday: number; left: number };
  streams: StreamStatus[];
  tables: TableCount[];
  quarantine: { open: number; entries: OpenQuarantineEntry[] };
  /** The account's latest `propsync verify` pass, or null when it was never verified. */
  lastVerification: VerificationRecord | null;
  /** The personal-data policy the account's rows were written under, beside the configured one (when given). */
  privacy?: PrivacyStatus;
}

export interface StatusOptions {
  /** The source account to report on. */
  account: string;
  dailyCallBudget: number;
  /** The configured time zone: the day of the budget. */
  timeZone: string;
  /** Open quarantine entries listed (newest first); default 20. */
  quarantineLimit?: number;
  /** Minutes without a heartbeat after which a run still marked running is shown as abandoned; default 10. */
  abandonedAfterMinutes?: number;
  /** The account's streams whose freshness to judge, with their thresholds (`freshnessTargets`). */
  freshness?: readonly FreshnessTarget[];
  /** The configured `privacy:`, to show the policy in force beside it. */
  privacy?: PrivacyConfig;
}

/** Reads everything `propsync status` shows, from the warehouse alone (no call to the source). */
export async function readStatus(db: Db, options: StatusOptions): Promise<StatusReport> {
  const { account } = options;
  const today = await todayIn(db, options.timeZone);
  const callsByStream = await callsToday(db, account, options.timeZone);
  const quarantineByStream = await openQuarantineByStream(db, account);
  const freshness = await readFreshness(
    db,
    (options.freshness ?? []).filter((target) => target.account === account),
  );
  const streams: StreamStatus[] = [];
  for (const stream of STREAM_NAMES) {
    streams.push({
      stream,
      lastRun: await lastRun(db, account, stream, false),
      lastSuccess: await lastRun(db, account, stream, true),
      running: await runningRuns(db, account, stream, options.abandonedAfterMinutes ?? 10),
      scopes: await scopes(db, account, stream),
      callsToday: callsByStream.get(stream) ?? 0,
      openQuarantine: quarantineByStream.get(stream) ?? 0,
      freshness: freshness.find((judged) => judged.stream === stream) ?? null,
    });
  }
  const spent = await budgetSpentToday(db, account, options.timeZone);
  const entries = await openQuarantine(db, account, options.quarantineLimit ?? 20);
  return {
    account,
    generatedAt: new Date().toISOString(),
    today,
    timeZone: options.timeZone,
    budget: {
      dailyCallBudget: options.dailyCallBudget,
      callsToday: spent,
      left: Math.max(options.dailyCallBudget - spent, 0),
    },
    streams,
    tables: await tableCounts(db, account),
    quarantine: { open: [...quarantineByStream.values()].reduce((a, b) => a + b, 0), entries },
    lastVerification: await lastVerification(db, account),
    ...(options.privacy && { privacy: await readPrivacyStatus(db, account, options.privacy) }),
  };
}

/** Today's date in a time zone, as the database's clock says. */
export async function todayIn(db: Db, timeZone: string): Promise<string> {
  const { rows } = await sql<{
    today: string;
  }>`select ((now() at time zone ${timeZone})::date)::text as today`.execute(db);
  return rows[0].today;
}

/**
 * Calls of each stream's work units started today (a day in the account's time zone): the
 * streams' shares. The budget's one count is the call gate's (`budgetSpentToday`).
 */
export async function callsToday(db: Db, account: string, timeZone: string): Promise<Map<string, number>> {
  const { rows } = await sql<{ stream: string; calls: string }>`
    select w.stream, sum(w.calls)::text as calls
      from sync_work_units w
     where w.account_id = ${account}
       and w.started_at >= date_trunc('day', now() at time zone ${timeZone}) at time zone ${timeZone}
     group by w.stream`.execute(db);
  return new Map(rows.map((row) => [row.stream, Number(row.calls)]));
}

const RUN_COLUMNS = [
  'run_id',
  'kind',
  'status',
  'started_at',
  'finished_at',
  'work_units_total',
  'work_units_done',
  'work_units_failed',
  'error',
  ...STATUS_COUNTERS.map((counter) => counter.column),
] as const;

function runInfo(row: Pick<Selectable<Warehouse['sync_runs']>, (typeof RUN_COLUMNS)[number]>): RunInfo {
  return {
    runId: row.run_id,
    kind: row.kind,
    status: row.status,
    startedAt: row.started_at.toISOString(),
    finishedAt: row.finished_at ? row.finished_at.toISOString() : null,
    durationMs: row.finished_at ? row.finished_at.getTime() - row.started_at.getTime() : null,
    workUnits: {
      total: row.work_units_total,
      done: row.work_units_done,
      failed: row.work_units_failed,
      skipped: 0,
    },
    ...(Object.fromEntries(
      STATUS_COUNTERS.map((counter) => [counter.key, row[counter.column]]),
    ) as Counts<StatusCounter>),
    error: row.error,
  };
}

/**
 * The latest finished run that covered `stream` (only successful ones when `succeeded`), its
 * counters narrowed to the stream's own work units when the run covered several streams.
 */
export async function lastRun(
  db: Db,
  account: string,
  stream: string,
  succeeded: boolean,
): Promise<RunInfo | null> {
  let query = db
    .selectFrom('sync_runs')
    .select([...RUN_COLUMNS, 'streams'])
    .where('account_id', '=', account)
    .where(sql<boolean>`${stream} = any(streams)`)
    .where('status', '!=', 'running');
  if (succeeded) query = query.where('status', '=', 'succeeded');
  const row = await query.orderBy('run_id', 'desc').limit(1).executeTakeFirst();
  if (!row) return null;
  const info = runInfo(row);
  if (row.streams.length > 1) return { ...info, ...(await streamShare(db, row.run_id, stream)) };
  const { skipped } = await sumUnits(db, { runId: row.run_id });
  return { ...info, workUnits: { ...info.workUnits, skipped } };
}

/** A stream's share of a run's counters, from its work units. */
async function streamShare(
  db: Db,
  runId: number,
  stream: string,
): Promise<Pick<RunInfo, 'workUnits' | StatusCounter['key']>> {
  const sums = await sumUnits(db, { runId, stream });
  return {
    workUnits: { total: sums.units, done: sums.done, failed: sums.failed, skipped: sums.skipped },
    ...pickCounts(STATUS_COUNTERS, sums),
  };
}

/** When the last successful run of each account's stream ended (for the scheduler's metrics at start). */
export async function lastSuccessByStream(db: Db): Promise<{ account: string; stream: string; at: Date }[]> {
  const { rows } = await sql<{ account: string; stream: string; at: Date }>`
    select r.account_id as account, s.stream, max(r.finished_at) as at
      from sync_runs r cross join unnest(r.streams) as s(stream)
     where r.status = 'succeeded' and r.finished_at is not null
     group by r.account_id, s.stream`.execute(db);
  return rows;
}

/**
 * Runs of `stream` still marked running: in progress, or — with no heartbeat for longer than
 * `abandonedAfterMinutes` — `abandoned`, their process having died before it could say how they ended.
 */
export async function runningRuns(
  db: Db,
  account: string,
  stream: string,
  abandonedAfterMinutes: number,
): Promise<RunInfo[]> {
  const rows = await db
    .selectFrom('sync_runs')
    .select([
      ...RUN_COLUMNS,
      sql<boolean>`coalesce(heartbeat_at, started_at) < now() - make_interval(mins => ${abandonedAfterMinutes})`.as(
        'abandoned',
      ),
    ])
    .where('account_id', '=', account)
    .where(sql<boolean>`${stream} = any(streams)`)
    .where('status', '=', 'running')
    .orderBy('run_id', 'desc')
    .limit(10)
    .execute();
  return rows.map((row) => ({ ...runInfo(row), ...(row.abandoned ? { status: 'abandoned' } : {}) }));
}

/** The cursors of a stream grouped by scope, each scope with the latest work unit that touched its properties. */
export async function scopes(db: Db, account: string, stream: string): Promise<ScopeStatus[]> {
  const cursors = await db
    .selectFrom('sync_cursors')
    .select(['scope', 'cursor', 'value', 'updated_at', 'last_run_id'])
    .where('account_id', '=', account)
    .where('stream', '=', stream)
    .orderBy('scope')
    .orderBy('cursor')
    .execute();
  const byScope = new Map<string, ScopeStatus>();
  for (const row of cursors) {
    let scope = byScope.get(row.scope);
    if (!scope) {
      scope = { scope: row.scope, propertyIds: scopeProperties(row.scope), cursors: [], lastWorkUnit: null };
      byScope.set(row.scope, scope);
    }
    scope.cursors.push({
      cursor: row.cursor,
      value: row.value,
      updatedAt: row.updated_at.toISOString(),
      lastRunId: row.last_run_id,
    });
  }
  if (byScope.size === 0) return [];
  const { rows } = await sql<{
    scope: string;
    run_id: number;
    unit_key: string;
    kind: string;
    status: string;
    finished_at: Date | null;
    error: string | null;
  }>`
    select distinct on (s.scope) s.scope, w.run_id, w.unit_key, w.kind, w.status, w.finished_at, w.error
      from unnest(${[...byScope.keys()]}::text[]) as s(scope)
      join sync_work_units w
        on w.account_id = ${account}
       and w.stream = ${stream}
       and w.kind <> 'backfill'
       and w.property_ids && string_to_array(s.scope, ',')::bigint[]
     order by s.scope, w.work_unit_id desc`.execute(db);
  for (const row of rows) {
    const scope = byScope.get(row.scope);
    if (scope) {
      scope.lastWorkUnit = {
        runId: row.run_id,
        unitKey: row.unit_key,
        kind: row.kind,
        status: row.status,
        finishedAt: row.finished_at ? row.finished_at.toISOString() : null,
        error: row.error,
      };
    }
  }
  return [...byScope.values()];
}

/** The property ids of a cursor scope: one id, or several for a property group. */
export function scopeProperties(scope: string): string[] {
  return scope
    .split(',')
    .map((part) => part.trim())
    .filter((part) => /^\d+$/.test(part));
}

/** Exact row counts of every source table, with how many rows are marked deleted. */
export async function tableCounts(db: Db, account: string): Promise<TableCount[]> {
  const counts: TableCount[] = [];
  for (const table of SOURCE_TABLE_NAMES) {
    const { rows } = await sql<{ rows: string; deleted: string }>`
      select count(*)::text as rows, count(deleted_at)::text as deleted
        from ${sql.table(table)} where account_id = ${account}`.execute(db);
    counts.push({ table, rows: Number(rows[0].rows), deleted: Number(rows[0].deleted) });
  }
  return counts;
}

async function openQuarantineByStream(db: Db, account: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('quarantine')
    .select(['stream', sql<string>`count(*)::text`.as('open')])
    .where('account_id', '=', account)
    .where('resolved_at', 'is', null)
    .groupBy('stream')
    .execute();
  return new Map(rows.map((row) => [row.stream, Number(row.open)]));
}

/** The newest open quarantine entries, without their raw records. */
export async function openQuarantine(db: Db, account: string, limit: number): Promise<OpenQuarantineEntry[]> {
  const rows = await db
    .selectFrom('quarantine')
    .select([
      'quarantine_id',
      'stream',
      'entity',
      'record_key',
      'property_id',
      'window_from',
      'window_to',
      'page',
      'reason',
      'run_id',
      'created_at',
    ])
    .where('account_id', '=', account)
    .where('resolved_at', 'is', null)
    .orderBy('quarantine_id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    quarantineId: row.quarantine_id,
    stream: row.stream,
    entity: row.entity,
    recordKey: row.record_key,
    propertyId: row.property_id,
    window: row.window_from || row.window_to ? `${row.window_from ?? '…'}..${row.window_to ?? '…'}` : null,
    page: row.page,
    reason: row.reason,
    runId: row.run_id,
    createdAt: row.created_at.toISOString(),
  }));
}
