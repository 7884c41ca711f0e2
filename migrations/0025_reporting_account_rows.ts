import { sql, type Kysely } from 'kysely';
import { replaceReportingQuery } from './support/replace-reporting-query.js';

/**
 * Issue 41, item 1. `properties` and `occupancy_monthly`, the last materialized views, stop being
 * refreshed whole after every run: they are kept per account, as `ar_activity_monthly` is per group
 * since 0015 (src/reporting/maintained-groups.ts).
 *
 * - `reporting_private.properties_rows` and `occupancy_monthly_rows` hold the views' rows without
 *   the names (the views name the account and property when read). `propsync migrate` fills them
 *   and makes the views plain views over them (src/reporting/definitions/).
 * - `properties_dirty` and `occupancy_monthly_dirty` log the accounts written since their rows
 *   were last made, noted by statement triggers with transition tables: properties, leases and
 *   invoice lines for the first; leases, units and the unit status history for the second. A
 *   statement costs one `insert ... select distinct account_id`; a truncate notes every account.
 *   A log rather than a set (0015's dirty groups): a refresh takes no lock a writing run waits
 *   for, and forgets only the notes its snapshot saw.
 * - `reporting_refresh_requests` counts the refreshes asked for: runs that end while another
 *   refreshes leave their request there for it (src/reporting/coalesce-refresh.ts).
 *
 * `down` makes the two materialized views again as they were before. The SQL here is frozen.
 */

/** Notes the accounts of a statement's rows in the dirty table named by the trigger's argument. */
const NOTE_FUNCTION = sql`
  create function reporting_private.note_reporting_accounts() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog, pg_temp
  as $$
  declare
    target text := format('reporting_private.%I', tg_argv[0]);
  begin
    if tg_op = 'INSERT' then
      execute format('insert into %s (account_id) select distinct account_id from new_rows', target);
    elsif tg_op = 'UPDATE' then
      execute format('insert into %s (account_id) select account_id from old_rows union select account_id '
                     'from new_rows', target);
    elsif tg_op = 'DELETE' then
      execute format('insert into %s (account_id) select distinct account_id from old_rows', target);
    else
      execute format('insert into %s (account_id) select account_id from public.accounts', target);
    end if;
    return null;
  end $$`;

/** [dirty table, source tables]. */
const NOTED: [string, string[]][] = [
  ['properties_dirty', ['properties', 'leases', 'invoice_line_items']],
  ['occupancy_monthly_dirty', ['leases', 'units', 'unit_space_status_history']],
];

const EVENTS: [string, string][] = [
  ['insert', 'referencing new table as new_rows'],
  ['update', 'referencing old table as old_rows new table as new_rows'],
  ['delete', 'referencing old table as old_rows'],
  ['truncate', ''],
];

const triggerName = (dirty: string, event: string) => `${dirty.replace(/_dirty$/, '')}_accounts_${event}`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table reporting_private.properties_rows (
      account_id text not null,
      property_id bigint,
      property_name text,
      property_type text,
      parent_property_id bigint,
      lookup_code text,
      year_built integer,
      street text,
      city text,
      state text,
      postal_code text,
      country text,
      is_disabled boolean,
      ar_post_month date,
      ap_post_month date,
      constraint properties_rows_grain unique (account_id, property_id)
    )`.execute(db);
  await sql`
    create table reporting_private.occupancy_monthly_rows (
      account_id text not null,
      property_id bigint,
      month date not null,
      month_end date not null,
      as_of_date date not null,
      units_known integer,
      units_source text not null,
      units_occupied integer not null,
      occupancy_percent numeric,
      constraint occupancy_monthly_rows_grain unique (account_id, property_id, month)
    )`.execute(db);
  // An account's day, the latest as_of_date of its rows, found at once: a refresh checks every account's.
  await sql`
    create index occupancy_monthly_rows_day_idx
        on reporting_private.occupancy_monthly_rows (account_id, as_of_date)`.execute(db);
  // A log, not a set: a statement's note never waits for, nor is lost to, a refresh under way.
  for (const [dirty] of NOTED) {
    await sql`
      create table ${sql.id('reporting_private', dirty)} (
        id bigint generated always as identity primary key,
        account_id text not null
      )`.execute(db);
  }
  await sql`comment on table reporting_private.properties_rows is ${sql.lit(
    'The rows behind reporting.properties without the account name, made again per account written.',
  )}`.execute(db);
  await sql`comment on table reporting_private.occupancy_monthly_rows is ${sql.lit(
    'The rows behind reporting.occupancy_monthly without the names, made again per account written ' +
      'or whose day moved.',
  )}`.execute(db);
  await sql`comment on table reporting_private.properties_dirty is ${sql.lit(
    'Accounts whose properties, leases or invoice lines were written since their properties_rows were made.',
  )}`.execute(db);
  await sql`comment on table reporting_private.occupancy_monthly_dirty is ${sql.lit(
    'Accounts whose leases or unit inventory were written since their occupancy_monthly_rows were made.',
  )}`.execute(db);
  await sql`
    create table reporting_private.reporting_refresh_requests (
      singleton boolean primary key default true check (singleton),
      requested bigint not null default 0
    )`.execute(db);
  await sql`insert into reporting_private.reporting_refresh_requests default values`.execute(db);
  await sql`comment on table reporting_private.reporting_refresh_requests is ${sql.lit(
    'How many refreshes of the reporting layer runs asked for: one refresh serves those asked while it ran.',
  )}`.execute(db);
  await NOTE_FUNCTION.execute(db);
  for (const [dirty, tables] of NOTED)
    for (const table of tables)
      for (const [event, referencing] of EVENTS)
        await sql`
          create trigger ${sql.id(triggerName(dirty, event))} after ${sql.raw(event)} on ${sql.id('public', table)}
          ${sql.raw(referencing)} for each statement
          execute function reporting_private.note_reporting_accounts(${sql.lit(dirty)})`.execute(db);
}

/** reporting_private.properties before 0025, a materialized view. */
const PROPERTIES = sql`
    with listed as (select * from public.properties where deleted_at is null),
    named as (
      select n.account_id, n.property_id, max(n.property_name) as property_name
        from (select account_id, property_id, property_name
                from public.leases
               where deleted_at is null
              union all
              select account_id, property_id, property_name
                from public.invoice_line_items
               where deleted_at is null and property_id is not null) n
       group by n.account_id, n.property_id
    )
    select coalesce(l.account_id, n.account_id) as account_id,
           a.name as account_name,
           coalesce(l.property_id, n.property_id) as property_id,
           coalesce(l.marketing_name, n.property_name) as property_name,
           l.property_type, l.parent_property_id, l.lookup_code, l.year_built, l.street, l.city, l.state,
           l.postal_code, l.country, l.is_disabled, l.ar_post_month, l.ap_post_month
      from listed l
      full join named n on n.account_id = l.account_id and n.property_id = l.property_id
      left join public.accounts a on a.account_id = coalesce(l.account_id, n.account_id)`;

const TODAY = sql.raw('coalesce(z.today, z0.today)');

/** reporting_private.occupancy_monthly before 0025, a materialized view. */
const OCCUPANCY_MONTHLY = sql`
    with residential as (
      select l.account_id, l.property_id, l.unit_id, l.lease_status_type_id, l.move_in_date, l.move_out_date
        from public.leases l
       where l.deleted_at is null and l.is_other_income is not true and l.unit_id is not null
    ),
    units as (
      select account_id, property_id, count(distinct unit_id)::int as units_known,
             min(move_in_date) filter (where lease_status_type_id in (4, 5, 6)) as first_move_in
        from residential
       group by account_id, property_id
    ),
    months as (
      select u.account_id, u.property_id, u.units_known, m::date as month,
             least((m + interval '1 month - 1 day')::date, ${TODAY}) as as_of_date
        from units u
        left join reporting_private.account_today z on z.account_id = u.account_id
       cross join (select reporting.today() as today) z0
       cross join generate_series(date_trunc('month', least(coalesce(u.first_move_in, ${TODAY}), ${TODAY})),
                                  date_trunc('month', ${TODAY}), interval '1 month') m
    ),
    inventory as (
      select h.account_id, h.property_id, h.unit_id, h.valid_from, h.valid_to
        from public.unit_space_status_history h
        join public.units u on u.account_id = h.account_id and u.unit_id = h.unit_id
       where not u.is_other_income
    ),
    covered as (
      select account_id, property_id, min(valid_from) as first_day
        from inventory group by account_id, property_id
    ),
    inventory_units as (
      select m.account_id, m.property_id, m.month, count(distinct i.unit_id)::int as units
        from months m
        join inventory i on i.account_id = m.account_id and i.property_id = m.property_id
       where i.valid_from <= m.as_of_date and (i.valid_to is null or i.valid_to > m.as_of_date)
       group by m.account_id, m.property_id, m.month
    ),
    known as (
      select m.account_id, m.property_id, m.month, m.as_of_date,
             case when c.first_day <= m.as_of_date then coalesce(iu.units, 0) else m.units_known end
               as units_known,
             case when c.first_day <= m.as_of_date then 'inventory' else 'leases' end as units_source
        from months m
        left join covered c on c.account_id = m.account_id and c.property_id = m.property_id
        left join inventory_units iu
          on iu.account_id = m.account_id and iu.property_id = m.property_id and iu.month = m.month
    ),
    occupied as (
      select m.account_id, m.property_id, m.month, count(distinct r.unit_id)::int as units_occupied
        from months m
        join residential r on r.account_id = m.account_id and r.property_id = m.property_id
       where r.lease_status_type_id in (4, 5, 6)
         and r.move_in_date <= m.as_of_date
         and (r.move_out_date > m.as_of_date
              or (r.move_out_date is null and r.lease_status_type_id in (4, 5)))
       group by m.account_id, m.property_id, m.month
    )
    select m.account_id, a.name as account_name, m.property_id, p.property_name, m.month,
           (m.month + interval '1 month - 1 day')::date as month_end, m.as_of_date, k.units_known,
           k.units_source, coalesce(o.units_occupied, 0) as units_occupied,
           round(100.0 * coalesce(o.units_occupied, 0) / nullif(k.units_known, 0), 1) as occupancy_percent
      from months m
      join known k on k.account_id = m.account_id and k.property_id = m.property_id and k.month = m.month
      left join occupied o
        on o.account_id = m.account_id and o.property_id = m.property_id and o.month = m.month
      left join public.accounts a on a.account_id = m.account_id
      left join reporting_private.properties p on p.account_id = m.account_id and p.property_id = m.property_id`;

/**
 * The two materialized views made again as before (properties last: occupancy_monthly reads it),
 * with what reads them; their checksums go, so that `propsync migrate` makes them from src/ again.
 */
export async function down(db: Kysely<unknown>): Promise<void> {
  await replaceReportingQuery(db, 'occupancy_monthly', OCCUPANCY_MONTHLY, {
    kind: 'materialized view',
    indexes: [
      'create unique index occupancy_monthly_grain_idx on reporting_private.occupancy_monthly ' +
        '(account_id, property_id, month)',
    ],
  });
  await replaceReportingQuery(db, 'properties', PROPERTIES, {
    kind: 'materialized view',
    indexes: [
      'create unique index properties_grain_idx on reporting_private.properties (account_id, property_id)',
    ],
  });
  await sql`
    delete from reporting_private.view_definitions
     where name in ('properties', 'occupancy_monthly')`.execute(db);
  for (const [dirty, tables] of NOTED)
    for (const table of tables)
      for (const [event] of EVENTS)
        await sql`drop trigger ${sql.id(triggerName(dirty, event))} on ${sql.id('public', table)}`.execute(
          db,
        );
  await sql`drop function reporting_private.note_reporting_accounts()`.execute(db);
  await sql`
    drop table reporting_private.reporting_refresh_requests, reporting_private.properties_dirty,
               reporting_private.occupancy_monthly_dirty, reporting_private.properties_rows,
               reporting_private.occupancy_monthly_rows`.execute(db);
}
