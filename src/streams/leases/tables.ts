import {
  bigint,
  boolean,
  date,
  defineSourceTable,
  money,
  smallint,
  text,
  timestamptz,
  type RowsOf,
} from '../../warehouse/schema.js';

/** The tables of the leases stream: `leases` first, then its children. */

export const LEASES = defineSourceTable({
  name: 'leases',
  meaning: 'One row per lease.',
  key: ['lease_id'],
  sourceHash: true,
  indexes: [
    ['property_id', 'lease_status_type_id'],
    ['property_id', 'move_out_date'],
  ],
  columns: {
    lease_id: bigint("The lease's id.").notNull(),
    property_id: bigint('The property of the lease.').notNull(),
    property_name: text("The property's name."),
    lease_status_type_id: smallint(
      'Lease status: 1 Applicant, 2 Cancelled, 3 Future, 4 Current, 5 Notice, 6 Past.',
    ),
    lease_status: text('Name of the lease status.'),
    lease_sub_status: text('Sub-status, as the source names it.'),
    lease_type: text('Lease type, as the source names it.'),
    unit_id: bigint('The unit leased.'),
    unit_number: text("The unit's number."),
    building_name: text("The unit's building."),
    floor_plan_id: bigint("The unit's floor plan."),
    floor_plan_name: text("Name of the unit's floor plan."),
    space_configuration: text("The unit's space configuration."),
    occupancy_type_id: smallint('Occupancy type id, as the source numbers it.'),
    occupancy_type: text('Occupancy type, as the source names it.'),
    is_month_to_month: boolean('The lease runs month to month.'),
    move_in_date: date('Move-in date.'),
    move_out_date: date('Move-out date, when known.'),
    transfer_date: date('Transfer date, if the resident transferred.'),
    move_out_reason_id: bigint('Why the resident moved out (r2, leases with a move-out): the reason id.'),
    move_out_reason: text('Why the resident moved out: the reason as the source names it.'),
    move_out_type: text('How the resident moved out, as the source names it.'),
    current_lease_interval_id: bigint("The lease's current interval (lease_intervals)."),
    lease_interval_status: text('Status of the current interval.'),
    payment_allowance_type: text('Payment allowance type, as the source names it.'),
    is_other_income: boolean('An other-income lease (parking, storage), not a dwelling.'),
  },
});

export const LEASE_INTERVALS = defineSourceTable({
  name: 'lease_intervals',
  meaning: 'The terms of a lease: current and, with lease history, earlier ones.',
  key: ['lease_interval_id'],
  parentColumn: 'lease_id',
  indexes: [['lease_id']],
  columns: {
    lease_interval_id: bigint("The interval's id.").notNull(),
    lease_id: bigint('Its lease.').notNull(),
    lease_interval_type_id: smallint(
      'Interval type: 1 Application, 2 Lease Modification, 3 Renewal, 4 Month To Month, 5 Transfer.',
    ),
    lease_interval_type: text('Name of the interval type.'),
    lease_interval_status_type_id: smallint("The interval's status id."),
    lease_interval_status: text("Name of the interval's status."),
    start_date: date('First day of the term.'),
    end_date: date('Last day of the term.'),
    application_id: bigint('The application that led to the interval.'),
    application_completed_on: timestamptz('When that application was completed.'),
    interval_datetime: timestamptz("The interval's date and time as the source gives it (intervalDateTime)."),
    is_current: boolean("The lease's current interval (as opposed to history).").notNull().defaulted(),
  },
});

export const LEASE_ACTIVITIES = defineSourceTable({
  name: 'lease_activities',
  meaning: 'Lease events, as r1 of getLeases reports them instead of intervals.',
  key: ['lease_activity_id'],
  parentColumn: 'lease_id',
  indexes: [['lease_id']],
  columns: {
    lease_activity_id: bigint("The event's id.").notNull(),
    lease_id: bigint('Its lease.').notNull(),
    event_type_id: bigint('Kind of event: its id.'),
    event_type: text('Kind of event: its name.'),
    event_date: date('When it happened.'),
    description: text("The source's description."),
  },
});

export const LEASE_CUSTOMERS = defineSourceTable({
  name: 'lease_customers',
  meaning: 'The people on a lease.',
  key: ['lease_id', 'customer_id'],
  parentColumn: 'lease_id',
  columns: {
    lease_id: bigint('The lease.').notNull(),
    customer_id: bigint('The customer.').notNull(),
    customer_type: text("The customer's role on the lease, as the source names it."),
    first_name: text('First name.').personalData('name'),
    middle_name: text('Middle name.').personalData('name'),
    last_name: text('Last name.').personalData('name'),
    name_full: text('Full name.').personalData('name'),
    email_address: text('E-mail address.').personalData('email'),
    lease_customer_status: text("The customer's status on this lease."),
    relationship_name: text('Relationship to the primary customer.'),
    move_in_date: date("The customer's own move-in date."),
    move_out_date: date("The customer's own move-out date."),
  },
});

export const LEASE_UNIT_SPACES = defineSourceTable({
  name: 'lease_unit_spaces',
  meaning: 'The unit spaces of a lease (several for a multi-space lease).',
  key: ['lease_id', 'unit_space_id'],
  parentColumn: 'lease_id',
  columns: {
    lease_id: bigint('The lease.').notNull(),
    unit_space_id: bigint('The unit space.').notNull(),
    unit_space: text("The space's number."),
  },
});

export const LEASE_SCHEDULED_CHARGES = defineSourceTable({
  name: 'lease_scheduled_charges',
  meaning: 'Recurring and one-time charges scheduled on a lease.',
  key: ['scheduled_charge_id'],
  parentColumn: 'lease_id',
  indexes: [['lease_id'], ['lease_interval_id']],
  columns: {
    scheduled_charge_id: bigint("The charge's id.").notNull(),
    lease_id: bigint('The lease.').notNull(),
    lease_interval_id: bigint('The lease interval the charge belongs to.'),
    charge_code_id: bigint('The charge code (rent, pet fee ...): its id.'),
    charge_code: text('The charge code: its name.'),
    charge_type: text('Charge type, as the source names it.'),
    charge_usage: text('Charge usage, as the source names it.'),
    frequency: text('How often the charge recurs, as the source names it.'),
    start_date: date('First day the charge applies.'),
    end_date: date('Last day the charge applies.'),
    amount: money('Amount per occurrence.'),
    description: text("The source's description."),
    application_id: bigint('The application the charge comes from, if any.'),
  },
});

export const AR_TRANSACTIONS = defineSourceTable({
  name: 'ar_transactions',
  meaning: 'The lease ledger: charges, payments, credits, write-offs.',
  key: ['ar_transaction_id'],
  parentColumn: 'lease_id',
  indexes: [
    ['lease_id', 'post_month'],
    ['property_id', 'post_month'],
    ['lease_id', 'due_date'],
  ],
  columns: {
    ar_transaction_id: bigint("The transaction's id.").notNull(),
    lease_id: bigint('The lease.').notNull(),
    property_id: bigint("The lease's property.").notNull(),
    lease_interval_id: bigint('The lease interval it belongs to.'),
    ar_code_id: bigint('The AR code: its id.'),
    ar_code_name: text('The AR code: its name.'),
    transaction_type_id: smallint('Kind of transaction (charge, payment ...).'),
    description: text("The source's description."),
    transaction_date: date('Date of the transaction.'),
    post_date: date('Posting date.'),
    post_month: date('Accounting month, its first day.'),
    due_date: date('Due date.'),
    amount: money('Amount.'),
    amount_paid: money('Part of the amount settled.'),
    balance_due: money('Part of the amount still open.'),
    is_temporary: boolean('A temporary transaction.'),
    is_reversed: boolean('A reversed transaction.'),
    scheduled_charge_id: bigint('The scheduled charge behind it.'),
    ar_payment_id: bigint('The payment behind it.'),
  },
});

/** The parent table first, then its children. */
export const LEASE_TABLES = [
  LEASES,
  LEASE_INTERVALS,
  LEASE_ACTIVITIES,
  LEASE_CUSTOMERS,
  LEASE_UNIT_SPACES,
  LEASE_SCHEDULED_CHARGES,
  AR_TRANSACTIONS,
] as const;

/** The rows one lease record becomes. */
export type LeaseRows = RowsOf<typeof LEASE_TABLES>;
