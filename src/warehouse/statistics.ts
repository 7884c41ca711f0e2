import { sql } from 'kysely';
import { isLockTimeout } from './connection-errors.js';
import type { AnyDatabase } from './schema.js';

/** How much a table may grow (its size on disk against the last measure of it) before its statistics are taken again. */
const GROWTH = 1.2;

/** Blocks of 8 kB below which a table's statistics do not matter. */
const MIN_BLOCKS = 8;

/** How long an ANALYZE waits for its table's lock (autovacuum's own ANALYZE, say) before it leaves the table to it. */
const ANALYZE_LOCK_TIMEOUT = '5s';

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
     where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r' and c.relname = any(${tables as string[]}::text[])
       and pg_relation_size(c.oid) / current_setting('block_size')::int > c.relpages * ${sql.lit(GROWTH)} + ${sql.lit(MIN_BLOCKS)}
     order by c.relpages desc`.execute(db);
  const analyzed = await Promise.all(
    rows.map(({ name }) =>
      db
        .transaction()
        .execute(async (trx) => {
          await sql`set local lock_timeout = ${sql.lit(ANALYZE_LOCK_TIMEOUT)}`.execute(trx);
          await sql`analyze ${sql.table(name)}`.execute(trx);
          return name;
        })
        .catch((error: unknown) => {
          if (isLockTimeout(error)) return undefined;
          throw error;
        }),
    ),
  );
  return analyzed.filter((name): name is string => name !== undefined);
}
