/**
 * What is wrong with an account right now, read from the warehouse alone: its last runs, their
 * errors, today's calls against the budget, freshness, the latest verification, the dead letters
 * and the open quarantine. Each condition is one alert, firing while it lasts.
 */
import { sql } from 'kysely';
import type { AlertKind, AlertSeverity, Config, OfflineConfig } from '../../config/schema.js';
import type { Db } from '../../catalog/tables.js';
import { deadLetters } from '../../queue/jobs.js';
import { freshnessTargets, readFreshness } from '../../sync/freshness.js';
import { countOpenQuarantine } from '../../sync/quarantine.js';
import { budgetSpentToday } from '../../sync/budget-spent.js';
import { latestDrift } from '../../sync/verifications.js';

/** One alert that fires now. */
export interface Condition {
  account: string;
  /** Its identity within the account: `run_failed:leases`, `credentials`, `freshness:invoices`. */
  key: string;
  kind: AlertKind;
  severity: AlertSeverity;
  stream: string | null;
  summary: string;
  details: Record<string, unknown>;
  /** A count whose growth is news again (open quarantine entries, dead letters). */
  value: number | null;
}

/** An account as the alerts judge it. */
export interface AlertAccount {
  id: string;
  timeZone: string;
  source: { dailyCallBudget: number };
}

/** The source refused the credentials: its error, as source/reply.ts words it. */
const REFUSED = 'authentication failed';

interface LastRun {
  stream: string;
  run_id: number;
  kind: string;
  status: string;
  error: string | null;
  finished_at: Date;
  failed_units: string[];
  first_error: string | null;
}

/** The latest ended run of each of an account's streams (interrupted runs left out: an operator stopped them). */
async function lastRuns(db: Db, account: string, streams: readonly string[]): Promise<LastRun[]> {
  const { rows } = await sql<LastRun>`
    select s.stream, r.run_id, r.kind, r.status, r.error, r.finished_at,
           coalesce((select array_agg(w.unit_key order by w.work_unit_id) from (
              select unit_key, work_unit_id from sync_work_units
               where account_id = r.account_id and run_id = r.run_id and stream = s.stream and status = 'failed'
               order by work_unit_id limit 5) w), '{}') as failed_units,
           (select w.error from sync_work_units w
             where w.account_id = r.account_id and w.run_id = r.run_id and w.stream = s.stream and w.error is not null
             order by w.work_unit_id limit 1) as first_error
      from unnest(${[...streams]}::text[]) as s(stream)
      cross join lateral (
        select * from sync_runs r
         where r.account_id = ${account} and s.stream = any(r.streams)
           and r.status not in ('running', 'interrupted') and r.finished_at is not null
         order by r.run_id desc limit 1) r`.execute(db);
  return rows;
}

function firstLine(text: string | null): string | null {
  return text ? text.split('\n')[0].slice(0, 300) : null;
}

/** The conditions of the runs: a refused credential (one per account), a spent budget, failed runs per stream. */
function runConditions(account: AlertAccount, runs: readonly LastRun[], calls: number): Condition[] {
  const conditions: Condition[] = [];
  const refused = runs.filter((run) => `${run.error ?? ''} ${run.first_error ?? ''}`.includes(REFUSED));
  if (refused.length) {
    const run = refused.sort((a, b) => b.run_id - a.run_id)[0];
    conditions.push({
      account: account.id,
      key: 'credentials',
      kind: 'credentials',
      severity: 'error',
      stream: null,
      summary:
        `the source refused the credentials of account ${account.id} (run ` +
        `#${run.run_id}): ${firstLine(run.first_error ?? run.error)}; ` +
        `fix them, then run propsync sync --account ${account.id}`,
      details: {
        runId: run.run_id,
        streams: refused.map((r) => r.stream),
        error: firstLine(run.first_error ?? run.error),
      },
      value: null,
    });
  }
  const budget = account.source.dailyCallBudget;
  const exhausted = runs.find((run) => run.status === 'budget_exhausted');
  if (calls >= budget || exhausted)
    conditions.push({
      account: account.id,
      key: 'budget',
      kind: 'budget',
      severity: 'warn',
      stream: null,
      summary:
        `account ${account.id} spent today's call budget (${calls} of ${budget} ` +
        `calls)${exhausted ? `; run #${exhausted.run_id} stopped early` : ''}; ` +
        `the work resumes after midnight (${account.timeZone}), or raise source.dailyCallBudget`,
      details: { callsToday: calls, dailyCallBudget: budget, runId: exhausted?.run_id ?? null },
      value: null,
    });
  for (const run of runs) {
    if (!['failed', 'partial', 'abandoned'].includes(run.status) || refused.includes(run)) continue;
    const error = firstLine(run.first_error ?? run.error);
    const units = run.failed_units.length ? `; failed units: ${run.failed_units.join(', ')}` : '';
    conditions.push({
      account: account.id,
      key: `run_failed:${run.stream}`,
      kind: 'run_failed',
      severity: run.status === 'partial' ? 'warn' : 'error',
      stream: run.stream,
      summary:
        `run #${run.run_id} (${run.kind}) of ${run.stream} for account ${account.id} ` +
        `ended ${run.status}${units}${error ? `; first error: ${error}` : ''}; ` +
        `see propsync status --account ${account.id}, fix the cause, and the next run resumes`,
      details: { runId: run.run_id, status: run.status, failedUnits: run.failed_units, firstError: error },
      value: null,
    });
  }
  return conditions;
}

/** Every condition that fires now for each account, judged at `now` (default: the database's clock). */
export async function readConditions(
  db: Db,
  config: Pick<Config | OfflineConfig, 'streams'>,
  accounts: readonly AlertAccount[],
  options: { now?: Date } = {},
): Promise<Condition[]> {
  const ids = accounts.map((account) => account.id);
  const targets = freshnessTargets(config, accounts);
  const freshness = await readFreshness(db, targets, options);
  const quarantine = await countOpenQuarantine(db, ids);
  const letters = await deadLetters(db, ids).catch(() => []);
  const drift = await latestDrift(db, ids);
  const conditions: Condition[] = [];
  for (const account of accounts) {
    const streams = [...new Set(targets.filter((t) => t.account === account.id).map((t) => t.stream))];
    const runs = await lastRuns(db, account.id, streams);
    const calls = await budgetSpentToday(db, account.id, account.timeZone);
    conditions.push(...runConditions(account, runs, calls));
    for (const judged of freshness.filter((f) => f.account === account.id && f.state !== 'ok'))
      conditions.push({
        account: account.id,
        key: `freshness:${judged.stream}`,
        kind: 'freshness',
        severity: judged.state === 'error' ? 'error' : 'warn',
        stream: judged.stream,
        summary:
          `${judged.stream} of account ${account.id} ` +
          `is ${judged.state === 'error' ? 'stale' : 'late'}: ${judged.reason}`,
        details: {
          lastSuccessAt: judged.lastSuccessAt,
          reachedDay: judged.reachedDay,
          warnAfterMs: judged.warnAfterMs,
          errorAfterMs: judged.errorAfterMs,
        },
        value: null,
      });
    const drifted = drift.filter((d) => d.account === account.id);
    const driftRows = drifted.reduce((sum, d) => sum + d.rows, 0);
    if (driftRows > 0)
      conditions.push({
        account: account.id,
        key: 'verify_drift',
        kind: 'verify_drift',
        severity: 'warn',
        stream: null,
        summary:
          `propsync verify found ${driftRows} rows of account ${account.id} differing from the source ` +
          `(${[...new Set(drifted.map((d) => d.table))].join(', ')}); ` +
          `propsync verify --account ${account.id} --repair heals them`,
        details: { rows: driftRows, tables: drifted },
        value: driftRows,
      });
    const dead = letters.filter((letter) => letter.account === account.id);
    if (dead.length)
      conditions.push({
        account: account.id,
        key: 'dead_letter',
        kind: 'dead_letter',
        severity: 'error',
        stream: null,
        summary:
          `${dead.length} jobs of account ${account.id} ran out of retries (dead-letter queue); ` +
          `the newest: run #${dead.at(-1)!.runId}, ` +
          `lane ${dead.at(-1)!.laneKey}: ${firstLine(dead.at(-1)!.error)}; see propsync status`,
        details: {
          jobs: dead.map((letter) => ({
            runId: letter.runId,
            laneKey: letter.laneKey,
            at: letter.at.toISOString(),
          })),
        },
        value: dead.length,
      });
    const open = quarantine.get(account.id) ?? 0;
    if (open > 0)
      conditions.push({
        account: account.id,
        key: 'quarantine',
        kind: 'quarantine',
        severity: 'warn',
        stream: null,
        summary:
          `${open} records of account ${account.id} are in quarantine (they failed validation); ` +
          `propsync status lists them, docs/operating.md#quarantined-records-and-their-replay ` +
          `says what to do`,
        details: { open },
        value: open,
      });
  }
  return conditions;
}
