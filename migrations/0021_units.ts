import { sql, type Kysely } from 'kysely';
import { dropUnitTablesRestoringReporting } from './support/reporting-before-units.js';

/**
 * The unit inventory (issue 37): the tables of the units stream (getPropertyUnits), as its
 * declarations in src/streams/units/tables.ts describe them, and the status history the warehouse
 * keeps of its spaces, since the source gives only today's state.
 *
 * - `unit_inventories` (a row per property listed), `units` and `unit_spaces` (its children by
 *   property), with the sync columns, keyed by account.
 * - `unit_space_status_history`: statement triggers on `unit_spaces` (insert and update, with
 *   transition tables: COPY and INSERT ... ON CONFLICT fire them too) compare each written row
 *   with its space's open history row (at most one, by a unique index). A new status, category, pre-leased flag or rent closes the
 *   open row and opens another; a space marked deleted closes its row; a space revived opens one.
 *   The day is the source's today of the run that wrote the row (sync_runs.source_today through
 *   last_run_id), so a history read by day follows the source's calendar, not the server's.
 * - Row-level security with the readers' policy of 0011 on each, as every table with an account.
 *
 * The SQL here is frozen.
 */

const POLICY = 'account_readers';
const VISIBLE = sql.raw(
  `((select reporting_private.visible_accounts(current_user)) is null or account_id = any((select reporting_private.visible_accounts(current_user))::text[]))`,
);

const TABLES = ['unit_inventories', 'units', 'unit_spaces', 'unit_space_status_history'];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table unit_inventories (
      account_id text not null,
      property_id bigint not null,
      unit_count integer,
      space_count integer,
      source_hash text,
      deleted_at timestamptz,
      raw jsonb not null,
      first_synced_at timestamptz not null default now(),
      last_synced_at timestamptz not null default now(),
      last_run_id bigint,
      source_text_hash text,
      primary key (account_id, property_id)
    )`.execute(db);
  await sql`create index unit_inventories_source_text_hash_idx on unit_inventories (account_id, source_text_hash)`.execute(
    db,
  );
  await sql`
    create table units (
      account_id text not null,
      unit_id bigint not null,
      property_id bigint not null,
      unit_number text,
      building_id bigint,
      building_name text,
      floorplan_id bigint,
      floorplan_name text,
      unit_type_id bigint,
      unit_type_name text,
      bedrooms integer,
      bathrooms numeric,
      square_feet integer,
      is_furnished boolean,
      is_corporate_rented boolean,
      number_occupants integer,
      max_pets integer,
      unit_availability_url text,
      unit_address text,
      is_other_income boolean not null,
      deleted_at timestamptz,
      raw jsonb not null,
      first_synced_at timestamptz not null default now(),
      last_synced_at timestamptz not null default now(),
      last_run_id bigint,
      primary key (account_id, unit_id)
    )`.execute(db);
  await sql`create index units_property_idx on units (account_id, property_id)`.execute(db);
  await sql`
    create table unit_spaces (
      account_id text not null,
      unit_space_id bigint not null,
      property_id bigint not null,
      unit_id bigint not null,
      unit_number text,
      availability_status text,
      status_category text not null,
      is_preleased boolean,
      is_ready boolean,
      available_date date,
      make_ready_date date,
      rent numeric(14,2),
      min_deposit numeric(14,2),
      max_deposit numeric(14,2),
      reserve_until date,
      is_affordable boolean,
      has_pricing boolean,
      excluded_reason text,
      space_configuration text,
      is_other_income boolean not null,
      deleted_at timestamptz,
      raw jsonb not null,
      first_synced_at timestamptz not null default now(),
      last_synced_at timestamptz not null default now(),
      last_run_id bigint,
      primary key (account_id, unit_space_id)
    )`.execute(db);
  await sql`create index unit_spaces_property_idx on unit_spaces (account_id, property_id)`.execute(db);
  await sql`create index unit_spaces_unit_idx on unit_spaces (account_id, unit_id)`.execute(db);
  await sql`
    create table unit_space_status_history (
      account_id text not null,
      history_id bigserial not null,
      property_id bigint not null,
      unit_id bigint not null,
      unit_space_id bigint not null,
      availability_status text,
      status_category text not null,
      is_preleased boolean,
      rent numeric(14,2),
      valid_from date not null,
      valid_to date,
      run_id bigint,
      recorded_at timestamptz not null default now(),
      primary key (account_id, history_id)
    )`.execute(db);
  await sql`create index unit_space_status_history_space_idx on unit_space_status_history (account_id, unit_space_id, valid_from)`.execute(
    db,
  );
  await sql`create index unit_space_status_history_property_idx on unit_space_status_history (account_id, property_id, valid_from)`.execute(
    db,
  );
  // At most one open row per space: what the trigger closes.
  await sql`create unique index unit_space_status_history_open_idx on unit_space_status_history (account_id, unit_space_id) where valid_to is null`.execute(
    db,
  );

  // Two statements: the open rows that no longer hold are closed, then every live space without an
  // open row (new, revived, or just closed) gets one.
  await sql`
    create function unit_space_history_note() returns trigger language plpgsql as $$
    begin
      update unit_space_status_history h
         set valid_to = coalesce(r.source_today, current_date)
        from new_rows n
        left join sync_runs r on r.account_id = n.account_id and r.run_id = n.last_run_id
       where h.account_id = n.account_id and h.unit_space_id = n.unit_space_id and h.valid_to is null
         and (n.deleted_at is not null
              or h.availability_status is distinct from n.availability_status
              or h.status_category is distinct from n.status_category
              or h.is_preleased is distinct from n.is_preleased
              or h.rent is distinct from n.rent);
      insert into unit_space_status_history
        (account_id, property_id, unit_id, unit_space_id, availability_status, status_category, is_preleased, rent,
         valid_from, run_id)
      select n.account_id, n.property_id, n.unit_id, n.unit_space_id, n.availability_status, n.status_category,
             n.is_preleased, n.rent, coalesce(r.source_today, current_date), n.last_run_id
        from new_rows n
        left join sync_runs r on r.account_id = n.account_id and r.run_id = n.last_run_id
       where n.deleted_at is null
         and not exists (select 1 from unit_space_status_history h
                          where h.account_id = n.account_id and h.unit_space_id = n.unit_space_id
                            and h.valid_to is null);
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger unit_spaces_history_insert after insert on unit_spaces
      referencing new table as new_rows for each statement execute function unit_space_history_note()`.execute(
    db,
  );
  await sql`
    create trigger unit_spaces_history_update after update on unit_spaces
      referencing new table as new_rows for each statement execute function unit_space_history_note()`.execute(
    db,
  );

  for (const table of TABLES) {
    await sql`alter table ${sql.table(table)} enable row level security`.execute(db);
    await sql`create policy ${sql.id(POLICY)} on ${sql.table(table)} for all using (${VISIBLE}) with check (${VISIBLE})`.execute(
      db,
    );
  }
}

/**
 * The reporting views that read these tables go with them: units and box_score, and occupancy_monthly
 * and portfolio, which are made again as they were before (support/reporting-before-units.ts), so
 * that the down steps after this one find the reporting layer they left. Their definitions'
 * checksums go too, so that `propsync migrate` makes them again.
 */
export async function down(db: Kysely<unknown>): Promise<void> {
  await dropUnitTablesRestoringReporting(db, TABLES);
  await sql`drop function if exists unit_space_history_note()`.execute(db);
}
