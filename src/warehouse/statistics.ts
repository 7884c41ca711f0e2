import { sql } from 'kysely';
import type { AnyDatabase } from './schema.js';

/** How long an ANALYZE waits for its table's lock (autovacuum's own ANALYZE, say) before it leaves the table to it. */
const ANALYZE_LOCK_TIMEOUT = '5s';

/**
 * Brings Postgres's statistics of the tables up to date where autovacuum would: those whose rows
 * changed since their last ANALYZE past `autovacuum_analyze_threshold` +
 * `autovacuum_analyze_scale_factor` × their rows (a full load, a backfill; seldom a nightly run).
 * Autovacuum would get there minutes later; meanwhile the next run and the reporting refresh
 * would plan on tables taken for empty. Side by side on the pool's connections; a table whose
 * lock is held (autovacuum analyzing it already) is left to that. Returns the tables analyzed.
 */
export async function analyzeChanged(db: AnyDatabase, tables: readonly string[]): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select s.relname as name
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
     where s.schemaname = current_schema() and s.relname = any(${tables as string[]}::text[])
       and s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8
                                   + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(c.reltuples, 0)
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
          if ((error as { code?: string }).code === '55P03') return undefined;
          throw error;
        }),
    ),
  );
  return analyzed.filter((name): name is string => name !== undefined);
}
