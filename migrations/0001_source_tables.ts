import { sql, type Kysely } from 'kysely';

/**
 * The warehouse's source tables: leases and their children, invoices and theirs. Names and
 * the columns listed in the foundation issue are a contract with dashboards: add, never rename.
 * Every table keeps the source record as `raw`, the sync bookkeeping columns, and `deleted_at`
 * (set when the source stops listing a row; rows are never hard-deleted).
 */
const SYNC_COLUMNS = sql.raw(`
  deleted_at timestamptz,
  raw jsonb not null,
  first_synced_at timestamptz not null default now(),
  last_synced_at timestamptz not null default now(),
  last_run_id bigint`);

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table leases (
      lease_id bigint primary key,
      property_id bigint not null,
      property_name text,
      lease_status_type_id smallint,
      lease_status text,
      lease_sub_status text,
      lease_type text,
      unit_id bigint,
      unit_number text,
      building_name text,
      floor_plan_id bigint,
      floor_plan_name text,
      space_configuration text,
      occupancy_type_id smallint,
      occupancy_type text,
      is_month_to_month boolean,
      move_in_date date,
      move_out_date date,
      transfer_date date,
      move_out_reason_id bigint,
      move_out_reason text,
      move_out_type text,
      current_lease_interval_id bigint,
      lease_interval_status text,
      payment_allowance_type text,
      is_other_income boolean,
      source_hash text,
      ${SYNC_COLUMNS}
    )`.execute(db);
  await sql`create index leases_property_status_idx on leases (property_id, lease_status_type_id)`.execute(
    db,
  );
  await sql`create index leases_move_out_idx on leases (property_id, move_out_date)`.execute(db);

  await sql`
    create table lease_intervals (
      lease_interval_id bigint primary key,
      lease_id bigint not null,
      lease_interval_type_id smallint,
      lease_interval_type text,
      lease_interval_status_type_id smallint,
      lease_interval_status text,
      start_date date,
      end_date date,
      application_id bigint,
      application_completed_on timestamptz,
      interval_datetime timestamptz,
      is_current boolean not null default false,
      ${SYNC_COLUMNS}
    )`.execute(db);
  await sql`create index lease_intervals_lease_idx on lease_intervals (lease_id)`.execute(db);

  await sql`
    create table lease_activities (
      lease_activity_id bigint primary key,
      lease_id bigint not null,
      event_type_id bigint,
      event_type text,
      event_date date,
      description text,
      ${SYNC_COLUMNS}
    )`.execute(db);
  await sql`create index lease_activities_lease_idx on lease_activities (lease_id)`.execute(db);

  await sql`
    create table lease_customers (
      lease_id bigint not null,
      customer_id bigint not null,
      customer_type text,
      first_name text,
      middle_name text,
      last_name text,
      name_full text,
      email_address text,
      lease_customer_status text,
      relationship_name text,
      move_in_date date,
      move_out_date date,
      ${SYNC_COLUMNS},
      primary key (lease_id, customer_id)
    )`.execute(db);

  await sql`
    create table lease_unit_spaces (
      lease_id bigint not null,
      unit_space_id bigint not null,
      unit_space text,
      ${SYNC_COLUMNS},
      primary key (lease_id, unit_space_id)
    )`.execute(db);

  await sql`
    create table lease_scheduled_charges (
      scheduled_charge_id bigint primary key,
      lease_id bigint not null,
      lease_interval_id bigint,
      charge_code_id bigint,
      charge_code text,
      charge_type text,
      charge_usage text,
      frequency text,
      start_date date,
      end_date date,
      amount numeric(14,2),
      description text,
      application_id bigint,
      ${SYNC_COLUMNS}
    )`.execute(db);
  await sql`create index lease_scheduled_charges_lease_idx on lease_scheduled_charges (lease_id)`.execute(db);

  await sql`
    create table ar_transactions (
      ar_transaction_id bigint primary key,
      lease_id bigint not null,
      property_id bigint not null,
      lease_interval_id bigint,
      ar_code_id bigint,
      ar_code_name text,
      transaction_type_id smallint,
      description text,
      transaction_date date,
      post_date date,
      post_month date,
      due_date date,
      amount numeric(14,2),
      amount_paid numeric(14,2),
      balance_due numeric(14,2),
      is_temporary boolean,
      is_reversed boolean,
      scheduled_charge_id bigint,
      ar_payment_id bigint,
      ${SYNC_COLUMNS}
    )`.execute(db);
  await sql`create index ar_transactions_lease_month_idx on ar_transactions (lease_id, post_month)`.execute(
    db,
  );
  await sql`create index ar_transactions_property_month_idx on ar_transactions (property_id, post_month)`.execute(
    db,
  );

  await sql`
    create table invoices (
      invoice_id bigint primary key,
      invoice_number text,
      invoice_type_id smallint,
      invoice_type text,
      vendor_id bigint,
      vendor_name text,
      vendor_location_name text,
      invoice_date date,
      post_date date,
      post_month date,
      due_date date,
      post_status text,
      is_posted boolean,
      is_on_hold boolean,
      is_exported boolean,
      reversal_invoice_id bigint,
      sub_total numeric(14,2),
      tax_amount numeric(14,2),
      shipping_amount numeric(14,2),
      discount_amount numeric(14,2),
      retention numeric(14,2),
      amount numeric(14,2),
      amount_due numeric(14,2),
      remittance_name text,
      ap_payment_type text,
      account_number text,
      source_hash text,
      ${SYNC_COLUMNS}
    )`.execute(db);
  await sql`create index invoices_vendor_post_date_idx on invoices (vendor_id, post_date)`.execute(db);
  await sql`create index invoices_post_date_idx on invoices (post_date)`.execute(db);

  await sql`
    create table invoice_line_items (
      line_item_id bigint primary key,
      invoice_id bigint not null,
      property_id bigint,
      property_name text,
      description text,
      quantity numeric,
      rate numeric,
      amount numeric(14,2),
      amount_due numeric(14,2),
      gl_account_id bigint,
      gl_account_name text,
      gl_account_number text,
      department_id bigint,
      department_name text,
      po_number text,
      is_1099 boolean,
      billback boolean,
      catalog_item_id bigint,
      catalog_item_name text,
      unit_of_measure text,
      job_id bigint,
      job_name text,
      job_phase_id bigint,
      job_phase_name text,
      cost_code_id text,
      cost_code_name text,
      ${SYNC_COLUMNS}
    )`.execute(db);
  await sql`create index invoice_line_items_invoice_idx on invoice_line_items (invoice_id)`.execute(db);
  await sql`create index invoice_line_items_property_idx on invoice_line_items (property_id)`.execute(db);

  await sql`
    create table invoice_payments (
      invoice_id bigint not null,
      payment_id bigint not null,
      payment_number text,
      payment_type text,
      payment_status text,
      payment_date date,
      amount numeric(14,2),
      post_date date,
      post_month date,
      is_reversed boolean,
      payee_name text,
      ${SYNC_COLUMNS},
      primary key (invoice_id, payment_id)
    )`.execute(db);

  await sql`
    create table voided_payments (
      invoice_id bigint not null,
      payment_id bigint not null,
      payment_number text,
      amount numeric(14,2),
      payment_date date,
      voided_on date,
      voided_by text,
      void_reason text,
      ${SYNC_COLUMNS},
      primary key (invoice_id, payment_id)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'voided_payments',
    'invoice_payments',
    'invoice_line_items',
    'invoices',
    'ar_transactions',
    'lease_scheduled_charges',
    'lease_unit_spaces',
    'lease_customers',
    'lease_activities',
    'lease_intervals',
    'leases',
  ]) {
    await sql`drop table if exists ${sql.table(table)}`.execute(db);
  }
}
