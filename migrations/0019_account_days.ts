import { sql, type Kysely } from 'kysely';

/**
 * One "today" per account (issue 44): the views took today from the one time zone of
 * reporting.settings, written by whichever account synced last. Each account's time zone, the
 * day its source last reported and how far that runs ahead of the server's day are kept here,
 * written at the end of each sync, and every view takes its row's account's day from
 * reporting_private.account_today (an account no sync has written yet: reporting.today(), the
 * default zone of reporting.settings). Readers ask reporting.today(account_id).
 *
 * Every account the warehouse knows starts with the zone and offset the views used until now.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table reporting_private.account_settings (
      account_id text primary key check (account_id ~ '^[a-z0-9_-]{1,40}$'),
      time_zone text not null,
      source_today date,
      source_day_offset integer not null default 0,
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`comment on table reporting_private.account_settings is ${sql.lit(
    "Each account's time zone (accounts[].timeZone), the day its source last reported (the latest run's " +
      "source_today) and the days that runs ahead of the server's day in that zone; written at the end of each sync.",
  )}`.execute(db);
  await sql`
    insert into reporting_private.account_settings (account_id, time_zone, source_day_offset)
    select a.account_id, s.time_zone, s.source_day_offset
      from public.accounts a cross join reporting.settings s`.execute(db);
  // The session's reporting.now when set (a timestamptz), else the server's clock moved by the
  // source's day offset, in the account's zone: as reporting.today() does in the default zone.
  await sql`
    create or replace view reporting_private.account_today as
    select s.account_id,
           s.time_zone,
           s.source_today,
           coalesce((nullif(current_setting('reporting.now', true), '')::timestamptz at time zone s.time_zone)::date,
                    (now() at time zone s.time_zone)::date + s.source_day_offset) as today
      from reporting_private.account_settings s`.execute(db);
  await sql`comment on view reporting_private.account_today is ${sql.lit(
    "Each account's today, in its own time zone (reporting.now, when set for the session, taken as now).",
  )}`.execute(db);
  await sql`
    create function reporting.today(account text) returns date
    language sql stable security definer parallel safe
    set search_path = pg_catalog, pg_temp
    as $$
      select coalesce((select t.today from reporting_private.account_today t where t.account_id = account),
                      reporting.today())
    $$`.execute(db);
}

/**
 * The views made from their definitions read account_today, and a migration cannot make them
 * again (src/ is not frozen): it stays, empty, so that they take reporting.today() as before.
 */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function reporting.today(text)`.execute(db);
  await sql`
    create or replace view reporting_private.account_today as
    select null::text as account_id, null::text as time_zone, null::date as source_today, null::date as today
     where false`.execute(db);
  await sql`drop table reporting_private.account_settings`.execute(db);
}
