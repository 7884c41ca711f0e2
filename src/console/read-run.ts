import { sql } from 'kysely';
import type { ConsoleContext } from './context.js';
import type { RunRow } from './read-runs.js';

/** One work unit of a run, as its timeline and table show it. */
export interface UnitRow {
  workUnitId: number;
  stream: string;
  kind: string;
  unitKey: string;
  propertyIds: string[];
  window: string | null;
  status: string;
  pages: number;
  records: number;
  rows: number;
  calls: number;
  retries: number;
  quarantined: number;
  startedAt: Date | null;
  finishedAt: Date | null;
  error: string | null;
}

/** A lane a queued run put on the queue (`sync_run_lanes`). */
export interface LaneRow {
  laneKey: string;
  stream: string;
  status: string;
  error: string | null;
  finishedAt: Date | null;
}

/** A run with its units and queued lanes. */
export interface RunDetail {
  run: RunRow & { propertyIds: string[] | null; host: string | null; heartbeatAt: Date | null };
  units: UnitRow[];
  /** More units than shown (a run of thousands of units shows its first `UNITS_SHOWN`). */
  moreUnits: number;
  lanes: LaneRow[];
}

/** Most units a run's page shows. */
export const UNITS_SHOWN = 1_000;

/** A run of an account the console shows, or null when there is none. */
export async function readRun(
  context: ConsoleContext,
  account: string,
  runId: number,
): Promise<RunDetail | null> {
  if (!context.accounts.some((known) => known.id === account)) return null;
  const { db } = context;
  const run = await db
    .selectFrom('sync_runs')
    .selectAll()
    .where('account_id', '=', account)
    .where('run_id', '=', runId)
    .executeTakeFirst();
  if (!run) return null;
  const units = await db
    .selectFrom('sync_work_units')
    .select([
      'work_unit_id',
      'stream',
      'kind',
      'unit_key',
      'property_ids',
      'window_from',
      'window_to',
      'status',
      'pages',
      'records',
      sql<number>`rows_inserted + rows_updated + rows_deleted`.as('rows'),
      'calls',
      'retries',
      'quarantined',
      'started_at',
      'finished_at',
      'error',
    ])
    .where('account_id', '=', account)
    .where('run_id', '=', runId)
    .orderBy('work_unit_id')
    .limit(UNITS_SHOWN + 1)
    .execute();
  const { rows: total } = await sql<{ units: string }>`
    select count(*)::text as units from sync_work_units where account_id = ${account} and run_id = ${runId}`.execute(
    db,
  );
  const lanes = await db
    .selectFrom('sync_run_lanes')
    .select(['lane_key', 'stream', 'status', 'error', 'finished_at'])
    .where('account_id', '=', account)
    .where('run_id', '=', runId)
    .orderBy('lane_key')
    .limit(UNITS_SHOWN)
    .execute();
  return {
    run: {
      account,
      runId: Number(run.run_id),
      kind: run.kind,
      status: run.status,
      streams: run.streams,
      startedAt: run.started_at,
      finishedAt: run.finished_at,
      durationMs: run.finished_at ? run.finished_at.getTime() - run.started_at.getTime() : null,
      records: run.records,
      rows: run.rows_inserted + run.rows_updated + run.rows_deleted,
      calls: run.calls,
      quarantined: run.quarantined,
      unitsFailed: run.work_units_failed,
      error: run.error,
      propertyIds: run.property_ids?.map(String) ?? null,
      host: run.host,
      heartbeatAt: run.heartbeat_at,
    },
    units: units.slice(0, UNITS_SHOWN).map((unit) => ({
      workUnitId: Number(unit.work_unit_id),
      stream: unit.stream,
      kind: unit.kind,
      unitKey: unit.unit_key,
      propertyIds: unit.property_ids.map(String),
      window:
        unit.window_from || unit.window_to ? `${unit.window_from ?? '…'}..${unit.window_to ?? '…'}` : null,
      status: unit.status,
      pages: unit.pages,
      records: unit.records,
      rows: Number(unit.rows),
      calls: unit.calls,
      retries: unit.retries,
      quarantined: unit.quarantined,
      startedAt: unit.started_at,
      finishedAt: unit.finished_at,
      error: unit.error,
    })),
    moreUnits: Math.max(0, Number(total[0].units) - UNITS_SHOWN),
    lanes: lanes.map((lane) => ({
      laneKey: lane.lane_key,
      stream: lane.stream,
      status: lane.status,
      error: lane.error,
      finishedAt: lane.finished_at,
    })),
  };
}
