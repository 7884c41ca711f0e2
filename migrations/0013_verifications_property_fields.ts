import { sql, type Kysely } from 'kysely';
import { replaceMaterializedView } from './support/replace-reporting-query.js';

/**
 * Issue 25. `sync_verifications`: one row per pass of `propsync verify` over an account (what
 * was read again, and per table how the warehouse differed from the source). The property
 * dimension keeps the getProperties fields it dropped until now: the parent property of a
 * parent/child property, the lookup code, the year built and the open AR and AP post months
 * (appended: Postgres adds a column at the end without rewriting the table; the rows loaded
 * before have them null until their record is read again).
 *
 * `reporting.properties` reads the property dimension (the properties table) rather than the
 * names its leases and invoice lines give: its name, kind, parent, lookup code, year built and
 * address. A property the dimension does not list (the properties stream disabled, or a property
 * the source stopped listing) keeps the name its leases and invoice lines give, so that every
 * view still names it (every other reporting relation joins it: replaceMaterializedView makes
 * them again). The SQL here is frozen.
 */
/** Names of the properties as leases and invoice lines give them (0011's query). */
const NAMED = sql`
  select named.account_id, named.property_id, max(named.property_name) as property_name
    from (select account_id, property_id, property_name from public.leases where deleted_at is null
          union all
          select account_id, property_id, property_name from public.invoice_line_items where deleted_at is null and property_id is not null) named
   group by named.account_id, named.property_id`;

/**
 * reporting_private.properties from 0013 on: the dimension first, the names of leases and invoice lines for
 * properties it does not list.
 */
const FROM_DIMENSION = sql`
  with listed as (select * from public.properties where deleted_at is null),
       named as (${NAMED})
  select coalesce(l.account_id, n.account_id) as account_id,
         a.name as account_name,
         coalesce(l.property_id, n.property_id) as property_id,
         coalesce(l.marketing_name, n.property_name) as property_name,
         l.property_type,
         l.parent_property_id,
         l.lookup_code,
         l.year_built,
         l.street,
         l.city,
         l.state,
         l.postal_code,
         l.country,
         l.is_disabled,
         l.ar_post_month,
         l.ap_post_month
    from listed l
    full join named n on n.account_id = l.account_id and n.property_id = l.property_id
    left join public.accounts a on a.account_id = coalesce(l.account_id, n.account_id)`;

/** reporting_private.properties as 0011 made it. */
const FROM_LEASES_AND_INVOICES = sql`
  select n.account_id, a.name as account_name, n.property_id, n.property_name
    from (${NAMED}) n
    left join public.accounts a on a.account_id = n.account_id`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sync_verifications (
      account_id text not null,
      verification_id bigserial not null,
      run_id bigint,
      pass text not null,
      selection text not null,
      streams text[] not null,
      property_ids bigint[] not null,
      started_at timestamptz not null default now(),
      finished_at timestamptz,
      status text not null,
      clean boolean not null,
      drift_rows integer not null default 0,
      tables jsonb not null default '[]',
      error text,
      primary key (account_id, verification_id)
    )`.execute(db);
  await sql`create index sync_verifications_finished_idx on sync_verifications (account_id, finished_at)`.execute(
    db,
  );
  await sql`create index sync_verifications_id_idx on sync_verifications (verification_id)`.execute(db);
  // Readers given the base tables see the accounts they may see here too, as on every table of 0011.
  await sql`alter table sync_verifications enable row level security`.execute(db);
  await sql`
    create policy account_readers on sync_verifications for all
      using ((select reporting_private.visible_accounts(current_user)) is null or account_id = any((select reporting_private.visible_accounts(current_user))::text[]))
      with check ((select reporting_private.visible_accounts(current_user)) is null or account_id = any((select reporting_private.visible_accounts(current_user))::text[]))`.execute(
    db,
  );
  await sql`
    alter table properties
      add column parent_property_id bigint,
      add column lookup_code text,
      add column year_built integer,
      add column ar_post_month date,
      add column ap_post_month date`.execute(db);
  // A property's record is read again in full at the next run (its digest no longer matches).
  await sql`update properties set source_hash = null, source_text_hash = null`.execute(db);
  await replaceMaterializedView(db, 'properties', FROM_DIMENSION);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await replaceMaterializedView(db, 'properties', FROM_LEASES_AND_INVOICES);
  await sql`alter table properties drop column parent_property_id, drop column lookup_code, drop column year_built, drop column ar_post_month, drop column ap_post_month`.execute(
    db,
  );
  await sql`drop table if exists sync_verifications`.execute(db);
}
