import { sql } from 'kysely';
import type { Db } from '../catalog/tables.js';
import type { Logger } from '../log/logger.js';
import { updateGroups, type MaintainedView } from './maintained-groups.js';
import { REPORTING_PRIVATE_SCHEMA, REPORTING_SCHEMA, REPORTING_VIEWS } from './views.js';
import { messageOf } from '../log/errors.js';
import { refreshCoalesced, underRefreshLock } from './coalesce-refresh.js';

/** The views kept in tables, group by group or account by account: each, a plain view over them, is updated. */
const MAINTAINED: readonly MaintainedView[] = REPORTING_VIEWS.flatMap((view) =>
  view.maintained ? [view.maintained] : [],
);

/** Memory each sort or hash of a refresh may use. */
const REFRESH_WORK_MEM = '128MB';

/** How long a view's refresh waits for a lock before it skips the view until the next run. */
export const REFRESH_LOCK_TIMEOUT_MS = 5_000;

/** SQLSTATE lock_not_available: a lock wait ran past `lock_timeout`. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * What a refresh did: views refreshed (or brought up to date), and views skipped because a lock could not be
 * had in time.
 */
export interface RefreshOutcome {
  refreshed: string[];
  skipped: string[];
}

/** How a refresh runs: the "today" of the views, and how long a view may wait for its lock or run. */
export interface RefreshOptions {
  /** The default time zone: of reporting.today(), and of an account not in `accounts`. */
  timeZone: string;
  /** The configured accounts with their time zones: each account's rows take its own day. */
  accounts?: readonly { id: string; timeZone: string }[];
  lockTimeoutMs?: number;
  /** statement_timeout of each view's refresh (default: the session's). */
  statementTimeoutMs?: number;
  /**
   * Refresh views side by side, each on a connection of the pool, as soon as the views it reads
   * are refreshed (default: one after the other, on whatever connection `db` gives).
   */
  parallel?: boolean;
  /** Every view made again from the whole warehouse, whatever was written (`propsync reporting rebuild`). */
  rebuild?: boolean;
}

/**
 * Brings the reporting layer up to date after a sync: stores the configured time zone where the
 * views read "today" from (`reporting.settings`) and each account's day, then brings each view
 * kept in a table up to date (in `reporting_private`, read through the views of `reporting` of the
 * same names), each in a transaction of its own, after the ones it reads (`properties` first); side
 * by side (`parallel`), a view kept in a table waits for none (its rows are made from the synced
 * tables; the views it joins, such as `properties` for names, are read when it is read).
 * Every one is kept in a table of rows (`MAINTAINED`): `ar_activity_monthly` and
 * `vendor_spend_monthly` group by group, `properties` and `occupancy_monthly` account by account;
 * the groups or accounts written since (and for occupancy, accounts whose day moved) are made
 * again (updateGroups), and readers see a group's old rows or its new ones, never a half. A
 * materialized view, should a definition declare one, is refreshed CONCURRENTLY (a plain refresh
 * when never populated). With `rebuild`, every view is made again from the whole warehouse. A view
 * whose lock is not had within `lockTimeoutMs` (another refresh, a maintenance command) is skipped
 * and keeps its rows until the next run brings it up to date. Should one fail otherwise, no view
 * starts after it, and the error is thrown once those under way end.
 */
export async function refreshReporting(db: Db, options: RefreshOptions): Promise<RefreshOutcome> {
  const lockTimeout = sql.lit(`${options.lockTimeoutMs ?? REFRESH_LOCK_TIMEOUT_MS}ms`);
  await setReportingTimeZone(db, options.timeZone);
  await setAccountDays(db, options.accounts ?? []);
  const maintainedNames = MAINTAINED.map((view) => view.view);
  const { rows: found } = await sql<{ name: string; populated: boolean; plain: boolean; reads: string[] }>`
    select m.relname as name,
           m.relispopulated as populated,
           m.relkind = 'v' as plain,
           coalesce((select array_agg(distinct u.relname::text)
                       from pg_rewrite r
                       join pg_depend d on d.classid = 'pg_rewrite'::regclass and d.objid = r.oid
                       join pg_class u on u.oid = d.refobjid and u.oid <> m.oid
                        and (u.relkind = 'm' or (u.relkind = 'v' and u.relnamespace = m.relnamespace
                                                 and u.relname = any(${maintainedNames}::text[])))
                      where r.ev_class = m.oid), '{}'::text[]) as reads
      from pg_class m
     where m.relnamespace = ${REPORTING_PRIVATE_SCHEMA}::regnamespace
       and (m.relkind = 'm' or (m.relkind = 'v' and m.relname = any(${maintainedNames}::text[])))
     order by m.relname`.execute(db);
  const rows = found.map((view) => ({
    ...view,
    maintained: view.plain ? MAINTAINED.find((maintained) => maintained.view === view.name) : undefined,
  }));
  const outcome: RefreshOutcome = { refreshed: [], skipped: [] };
  let failure: { error: unknown } | undefined;
  const refresh = async (view: (typeof rows)[number]) => {
    if (failure) return;
    const target = sql.id(REPORTING_PRIVATE_SCHEMA, view.name);
    try {
      // The groups' update takes its lock before its snapshot (see updateGroups).
      const transaction = view.maintained
        ? db.transaction().setIsolationLevel('repeatable read')
        : db.transaction();
      await transaction.execute(async (trx) => {
        await sql`set local lock_timeout = ${lockTimeout}`.execute(trx);
        if (options.statementTimeoutMs !== undefined)
          await sql`set local statement_timeout = ${sql.lit(`${options.statementTimeoutMs}ms`)}`.execute(trx);
        // The aggregates sort a whole ledger: in memory, not in temporary files of 4 MB sorts.
        await sql`set local work_mem = ${sql.lit(REFRESH_WORK_MEM)}`.execute(trx);
        // No query compiled (JIT, from an estimated cost of 100,000 on): compiling took most of
        // the occupancy refresh and slowed vendor spend (docs/benchmark.md#measured-choices-in-the-code).
        await sql`set local jit = off`.execute(trx);
        if (view.maintained) {
          await updateGroups(trx, view.maintained, options.rebuild);
          return;
        }
        await (
          view.populated
            ? sql`refresh materialized view concurrently ${target}`
            : sql`refresh materialized view ${target}`
        ).execute(trx);
        await sql`analyze ${target}`.execute(trx);
      });
      outcome.refreshed.push(view.name);
    } catch (error) {
      if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) outcome.skipped.push(view.name);
      else failure ??= { error };
    }
  };
  const order = refreshOrder(rows);
  if (options.parallel) {
    // A materialized view waits for the views it reads, then goes: the order puts those first. A
    // kept view's rows read the synced tables only: it waits for none.
    const finished = new Map<string, Promise<void>>();
    for (const view of order)
      finished.set(
        view.name,
        Promise.all((view.maintained ? [] : view.reads).map((name) => finished.get(name))).then(() =>
          refresh(view),
        ),
      );
    await Promise.all(finished.values());
  } else {
    for (const view of order) await refresh(view);
  }
  if (failure) throw failure.error;
  return outcome;
}

/** Orders materialized views so that each comes after those it reads. */
function refreshOrder<T extends { name: string; reads: string[] }>(views: T[]): T[] {
  const byName = new Map(views.map((view) => [view.name, view]));
  const done = new Set<string>();
  const order: T[] = [];
  const visit = (view: T) => {
    if (done.has(view.name)) return;
    done.add(view.name);
    for (const name of view.reads) {
      const read = byName.get(name);
      if (read) visit(read);
    }
    order.push(view);
  };
  views.forEach(visit);
  return order;
}

/**
 * Stores the time zone the views take "today" in, and how many days the source's today runs
 * ahead of the server's in that zone: the latest run's source_today against the day it started
 * on. That is 0 against the real source; a simulator's clock may run ahead. Writes only on change.
 */
async function setReportingTimeZone(db: Db, timeZone: string): Promise<void> {
  await sql`
    with latest as (
      select coalesce((select r.source_today - (r.started_at at time zone ${timeZone})::date
                         from public.sync_runs r
                        where r.source_today is not null
                        order by r.run_id desc
                        limit 1), 0) as offset_days
    )
    update reporting.settings
       set time_zone = ${timeZone}, source_day_offset = latest.offset_days, updated_at = now()
      from latest
     where (time_zone, source_day_offset) is distinct from (${timeZone}, latest.offset_days)`.execute(db);
}

/**
 * Stores each account's time zone, the day its source last reported (its latest run's
 * source_today) and how far that ran ahead of the server's day in that zone when the run started
 * (0 against the real source), where its rows' views read them. One statement for all accounts;
 * writes only on change.
 */
async function setAccountDays(db: Db, accounts: readonly { id: string; timeZone: string }[]): Promise<void> {
  if (accounts.length === 0) return;
  await sql`
    with wanted as (
      select a.account_id, a.time_zone, l.source_today, coalesce(l.offset_days, 0) as source_day_offset
        from unnest(${accounts.map((account) => account.id)}::text[],
                    ${accounts.map((account) => account.timeZone)}::text[]) as a(account_id, time_zone)
        left join lateral (
          select r.source_today, r.source_today - (r.started_at at time zone a.time_zone)::date as offset_days
            from public.sync_runs r
           where r.account_id = a.account_id and r.source_today is not null
           order by r.run_id desc
           limit 1) l on true
    )
    insert into reporting_private.account_settings as s (account_id, time_zone, source_today, source_day_offset)
    select account_id, time_zone, source_today, source_day_offset from wanted
    on conflict (account_id) do update
       set time_zone = excluded.time_zone, source_today = excluded.source_today,
           source_day_offset = excluded.source_day_offset, updated_at = now()
     where (s.time_zone, s.source_today, s.source_day_offset)
           is distinct from (excluded.time_zone, excluded.source_today, excluded.source_day_offset)`.execute(
    db,
  );
}

/**
 * refreshReporting at the end of a sync run, timed and logged, coalesced with the runs that end
 * meanwhile (coalesce-refresh.ts): a run that finds another refreshing leaves its request to it and
 * logs reporting_refresh_coalesced. A failure is logged, not thrown: the run's data is committed
 * whatever happens to the reporting layer, and the next run retries. A view skipped for its lock
 * is a warning: it keeps its rows until then.
 */
export async function refreshAfterSync(
  db: Db,
  timeZone: string,
  logger: Pick<Logger, 'info' | 'warn'>,
  options: Omit<RefreshOptions, 'timeZone'> = {},
): Promise<void> {
  const started = Date.now();
  try {
    const { passes } = await refreshCoalesced(db, () => refreshReporting(db, { timeZone, ...options }));
    const durationMs = Date.now() - started;
    if (passes.length === 0) {
      logger.info(
        { event: 'reporting_refresh_coalesced', durationMs },
        'another session is refreshing the reporting views: it refreshes them for this run too',
      );
      return;
    }
    const refreshed = [...new Set(passes.flatMap((pass) => pass.refreshed))];
    const { skipped } = passes[passes.length - 1];
    logger.info(
      { event: 'reporting_refreshed', views: refreshed, skipped, passes: passes.length, durationMs },
      `refreshed ${refreshed.length} reporting views in ${durationMs} ms`,
    );
    if (skipped.length) {
      logger.warn(
        { event: 'reporting_refresh_skipped', views: skipped },
        `skipped refreshing ${skipped.map((name) => `${REPORTING_SCHEMA}.${name}`).join(', ')}: ` +
          'another session held a conflicting lock; they keep their rows until the next sync refreshes them',
      );
    }
  } catch (error) {
    const message = messageOf(error);
    logger.warn(
      { event: 'reporting_refresh_failed', err: message },
      `could not refresh the reporting views: ${message}; the next sync tries again`,
    );
  }
}

/**
 * Makes every view of the reporting layer again from the whole warehouse (`propsync reporting
 * rebuild`, for repair), after any refresh under way, which it keeps from starting meanwhile.
 */
export async function rebuildReporting(db: Db, options: RefreshOptions): Promise<RefreshOutcome> {
  return underRefreshLock(db, () => refreshReporting(db, { ...options, rebuild: true }));
}
