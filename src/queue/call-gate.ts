/**
 * The pacing and daily budget of an account shared by every process through the warehouse: one
 * `source_pacing` row per account and method, one `source_budget` row per account and day,
 * each call reserved from both in one statement. Why: docs/operating.md#workers.
 */
import { sql } from 'kysely';
import type { Db } from '../catalog/tables.js';
import type { RateWindowState } from '../source/rate-headers.js';
import type { CallGate } from '../source/types.js';
import { prepared } from '../warehouse/prepared.js';
import type { Reconnect } from '../warehouse/reconnect.js';

/**
 * Windows up to this long are spread evenly (their limit less the reserve, over their length); longer ones
 * by their count.
 */
const SPREAD_WINDOWS_UP_TO_MS = 600_000;

/** The gap between starts before any reply has announced the method's limits. */
const FIRST_INTERVAL_MS = 1_000;

/** What the gate reads of an account. */
export interface GatedAccount {
  id: string;
  timeZone: string;
  source: { dailyCallBudget: number; rateLimit: { reserve: number; minIntervalMs: number } };
}

/** The least gap between two starts the announced windows allow, keeping `reserve` calls of each. */
export function intervalOf(
  windows: readonly RateWindowState[],
  reserve: number,
  minIntervalMs: number,
): number {
  let interval = minIntervalMs;
  for (const window of windows) {
    if (
      window.limit === undefined ||
      window.lengthMs === undefined ||
      window.lengthMs > SPREAD_WINDOWS_UP_TO_MS
    )
      continue;
    interval = Math.max(interval, Math.ceil(window.lengthMs / Math.max(1, window.limit - reserve)));
  }
  return interval;
}

/**
 * The gate of one account on the warehouse (see the module comment): the one place a call is booked
 * against the day's budget, whichever process makes it. `spentToday` is the day's booking when it
 * is opened (until the first reservation says). Its statements ride out a lost warehouse
 * connection through `reconnect`, as the engine's own do.
 */
export function createCallGate(
  db: Db,
  account: GatedAccount,
  reconnect: Reconnect,
  spentToday = 0,
): CallGate {
  const { reserve, minIntervalMs } = account.source.rateLimit;
  const budget = account.source.dailyCallBudget;
  let left = Math.max(0, budget - spentToday);
  // Until a reply tells the limits, calls go one a second.
  const firstInterval = Math.max(minIntervalMs, FIRST_INTERVAL_MS);
  return {
    async reserve(method) {
      const { rows } = await reconnect.execute(() =>
        prepared(sql<{ wait_ms: number | null; spent: number }>`
        with budget as (
          insert into source_budget as b (account_id, day, spent)
          values (${account.id}, (now() at time zone ${account.timeZone})::date, 1)
          on conflict (account_id, day) do update set spent = b.spent + 1
           where b.spent < ${account.source.dailyCallBudget}
          returning spent
        ), turn as (
          insert into source_pacing as p (account_id, method, next_at, interval_ms)
          select ${account.id}, ${method}, now() + make_interval(secs => ${firstInterval / 1000}::float8),
                 ${firstInterval}::int
            from budget
          on conflict (account_id, method) do update set
            next_at = greatest(now(), p.next_at,
                               case when p.remaining <= ${reserve} and p.reset_at > now()
                                     then p.reset_at + interval '1 second' end)
                      + make_interval(secs => p.interval_ms / 1000.0),
            remaining = p.remaining - 1
          returning case when xmax = 0 then now()
                          else next_at - make_interval(secs => interval_ms / 1000.0) end as start_at
        )
        select (select greatest(0, extract(epoch from start_at - now()) * 1000)::float8 from turn) as wait_ms, spent
          from budget`).execute(db),
      );
      if (rows.length === 0) {
        left = 0;
        return null;
      }
      left = Math.max(0, budget - rows[0]!.spent);
      return Math.ceil(rows[0]!.wait_ms ?? 0);
    },
    async release(method) {
      const { rows } = await reconnect.execute(() =>
        sql<{ spent: number }>`
        with back as (
          update source_pacing set remaining = remaining + 1 where account_id = ${account.id} and method = ${method}
        )
        update source_budget set spent = greatest(spent - 1, 0)
         where account_id = ${account.id} and day = (now() at time zone ${account.timeZone})::date
        returning spent`.execute(db),
      );
      if (rows.length) left = Math.max(0, budget - rows[0]!.spent);
    },
    left: () => left,
    async observe(method, windows) {
      const interval = intervalOf(windows, reserve, minIntervalMs);
      // Short windows are paced by the interval; the long ones (hour, day) by what they have left.
      const long = windows.filter(
        (window) =>
          Number.isFinite(window.remaining) && !((window.lengthMs ?? Infinity) <= SPREAD_WINDOWS_UP_TO_MS),
      );
      const tightest = long.length ? long.reduce((a, b) => (b.remaining < a.remaining ? b : a)) : undefined;
      const resetMs = tightest ? (tightest.resetMs ?? tightest.lengthMs ?? 3_600_000) : 0;
      const left = tightest
        ? sql`,
          remaining = case when reset_at is null or reset_at < now()
                                or now() + make_interval(secs => ${resetMs / 1000}::float8)
                                   > reset_at + interval '1 second'
                           then ${tightest.remaining}::int else least(remaining, ${tightest.remaining}::int) end,
          reset_at = now() + make_interval(secs => ${resetMs / 1000}::float8)`
        : sql``;
      await reconnect.execute(() =>
        sql`
        update source_pacing set
          interval_ms = ${interval}::int,
          next_at = least(next_at, now() + make_interval(secs => ${interval / 1000}::float8))${left}
        where account_id = ${account.id} and method = ${method}`.execute(db),
      );
    },
  };
}
