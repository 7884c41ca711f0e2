import { sql, type Kysely } from 'kysely';
import { REPORTING_SCHEMA } from './views.js';

/**
 * Brings the reporting layer up to date after a sync: stores the configured time zone where the
 * views read "today" from (`reporting.settings`), and refreshes the materialized views of
 * `reporting`, concurrently (readers keep the old rows meanwhile) when one has a unique index.
 * Returns the materialized views refreshed.
 */
export async function refreshReporting(db: Kysely<any>, options: { timeZone: string }): Promise<string[]> {
  await setReportingTimeZone(db, options.timeZone);
  const { rows } = await sql<{ name: string; unique: boolean }>`
    select m.matviewname as name,
           exists (select 1 from pg_index x where x.indrelid = format('%I.%I', m.schemaname, m.matviewname)::regclass and x.indisunique) as unique
      from pg_matviews m
     where m.schemaname = ${REPORTING_SCHEMA}
     order by m.matviewname`.execute(db);
  for (const view of rows) {
    const target = sql.id(REPORTING_SCHEMA, view.name);
    await (view.unique ? sql`refresh materialized view concurrently ${target}` : sql`refresh materialized view ${target}`).execute(db);
  }
  return rows.map((row) => row.name);
}

/** Stores the time zone the views take "today" in; writes only when it changed. */
export async function setReportingTimeZone(db: Kysely<any>, timeZone: string): Promise<void> {
  await sql`
    update reporting.settings set time_zone = ${timeZone}, updated_at = now()
     where time_zone is distinct from ${timeZone}`.execute(db);
}
