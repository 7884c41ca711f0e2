import type { SourceTable } from './tables.js';

/** Postgres types that bulk loading casts arrays to. */
export const COLUMN_TYPES = ['bigint', 'smallint', 'integer', 'text', 'date', 'numeric', 'boolean', 'timestamptz', 'jsonb'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

/**
 * How bulk loading sees a source table: its key, its typed columns (the bookkeeping columns
 * `raw`, `deleted_at`, `first_synced_at`, `last_synced_at`, `last_run_id` are implied), and for
 * a child table the column naming its parent (children of a parent fetched whole are replaced).
 */
export interface TableSpec {
  name: SourceTable;
  key: readonly string[];
  columns: Readonly<Record<string, ColumnType>>;
  /** For child tables: the parent's key column (e.g. `lease_id`). */
  parentColumn?: string;
}

/** The column of a parent table holding the digest of the whole source record. */
export const SOURCE_HASH_COLUMN = 'source_hash';

const spec = <T extends TableSpec>(value: T): T => value;

export const LEASES = spec({
  name: 'leases',
  key: ['lease_id'],
  columns: {
    lease_id: 'bigint',
    property_id: 'bigint',
    property_name: 'text',
    lease_status_type_id: 'smallint',
    lease_status: 'text',
    lease_sub_status: 'text',
    lease_type: 'text',
    unit_id: 'bigint',
    unit_number: 'text',
    building_name: 'text',
    floor_plan_id: 'bigint',
    floor_plan_name: 'text',
    space_configuration: 'text',
    occupancy_type_id: 'smallint',
    occupancy_type: 'text',
    is_month_to_month: 'boolean',
    move_in_date: 'date',
    move_out_date: 'date',
    transfer_date: 'date',
    move_out_reason_id: 'bigint',
    move_out_reason: 'text',
    move_out_type: 'text',
    current_lease_interval_id: 'bigint',
    lease_interval_status: 'text',
    payment_allowance_type: 'text',
    is_other_income: 'boolean',
    source_hash: 'text',
  },
});

export const LEASE_INTERVALS = spec({
  name: 'lease_intervals',
  key: ['lease_interval_id'],
  parentColumn: 'lease_id',
  columns: {
    lease_interval_id: 'bigint',
    lease_id: 'bigint',
    lease_interval_type_id: 'smallint',
    lease_interval_type: 'text',
    lease_interval_status_type_id: 'smallint',
    lease_interval_status: 'text',
    start_date: 'date',
    end_date: 'date',
    application_id: 'bigint',
    application_completed_on: 'timestamptz',
    interval_datetime: 'timestamptz',
    is_current: 'boolean',
  },
});

export const LEASE_ACTIVITIES = spec({
  name: 'lease_activities',
  key: ['lease_activity_id'],
  parentColumn: 'lease_id',
  columns: {
    lease_activity_id: 'bigint',
    lease_id: 'bigint',
    event_type_id: 'bigint',
    event_type: 'text',
    event_date: 'date',
    description: 'text',
  },
});

export const LEASE_CUSTOMERS = spec({
  name: 'lease_customers',
  key: ['lease_id', 'customer_id'],
  parentColumn: 'lease_id',
  columns: {
    lease_id: 'bigint',
    customer_id: 'bigint',
    customer_type: 'text',
    first_name: 'text',
    middle_name: 'text',
    last_name: 'text',
    name_full: 'text',
    email_address: 'text',
    lease_customer_status: 'text',
    relationship_name: 'text',
    move_in_date: 'date',
    move_out_date: 'date',
  },
});

export const LEASE_UNIT_SPACES = spec({
  name: 'lease_unit_spaces',
  key: ['lease_id', 'unit_space_id'],
  parentColumn: 'lease_id',
  columns: { lease_id: 'bigint', unit_space_id: 'bigint', unit_space: 'text' },
});

export const LEASE_SCHEDULED_CHARGES = spec({
  name: 'lease_scheduled_charges',
  key: ['scheduled_charge_id'],
  parentColumn: 'lease_id',
  columns: {
    scheduled_charge_id: 'bigint',
    lease_id: 'bigint',
    lease_interval_id: 'bigint',
    charge_code_id: 'bigint',
    charge_code: 'text',
    charge_type: 'text',
    charge_usage: 'text',
    frequency: 'text',
    start_date: 'date',
    end_date: 'date',
    amount: 'numeric',
    description: 'text',
    application_id: 'bigint',
  },
});

export const AR_TRANSACTIONS = spec({
  name: 'ar_transactions',
  key: ['ar_transaction_id'],
  parentColumn: 'lease_id',
  columns: {
    ar_transaction_id: 'bigint',
    lease_id: 'bigint',
    property_id: 'bigint',
    lease_interval_id: 'bigint',
    ar_code_id: 'bigint',
    ar_code_name: 'text',
    transaction_type_id: 'smallint',
    description: 'text',
    transaction_date: 'date',
    post_date: 'date',
    post_month: 'date',
    due_date: 'date',
    amount: 'numeric',
    amount_paid: 'numeric',
    balance_due: 'numeric',
    is_temporary: 'boolean',
    is_reversed: 'boolean',
    scheduled_charge_id: 'bigint',
    ar_payment_id: 'bigint',
  },
});

export const INVOICES = spec({
  name: 'invoices',
  key: ['invoice_id'],
  columns: {
    invoice_id: 'bigint',
    invoice_number: 'text',
    invoice_type_id: 'smallint',
    invoice_type: 'text',
    vendor_id: 'bigint',
    vendor_name: 'text',
    vendor_location_name: 'text',
    invoice_date: 'date',
    post_date: 'date',
    post_month: 'date',
    due_date: 'date',
    post_status: 'text',
    is_posted: 'boolean',
    is_on_hold: 'boolean',
    is_exported: 'boolean',
    reversal_invoice_id: 'bigint',
    sub_total: 'numeric',
    tax_amount: 'numeric',
    shipping_amount: 'numeric',
    discount_amount: 'numeric',
    retention: 'numeric',
    amount: 'numeric',
    amount_due: 'numeric',
    remittance_name: 'text',
    ap_payment_type: 'text',
    account_number: 'text',
    source_hash: 'text',
  },
});

export const INVOICE_LINE_ITEMS = spec({
  name: 'invoice_line_items',
  key: ['line_item_id'],
  parentColumn: 'invoice_id',
  columns: {
    line_item_id: 'bigint',
    invoice_id: 'bigint',
    property_id: 'bigint',
    property_name: 'text',
    description: 'text',
    quantity: 'numeric',
    rate: 'numeric',
    amount: 'numeric',
    amount_due: 'numeric',
    gl_account_id: 'bigint',
    gl_account_name: 'text',
    gl_account_number: 'text',
    department_id: 'bigint',
    department_name: 'text',
    po_number: 'text',
    is_1099: 'boolean',
    billback: 'boolean',
    catalog_item_id: 'bigint',
    catalog_item_name: 'text',
    unit_of_measure: 'text',
    job_id: 'bigint',
    job_name: 'text',
    job_phase_id: 'bigint',
    job_phase_name: 'text',
    cost_code_id: 'text',
    cost_code_name: 'text',
  },
});

export const INVOICE_PAYMENTS = spec({
  name: 'invoice_payments',
  key: ['invoice_id', 'payment_id'],
  parentColumn: 'invoice_id',
  columns: {
    invoice_id: 'bigint',
    payment_id: 'bigint',
    payment_number: 'text',
    payment_type: 'text',
    payment_status: 'text',
    payment_date: 'date',
    amount: 'numeric',
    post_date: 'date',
    post_month: 'date',
    is_reversed: 'boolean',
    payee_name: 'text',
  },
});

export const VOIDED_PAYMENTS = spec({
  name: 'voided_payments',
  key: ['invoice_id', 'payment_id'],
  parentColumn: 'invoice_id',
  columns: {
    invoice_id: 'bigint',
    payment_id: 'bigint',
    payment_number: 'text',
    amount: 'numeric',
    payment_date: 'date',
    voided_on: 'date',
    voided_by: 'text',
    void_reason: 'text',
  },
});
