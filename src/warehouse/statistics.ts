import { sql, type RawBuilder } from 'kysely';
import { isLockTimeout } from './connection-errors.js';
import { ACCOUNT_COLUMN, type AnyDatabase } from './schema.js';

/**
 * How much a table may grow (its size on disk against the last measure of it) before its statistics are taken again.
 */
const GROWTH = 1.2;

/** Blocks of 8 kB below which a table's statistics do not matter. */
const MIN_BLOCKS = 8;

/** How long an ANALYZE waits for its table's lock (autovacuum's own ANALYZE, say) before it leaves the table to it. */
const ANALYZE_LOCK_TIMEOUT = '5s';

/** The tables of the current schema named in `tables`, as `c` (`pg_class`). */
function tablesAmong(tables: readonly string[]): RawBuilder<boolean> {
  return sql<boolean>`c.relnamespace = current_schema()::regnamespace and c.relkind = 'r'
                      and c.relname = any(${tables as string[]}::text[])`;
}

/** The size on disk of table `c`, in blocks: exact at once, where its statistics wait for ANALYZE. */
const BLOCKS = sql<number>`(pg_relation_size(c.oid) / current_setting('block_size')::int)`;

/**
 * Brings Postgres's statistics of the tables up to date where they have fallen far behind: a
 * table never measured (by ANALYZE or VACUUM) that now holds data, or one that grew by more than
 * a fifth since (a full load, a backfill; seldom a nightly run). Told by the table's size on
 * disk, which is exact at once, where the counts of changed rows that autovacuum goes by reach
 * the statistics seconds after their commit. Autovacuum would get there minutes later;
 * meanwhile the next run and the reporting refresh would plan on tables taken for empty. Side by
 * side on the pool's connections; a table whose lock is held (autovacuum analyzing it already)
 * is left to that. Returns the tables analyzed.
 */
export async function analyzeChanged(db: AnyDatabase, tables: readonly string[]): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name
      from pg_class c
     where ${tablesAmong(tables)} and ${BLOCKS} > c.relpages * ${sql.lit(GROWTH)} + ${sql.lit(MIN_BLOCKS)}
     order by c.relpages desc`.execute(db);
  const analyzed = await Promise.all(
    rows.map(async ({ name }) =>
      (await analyzeUnlessLocked(db, name, ANALYZE_LOCK_TIMEOUT)) ? name : undefined,
    ),
  );
  return analyzed.filter((name): name is string => name !== undefined);
}

/**
 * How long an ANALYZE during a run waits for its table's lock before leaving the table to whoever holds it
 * (autovacuum, another process).
 */
const IN_RUN_LOCK_TIMEOUT = '200ms';

/** How often a run looks again at a stream's tables it could not settle yet (too small, none of the account's rows). */
const RECHECK_MS = 5_000;

/**
 * Statistics taken while a run loads, where Postgres's would mislead the run's own statements: a
 * table never measured, or whose statistics list every account they saw but not this one, is
 * planned as holding none or a few of the account's rows, and each page's key lookups and merges
 * then read all of them (a full load into a new warehouse, a new account's first load: reading a
 * table that grows as it is read). Such a table is analyzed as soon as it holds the account's
 * rows (at least `MIN_BLOCKS` in all), once per table and account. Measures of size come after the
 * run (`analyzeChanged`).
 */
export class LoadStatistics {
  /** `account\ttable` of the tables settled: measured with the account, or analyzed by this process. */
  private readonly settled = new Set<string>();
  private readonly checkedAt = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<string[]>>();

  constructor(private readonly db: AnyDatabase) {}

  /**
   * After a page inserted rows of `account` into (some of) `tables`: analyzes those whose
   * statistics do not know the account yet. Returns the tables analyzed. Throws what Postgres
   * throws (the caller logs it; the load goes on).
   */
  async afterInsert(tables: readonly string[], account: string, now = Date.now()): Promise<string[]> {
    const open = tables.filter((table) => !this.settled.has(`${account}\t${table}`));
    if (open.length === 0) return [];
    const key = `${account}\t${tables.join(',')}`;
    const running = this.inFlight.get(key);
    if (running) return running.then(() => []);
    if (now - (this.checkedAt.get(key) ?? -Infinity) < RECHECK_MS) return [];
    this.checkedAt.set(key, now);
    const work = this.settle(open, account).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, work);
    return work;
  }

  private async settle(tables: readonly string[], account: string): Promise<string[]> {
    const states = await statisticsStates(this.db, tables, account);
    const analyzed: string[] = [];
    await Promise.all(
      states.map(async ({ name, holdsAccount, knowsAccount }) => {
        if (!holdsAccount) return;
        if (!knowsAccount && (await analyzeUnlessLocked(this.db, name, IN_RUN_LOCK_TIMEOUT)))
          analyzed.push(name);
        // Analyzed once by this process (or left to whoever held the lock): the account's share may
        // still be underrated, but no longer taken for none.
        this.settled.add(`${account}\t${name}`);
      }),
    );
    return analyzed.sort();
  }
}

/**
 * Of each table: whether it holds rows of the account (and `MIN_BLOCKS` in all), and whether its statistics
 * know the account.
 */
async function statisticsStates(
  db: AnyDatabase,
  tables: readonly string[],
  account: string,
): Promise<{ name: string; holdsAccount: boolean; knowsAccount: boolean }[]> {
  const holding = sql.join(
    tables.map(
      (table) =>
        sql`select ${table}::text as name
             where exists (select 1 from ${sql.table(table)} where ${sql.ref(ACCOUNT_COLUMN)} = ${account})`,
    ),
    sql` union all `,
  );
  const { rows } = await sql<{ name: string; holdsAccount: boolean; knowsAccount: boolean }>`
    with holding as (${holding})
    select c.relname as name,
           (h.name is not null and ${BLOCKS} >= ${sql.lit(MIN_BLOCKS)}) as "holdsAccount",
           exists (
              select 1 from pg_stats s
               where s.schemaname = current_schema() and s.tablename = c.relname and s.attname = ${ACCOUNT_COLUMN}
                 and (${account}::text = any(s.most_common_vals::text::text[])
                      or s.n_distinct < 0
                      or coalesce(array_length(s.most_common_vals::text::text[], 1), 0) < s.n_distinct)
           ) as "knowsAccount"
      from pg_class c left join holding h on h.name = c.relname
     where ${tablesAmong(tables)}`.execute(db);
  return rows;
}

/**
 * The statistics target of a run's own ANALYZE: a sample of 3,000 rows (300 a unit of target), a tenth of
 * Postgres's default, which is enough to plan the run's lookups and the reporting refresh on.
 */
const QUICK_STATISTICS_TARGET = 10;

/**
 * A quick ANALYZE of one table in a transaction of its own; false when its lock stayed held (autovacuum
 * analyzing it, say) for `lockTimeout`. Quick: a small sample (`QUICK_STATISTICS_TARGET`), and every column
 * named, because an ANALYZE that names its columns leaves the table's count of changes as it was, so that
 * autovacuum still takes its full measure soon after, for the analysts' queries. Where autovacuum is off
 * (for the server or the table), nobody would: the run takes the full measure itself.
 */
async function analyzeUnlessLocked(db: AnyDatabase, table: string, lockTimeout: string): Promise<boolean> {
  return db
    .transaction()
    .execute(async (trx) => {
      await sql`set local lock_timeout = ${sql.lit(lockTimeout)}`.execute(trx);
      const { rows } = await sql<{ columns: string[]; autoAnalyzed: boolean }>`
        select array(select a.attname::text from pg_attribute a
                       where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as columns,
               current_setting('autovacuum')::boolean and current_setting('track_counts')::boolean
               and coalesce((select o.option_value::boolean from pg_options_to_table(c.reloptions) o
                              where o.option_name = 'autovacuum_enabled'), true) as "autoAnalyzed"
          from pg_class c where c.oid = ${table}::regclass`.execute(trx);
      if (rows[0]?.autoAnalyzed) {
        await sql`set local default_statistics_target = ${sql.lit(QUICK_STATISTICS_TARGET)}`.execute(trx);
        await sql`analyze ${sql.table(table)} (${sql.join(rows[0].columns.map((name) => sql.ref(name)))})`.execute(
          trx,
        );
      } else await sql`analyze ${sql.table(table)}`.execute(trx);
      return true;
    })
    .catch((error: unknown) => {
      if (isLockTimeout(error)) return false;
      throw error;
    });
}
