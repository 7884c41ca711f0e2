import type { ColumnType, Generated } from 'kysely';

/** A `date` column: `'YYYY-MM-DD'` both ways. */
export type DateString = string;
/** A `numeric` column: an exact decimal string such as `'1470.00'`. */
export type Money = string;
/** A `timestamptz` column: read as Date, written as Date or ISO string. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A `jsonb` column. */
export type Json = unknown;

/** Bookkeeping columns that every source table has. */
export interface SyncColumns {
  deleted_at: Timestamp | null;
  raw: Json;
  first_synced_at: Generated<Date>;
  last_synced_at: Generated<Date>;
  last_run_id: number | null;
}

export interface LeasesTable extends SyncColumns {
  lease_id: number;
  property_id: number;
  property_name: string | null;
  lease_status_type_id: number | null;
  lease_status: string | null;
  lease_sub_status: string | null;
  lease_type: string | null;
  unit_id: number | null;
  unit_number: string | null;
  building_name: string | null;
  floor_plan_id: number | null;
  floor_plan_name: string | null;
  space_configuration: string | null;
  occupancy_type_id: number | null;
  occupancy_type: string | null;
  is_month_to_month: boolean | null;
  move_in_date: DateString | null;
  move_out_date: DateString | null;
  transfer_date: DateString | null;
  move_out_reason_id: number | null;
  move_out_reason: string | null;
  move_out_type: string | null;
  current_lease_interval_id: number | null;
  lease_interval_status: string | null;
  payment_allowance_type: string | null;
  is_other_income: boolean | null;
  /** Digest of the whole source record (children included) as last loaded; unchanged records are skipped. */
  source_hash: string | null;
}

export interface LeaseIntervalsTable extends SyncColumns {
  lease_interval_id: number;
  lease_id: number;
  lease_interval_type_id: number | null;
  lease_interval_type: string | null;
  lease_interval_status_type_id: number | null;
  lease_interval_status: string | null;
  start_date: DateString | null;
  end_date: DateString | null;
  application_id: number | null;
  application_completed_on: Timestamp | null;
  interval_datetime: Timestamp | null;
  is_current: boolean;
}

export interface LeaseActivitiesTable extends SyncColumns {
  lease_activity_id: number;
  lease_id: number;
  event_type_id: number | null;
  event_type: string | null;
  event_date: DateString | null;
  description: string | null;
}

export interface LeaseCustomersTable extends SyncColumns {
  lease_id: number;
  customer_id: number;
  customer_type: string | null;
  first_name: string | null;
  middle_name: string | null;
  last_name: string | null;
  name_full: string | null;
  email_address: string | null;
  lease_customer_status: string | null;
  relationship_name: string | null;
  move_in_date: DateString | null;
  move_out_date: DateString | null;
}

export interface LeaseUnitSpacesTable extends SyncColumns {
  lease_id: number;
  unit_space_id: number;
  unit_space: string | null;
}

export interface LeaseScheduledChargesTable extends SyncColumns {
  scheduled_charge_id: number;
  lease_id: number;
  lease_interval_id: number | null;
  charge_code_id: number | null;
  charge_code: string | null;
  charge_type: string | null;
  charge_usage: string | null;
  frequency: string | null;
  start_date: DateString | null;
  end_date: DateString | null;
  amount: Money | null;
  description: string | null;
  application_id: number | null;
}

export interface ArTransactionsTable extends SyncColumns {
  ar_transaction_id: number;
  lease_id: number;
  property_id: number;
  lease_interval_id: number | null;
  ar_code_id: number | null;
  ar_code_name: string | null;
  transaction_type_id: number | null;
  description: string | null;
  transaction_date: DateString | null;
  post_date: DateString | null;
  post_month: DateString | null;
  due_date: DateString | null;
  amount: Money | null;
  amount_paid: Money | null;
  balance_due: Money | null;
  is_temporary: boolean | null;
  is_reversed: boolean | null;
  scheduled_charge_id: number | null;
  ar_payment_id: number | null;
}

export interface InvoicesTable extends SyncColumns {
  invoice_id: number;
  invoice_number: string | null;
  invoice_type_id: number | null;
  invoice_type: string | null;
  vendor_id: number | null;
  vendor_name: string | null;
  vendor_location_name: string | null;
  invoice_date: DateString | null;
  post_date: DateString | null;
  post_month: DateString | null;
  due_date: DateString | null;
  post_status: string | null;
  is_posted: boolean | null;
  is_on_hold: boolean | null;
  is_exported: boolean | null;
  reversal_invoice_id: number | null;
  sub_total: Money | null;
  tax_amount: Money | null;
  shipping_amount: Money | null;
  discount_amount: Money | null;
  retention: Money | null;
  amount: Money | null;
  amount_due: Money | null;
  remittance_name: string | null;
  ap_payment_type: string | null;
  account_number: string | null;
  /** Digest of the whole source record (children included) as last loaded; unchanged records are skipped. */
  source_hash: string | null;
}

export interface InvoiceLineItemsTable extends SyncColumns {
  line_item_id: number;
  invoice_id: number;
  property_id: number | null;
  property_name: string | null;
  description: string | null;
  quantity: string | null;
  rate: string | null;
  amount: Money | null;
  amount_due: Money | null;
  gl_account_id: number | null;
  gl_account_name: string | null;
  gl_account_number: string | null;
  department_id: number | null;
  department_name: string | null;
  po_number: string | null;
  is_1099: boolean | null;
  billback: boolean | null;
  catalog_item_id: number | null;
  catalog_item_name: string | null;
  unit_of_measure: string | null;
  job_id: number | null;
  job_name: string | null;
  job_phase_id: number | null;
  job_phase_name: string | null;
  cost_code_id: string | null;
  cost_code_name: string | null;
}

export interface InvoicePaymentsTable extends SyncColumns {
  invoice_id: number;
  payment_id: number;
  payment_number: string | null;
  payment_type: string | null;
  payment_status: string | null;
  payment_date: DateString | null;
  amount: Money | null;
  post_date: DateString | null;
  post_month: DateString | null;
  is_reversed: boolean | null;
  payee_name: string | null;
}

export interface VoidedPaymentsTable extends SyncColumns {
  invoice_id: number;
  payment_id: number;
  payment_number: string | null;
  amount: Money | null;
  payment_date: DateString | null;
  voided_on: DateString | null;
  voided_by: string | null;
  void_reason: string | null;
}

/** Counters that runs and work units both keep. */
export interface SyncCounters {
  pages: Generated<number>;
  records: Generated<number>;
  rows_inserted: Generated<number>;
  rows_updated: Generated<number>;
  rows_unchanged: Generated<number>;
  rows_deleted: Generated<number>;
  quarantined: Generated<number>;
  calls: Generated<number>;
  bytes: Generated<number>;
  retries: Generated<number>;
}

export interface SyncRunsTable extends SyncCounters {
  run_id: Generated<number>;
  kind: string;
  streams: string[];
  property_ids: number[] | null;
  requested: Generated<Json>;
  status: Generated<string>;
  started_at: Generated<Date>;
  finished_at: Timestamp | null;
  source_today: DateString | null;
  work_units_total: Generated<number>;
  work_units_done: Generated<number>;
  work_units_failed: Generated<number>;
  throttled: Generated<number>;
  error: string | null;
  host: string | null;
  pid: number | null;
}

export interface SyncWorkUnitsTable extends SyncCounters {
  work_unit_id: Generated<number>;
  run_id: number;
  stream: string;
  kind: string;
  unit_key: string;
  property_ids: Generated<number[]>;
  window_from: DateString | null;
  window_to: DateString | null;
  params: Generated<Json>;
  status: Generated<string>;
  next_page: Generated<number>;
  /** Page size the checkpoint counts in; a resume with another page size starts over. */
  per_page: number | null;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  error: string | null;
}

export interface SyncWorkUnitSeenTable {
  work_unit_id: number;
  entity: string;
  key: number;
}

export interface SyncCursorsTable {
  stream: string;
  scope: string;
  cursor: string;
  value: DateString | null;
  state: Generated<Json>;
  updated_at: Generated<Date>;
  last_run_id: number | null;
}

export interface QuarantineTable {
  quarantine_id: Generated<number>;
  run_id: number | null;
  work_unit_id: number | null;
  stream: string;
  entity: string;
  record_key: string | null;
  property_id: number | null;
  window_from: DateString | null;
  window_to: DateString | null;
  page: number | null;
  reason: string;
  raw: Json;
  created_at: Generated<Date>;
  resolved_at: Timestamp | null;
  resolved_run_id: number | null;
}

/** The warehouse as Kysely sees it. */
export interface Warehouse {
  leases: LeasesTable;
  lease_intervals: LeaseIntervalsTable;
  lease_activities: LeaseActivitiesTable;
  lease_customers: LeaseCustomersTable;
  lease_unit_spaces: LeaseUnitSpacesTable;
  lease_scheduled_charges: LeaseScheduledChargesTable;
  ar_transactions: ArTransactionsTable;
  invoices: InvoicesTable;
  invoice_line_items: InvoiceLineItemsTable;
  invoice_payments: InvoicePaymentsTable;
  voided_payments: VoidedPaymentsTable;
  sync_runs: SyncRunsTable;
  sync_work_units: SyncWorkUnitsTable;
  sync_work_unit_seen: SyncWorkUnitSeenTable;
  sync_cursors: SyncCursorsTable;
  quarantine: QuarantineTable;
}

/** Names of the tables that hold source data (as opposed to the sync's bookkeeping). */
export const SOURCE_TABLES = [
  'leases',
  'lease_intervals',
  'lease_activities',
  'lease_customers',
  'lease_unit_spaces',
  'lease_scheduled_charges',
  'ar_transactions',
  'invoices',
  'invoice_line_items',
  'invoice_payments',
  'voided_payments',
] as const satisfies readonly (keyof Warehouse)[];
export type SourceTable = (typeof SOURCE_TABLES)[number];
