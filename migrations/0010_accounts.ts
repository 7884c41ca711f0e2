import { sql, type Kysely } from 'kysely';

/**
 * Several source accounts in one warehouse: every source and bookkeeping table gets
 * `account_id`, and every primary key, unique key and filtering index leads with it (two accounts
 * may list the same property, lease or invoice ids). An existing warehouse is upgraded in place:
 * its rows become account `default`, the one-account configuration's id, so nothing is fetched
 * again. The lists below are frozen here: they are this migration's, not the declarations'.
 */
const DEFAULT_ACCOUNT = 'default';

/** Each table's primary key after the account (before: the same without it). */
const KEYS: Record<string, string[]> = {
  leases: ['lease_id'],
  lease_intervals: ['lease_interval_id'],
  lease_activities: ['lease_activity_id'],
  lease_customers: ['lease_id', 'customer_id'],
  lease_unit_spaces: ['lease_id', 'unit_space_id'],
  lease_scheduled_charges: ['scheduled_charge_id'],
  ar_transactions: ['ar_transaction_id'],
  invoices: ['invoice_id'],
  invoice_line_items: ['line_item_id'],
  invoice_payments: ['invoice_id', 'payment_id'],
  voided_payments: ['invoice_id', 'payment_id'],
  properties: ['property_id'],
  sync_runs: ['run_id'],
  sync_work_units: ['work_unit_id'],
  sync_work_unit_seen: ['work_unit_id', 'entity', 'key'],
  sync_cursors: ['stream', 'scope', 'cursor'],
  quarantine: ['quarantine_id'],
};

/**
 * Indexes whose queries filter by account: recreated with `account_id` first (name, table, the
 * rest of the definition: key columns, then any `include (...)` and `where ...`, as first created).
 */
const INDEXES: [name: string, table: string, definition: string][] = [
  ['leases_property_status_idx', 'leases', '(property_id, lease_status_type_id)'],
  ['leases_move_out_idx', 'leases', '(property_id, move_out_date)'],
  ['lease_intervals_lease_idx', 'lease_intervals', '(lease_id)'],
  ['lease_activities_lease_idx', 'lease_activities', '(lease_id)'],
  ['lease_scheduled_charges_lease_idx', 'lease_scheduled_charges', '(lease_id)'],
  ['lease_scheduled_charges_interval_idx', 'lease_scheduled_charges', '(lease_interval_id)'],
  ['ar_transactions_lease_month_idx', 'ar_transactions', '(lease_id, post_month)'],
  ['ar_transactions_property_month_idx', 'ar_transactions', '(property_id, post_month)'],
  ['invoices_vendor_post_date_idx', 'invoices', '(vendor_id, post_date)'],
  ['invoice_line_items_invoice_idx', 'invoice_line_items', '(invoice_id)'],
  ['invoice_line_items_property_idx', 'invoice_line_items', '(property_id)'],
  ['invoices_reversal_idx', 'invoices', '(reversal_invoice_id) where reversal_invoice_id is not null'],
  ['invoices_post_date_idx', 'invoices', '(post_date)'],
  ['invoices_post_month_idx', 'invoices', '(post_month)'],
  [
    'invoices_open_idx',
    'invoices',
    '(due_date) include (amount_due) where deleted_at is null and amount_due <> 0',
  ],
  [
    'ar_transactions_open_idx',
    'ar_transactions',
    '(lease_id, due_date) include (balance_due, property_id) where deleted_at is null and balance_due <> 0 and is_temporary is not true and is_reversed is not true',
  ],
  ['voided_payments_voided_on_idx', 'voided_payments', '(voided_on)'],
  ['leases_source_text_hash_idx', 'leases', '(source_text_hash)'],
  ['invoices_source_text_hash_idx', 'invoices', '(source_text_hash)'],
  ['properties_source_text_hash_idx', 'properties', '(source_text_hash)'],
  ['sync_runs_started_idx', 'sync_runs', '(started_at)'],
  ['sync_work_units_run_idx', 'sync_work_units', '(run_id)'],
  ['sync_work_units_key_idx', 'sync_work_units', '(unit_key, status)'],
  ['quarantine_open_idx', 'quarantine', '(stream, record_key) where resolved_at is null'],
];

const list = (columns: string[]) => sql.join(columns.map((column) => sql.id(column)));

async function rekey(db: Kysely<unknown>, withAccount: boolean): Promise<void> {
  const lead = withAccount ? ['account_id'] : [];
  // The foreign keys of the bookkeeping tables reference the keys that change.
  await sql`alter table sync_work_unit_seen drop constraint if exists sync_work_unit_seen_work_unit_id_fkey`.execute(
    db,
  );
  await sql`alter table sync_work_units drop constraint if exists sync_work_units_run_id_fkey`.execute(db);
  for (const [table, key] of Object.entries(KEYS)) {
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(`${table}_pkey`)}`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_pkey`)} primary key (${list([...lead, ...key])})`.execute(
      db,
    );
  }
  await sql`alter table sync_work_units add constraint sync_work_units_run_id_fkey foreign key (${list([...lead, 'run_id'])}) references sync_runs (${list([...lead, 'run_id'])})`.execute(
    db,
  );
  await sql`alter table sync_work_unit_seen add constraint sync_work_unit_seen_work_unit_id_fkey foreign key (${list([...lead, 'work_unit_id'])}) references sync_work_units (${list([...lead, 'work_unit_id'])}) on delete cascade`.execute(
    db,
  );
  for (const [name, table, definition] of INDEXES) {
    await sql`drop index ${sql.id(name)}`.execute(db);
    const [columns, where] = definition.split(/\) where /);
    const rest = columns.replace(/^\(|\)$/g, '');
    await sql`create index ${sql.id(name)} on ${sql.table(table)} (${sql.raw([...lead, rest].join(', '))})${sql.raw(where ? ` where ${where}` : '')}`.execute(
      db,
    );
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of Object.keys(KEYS)) {
    // A constant default fills existing rows without rewriting them; new rows must name their account.
    await sql`alter table ${sql.table(table)} add column account_id text not null default ${sql.lit(DEFAULT_ACCOUNT)}`.execute(
      db,
    );
    await sql`alter table ${sql.table(table)} alter column account_id drop default`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_account_id_check`)} check (account_id ~ '^[a-z0-9_-]{1,40}$')`.execute(
      db,
    );
  }
  await rekey(db, true);
  // Runs and units are also found by their ids alone (globally unique serials).
  await sql`create index sync_runs_run_idx on sync_runs (run_id)`.execute(db);
  await sql`create index sync_work_units_id_idx on sync_work_units (work_unit_id)`.execute(db);
  await sql`
    create table accounts (
      account_id text primary key check (account_id ~ '^[a-z0-9_-]{1,40}$'),
      name text,
      first_seen_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now()
    )`.execute(db);
  await sql`insert into accounts (account_id) select ${DEFAULT_ACCOUNT} where exists (select 1 from sync_runs)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table accounts`.execute(db);
  await sql`drop index sync_runs_run_idx, sync_work_units_id_idx`.execute(db);
  await rekey(db, false);
  for (const table of Object.keys(KEYS))
    await sql`alter table ${sql.table(table)} drop column account_id`.execute(db);
}
