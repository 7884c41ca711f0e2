/**
 * Freshness per account and stream: when it last succeeded, the source day its cursors reached,
 * and whether that is `ok`, late (`warn`) or an `error` by the stream's thresholds. Read from the
 * warehouse alone; `status`, `/healthz`, `/metrics` and the alerts all judge by this one reader.
 */
import { sql } from 'kysely';
import type { Config, StreamName } from '../config/schema.js';
import { formatSpan } from '../dates/duration.js';
import type { Db } from '../catalog/tables.js';
import { nextCronTimes } from '../dates/cron-times.js';

export const FRESHNESS_STATES = ['ok', 'warn', 'error'] as const;
export type FreshnessState = (typeof FRESHNESS_STATES)[number];

/** How late a stream may be before it is `warn`, and before it is `error` (milliseconds since its last success). */
export interface FreshnessThresholds {
  warnAfterMs: number;
  errorAfterMs: number;
  /** `config` when `streams.<name>.freshness` set them, `schedule` when derived from the stream's schedule. */
  from: 'config' | 'schedule';
}

/** The freshness of one account's stream. */
export interface StreamFreshness {
  account: string;
  stream: string;
  state: FreshnessState;
  /** End of the stream's last successful run (ISO), or null when it never succeeded. */
  lastSuccessAt: string | null;
  /**
   * The source day its cursors reached: the earliest of its scopes' latest cursor days; for a stream
   * without cursors (read whole each run), the source's day of its last success. Null: neither yet.
   */
  reachedDay: string | null;
  warnAfterMs: number;
  errorAfterMs: number;
  /** Why the state is what it is, in a sentence an operator acts on. */
  reason: string;
}

/** One account's stream to judge, with its thresholds. */
export interface FreshnessTarget {
  account: string;
  stream: string;
  thresholds: FreshnessThresholds;
}

/** Grace added to a missed interval: a twelfth of it (2 h of a daily schedule), between 5 minutes and 2 hours. */
function graceOf(intervalMs: number): number {
  return Math.min(Math.max(intervalMs / 12, 5 * 60_000), 2 * 3_600_000);
}

/** Intervals already worked out, by schedule and time zone: the same for every status and scrape. */
const intervals = new Map<string, number>();

/**
 * The longest gap between two times of a cron schedule over its next 200 times (at most two
 * weeks), in its time zone: a schedule that runs on weekdays only is late after its weekend gap,
 * not after a day.
 */
export function scheduleIntervalMs(schedule: string, timeZone: string): number {
  const key = `${schedule}\u0000${timeZone}`;
  const known = intervals.get(key);
  if (known !== undefined) return known;
  // Twenty times reach past two weeks for a daily schedule; each time costs about a millisecond.
  let times = nextCronTimes(schedule, timeZone, 20).map((time) => time.getTime());
  const horizon = times[0] + 15 * 86_400_000;
  if (times[times.length - 1] < horizon)
    times = nextCronTimes(schedule, timeZone, 200).map((time) => time.getTime());
  let longest = 0;
  for (let i = 1; i < times.length && times[i - 1] <= horizon; i++)
    longest = Math.max(longest, times[i] - times[i - 1]);
  intervals.set(key, longest);
  return longest;
}

/**
 * A stream's thresholds: `streams.<name>.freshness` where set, else derived from its schedule:
 * warn after one missed interval plus a grace, error after two (26 h and 50 h for a daily stream).
 */
export function freshnessThresholds(
  config: Config,
  stream: StreamName,
  timeZone: string,
): FreshnessThresholds {
  const settings = config.streams[stream];
  const { warnAfter, errorAfter } = settings.freshness;
  if (warnAfter !== undefined && errorAfter !== undefined)
    return { warnAfterMs: warnAfter, errorAfterMs: errorAfter, from: 'config' };
  const interval = scheduleIntervalMs(settings.schedule, timeZone);
  const derivedWarn = interval + graceOf(interval);
  const derivedError = 2 * interval + graceOf(interval);
  const warnAfterMs =
    warnAfter ?? (errorAfter !== undefined ? Math.min(derivedWarn, errorAfter / 2) : derivedWarn);
  const errorAfterMs = errorAfter ?? Math.max(derivedError, warnAfterMs + interval);
  return { warnAfterMs, errorAfterMs, from: (warnAfter ?? errorAfter) !== undefined ? 'config' : 'schedule' };
}

/**
 * What freshness judges: every enabled stream of each account (or the streams named), with its
 * thresholds in the account's time zone.
 */
export function freshnessTargets(
  config: Config | Pick<Config, 'streams'>,
  accounts: readonly { id: string; timeZone: string }[],
  streams?: readonly StreamName[],
): FreshnessTarget[] {
  const names = (streams ?? (Object.keys(config.streams) as StreamName[])).filter(
    (stream) => streams !== undefined || config.streams[stream].enabled,
  );
  return accounts.flatMap((account) =>
    names.map((stream) => ({
      account: account.id,
      stream,
      thresholds: freshnessThresholds(config as Config, stream, account.timeZone),
    })),
  );
}

/** Judges one stream from its last success and the day its cursors reached, at `now`. */
export function judgeFreshness(
  target: FreshnessTarget,
  facts: { lastSuccessAt: Date | null; reachedDay: string | null; lastRunStatus: string | null },
  now: Date,
): StreamFreshness {
  const { warnAfterMs, errorAfterMs, from } = target.thresholds;
  const base = {
    account: target.account,
    stream: target.stream,
    lastSuccessAt: facts.lastSuccessAt?.toISOString() ?? null,
    reachedDay: facts.reachedDay,
    warnAfterMs,
    errorAfterMs,
  };
  const thresholds =
    `warn after ${formatSpan(warnAfterMs)}, ` +
    `error after ${formatSpan(errorAfterMs)}${from === 'schedule' ? ' (from its schedule)' : ''}`;
  if (!facts.lastSuccessAt) {
    const tried = facts.lastRunStatus ? `its runs so far ended ${facts.lastRunStatus}` : 'it never ran';
    return { ...base, state: 'error', reason: `no successful run yet (${tried}); run propsync sync` };
  }
  const age = now.getTime() - facts.lastSuccessAt.getTime();
  const reached = facts.reachedDay ? `; its data reaches ${facts.reachedDay}` : '';
  const last = `last success ${formatSpan(age)} ago${reached}`;
  const failing =
    facts.lastRunStatus && facts.lastRunStatus !== 'succeeded'
      ? `; its last run ended ${facts.lastRunStatus}`
      : '';
  if (age >= errorAfterMs) return { ...base, state: 'error', reason: `${last}${failing} (${thresholds})` };
  if (age >= warnAfterMs) return { ...base, state: 'warn', reason: `${last}${failing} (${thresholds})` };
  return { ...base, state: 'ok', reason: `${last} (${thresholds})` };
}

/** What the warehouse says of one account's stream. */
interface FreshnessFacts {
  account: string;
  stream: string;
  last_success_at: Date | null;
  last_run_status: string | null;
  reached_day: string | null;
}

/**
 * Reads the freshness of each target from the warehouse (runs and cursors) and judges it at
 * `now` (default: the database's clock).
 */
export async function readFreshness(
  db: Db,
  targets: readonly FreshnessTarget[],
  options: { now?: Date } = {},
): Promise<StreamFreshness[]> {
  if (targets.length === 0) return [];
  const accounts = targets.map((target) => target.account);
  const streams = targets.map((target) => target.stream);
  // A scope's reach is its latest cursor day; the stream's, the earliest scope (its laggard).
  const { rows } = await sql<FreshnessFacts & { now: Date }>`
    with target as (
      select distinct * from unnest(${accounts}::text[], ${streams}::text[]) as t(account, stream)
    )
    select t.account, t.stream, now() as now,
           (select max(r.finished_at) from sync_runs r
             where r.account_id = t.account and t.stream = any(r.streams) and r.status = 'succeeded')
             as last_success_at,
           (select r.status from sync_runs r
             where r.account_id = t.account and t.stream = any(r.streams) and r.status not in ('running')
             order by r.run_id desc limit 1) as last_run_status,
           coalesce(
             (select min(scope_day) from (
                select max(c.value) as scope_day from sync_cursors c
                 where c.account_id = t.account and c.stream = t.stream
                 group by c.scope) as s),
             (select r.source_today from sync_runs r
               where r.account_id = t.account and t.stream = any(r.streams) and r.status = 'succeeded'
               order by r.run_id desc limit 1))::text as reached_day
      from target t`.execute(db);
  const byKey = new Map(rows.map((row) => [`${row.account}\u0000${row.stream}`, row]));
  const now = options.now ?? rows[0]?.now ?? new Date();
  return targets.map((target) => {
    const row = byKey.get(`${target.account}\u0000${target.stream}`);
    return judgeFreshness(
      target,
      {
        lastSuccessAt: row?.last_success_at ?? null,
        reachedDay: row?.reached_day ?? null,
        lastRunStatus: row?.last_run_status ?? null,
      },
      now,
    );
  });
}

/** The worst of some states (`ok` when there are none). */
export function worstFreshness(states: readonly FreshnessState[]): FreshnessState {
  return states.reduce<FreshnessState>(
    (worst, state) => (FRESHNESS_STATES.indexOf(state) > FRESHNESS_STATES.indexOf(worst) ? state : worst),
    'ok',
  );
}
