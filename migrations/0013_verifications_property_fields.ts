import { sql, type Kysely } from 'kysely';

/**
 * Issue 25. `sync_verifications`: one row per pass of `propsync verify` over an account (what
 * was read again, and per table how the warehouse differed from the source). The property
 * dimension keeps the getProperties fields it dropped until now: the parent property of a
 * parent/child property, the lookup code, the year built and the open AR and AP post months
 * (appended: Postgres adds a column at the end without rewriting the table; the rows loaded
 * before have them null until their record is read again).
 */
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
  await sql`create index sync_verifications_finished_idx on sync_verifications (account_id, finished_at)`.execute(db);
  await sql`create index sync_verifications_id_idx on sync_verifications (verification_id)`.execute(db);
  // Readers given the base tables see the accounts they may see here too, as on every table of 0011.
  await sql`alter table sync_verifications enable row level security`.execute(db);
  await sql`
    create policy account_readers on sync_verifications for all
      using ((select reporting_private.visible_accounts(current_user)) is null or account_id = any((select reporting_private.visible_accounts(current_user))::text[]))
      with check ((select reporting_private.visible_accounts(current_user)) is null or account_id = any((select reporting_private.visible_accounts(current_user))::text[]))`.execute(db);
  await sql`
    alter table properties
      add column parent_property_id bigint,
      add column lookup_code text,
      add column year_built integer,
      add column ar_post_month date,
      add column ap_post_month date`.execute(db);
  // A property's record is read again in full at the next run (its digest no longer matches).
  await sql`update properties set source_hash = null, source_text_hash = null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table properties drop column parent_property_id, drop column lookup_code, drop column year_built, drop column ar_post_month, drop column ap_post_month`.execute(db);
  await sql`drop table if exists sync_verifications`.execute(db);
}
