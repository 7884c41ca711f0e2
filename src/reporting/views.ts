/**
 * The reporting layer's declaration: every view of schema `reporting`, what it is for, what
 * each column means, and one example query. The database comments (COMMENT ON) and
 * docs/reporting.md are generated from here; the views' SQL lives in the migrations
 * (migrations/0004_reporting.ts, with accounts since migrations/0011_reporting_accounts.ts;
 * properties from the dimension since migrations/0013_verifications_property_fields.ts),
 * and a test checks that both name the same columns.
 */

/** The schema of the views. */
export const REPORTING_SCHEMA = 'reporting';

/**
 * The schema behind the views, which no reader may use: the materialized views and every
 * view's query (reporting.X reads reporting_private.X, leaving out the rows of accounts the
 * reader may not see), the readers' accounts and the function that looks them up.
 */
export const REPORTING_PRIVATE_SCHEMA = 'reporting_private';

/** One column of a view. */
export interface ReportingColumn {
  name: string;
  /** What the column holds, in words a dashboard user understands (the column's comment). */
  meaning: string;
}

/** One view of the reporting layer. */
export interface ReportingView {
  name: string;
  /** One line: what the view answers. */
  purpose: string;
  /** The rules behind the rows: what is left out, how "today" is taken, known limits. */
  notes: string;
  columns: readonly ReportingColumn[];
  /** A typical dashboard query on the view. */
  example: string;
  /**
   * Why the view is materialized (refreshed at the end of each sync), when it is: what made
   * the plain view too slow on the large data set.
   */
  materialized?: string;
  /**
   * How and why the view's sums are kept in a table, maintained group by group at the end of
   * each sync (the groups the sync wrote summed again), when they are.
   */
  maintained?: {
    /** The groups, and the rows of theirs a sync writes: "(account and post month) whose invoices or invoice lines". */
    groups: string;
    /** What a refresh of the whole cost. */
    reason: string;
  };
}

/** The sentence that says a view is materialized, and why. */
export function materializedNote(view: ReportingView): string {
  return `Materialized view, refreshed at the end of each sync: ${view.materialized}.`;
}

/** The sentence that says a view's sums are maintained group by group, and why. */
function maintainedNote(view: ReportingView): string {
  return `Maintained group by group: its sums are kept in a table, and only the groups ${view.maintained?.groups} a sync changed are refreshed at the end of each sync, since ${view.maintained?.reason}. Account and property names are read with the rows, so they are always current.`;
}

/** The sentence of a view's comment and docs on how it is kept, if it is not a plain view. */
export function keepingNote(view: ReportingView): string | undefined {
  if (view.maintained) return maintainedNote(view);
  return view.materialized ? materializedNote(view) : undefined;
}

/** Words reused in several columns' meanings. */
const ACCOUNT_ID: ReportingColumn = {
  name: 'account_id',
  meaning:
    'The source account the row belongs to (accounts[].id of the configuration; default in the one-account form). Property, lease and invoice ids are unique within an account only.',
};
const ACCOUNT_NAME: ReportingColumn = {
  name: 'account_name',
  meaning:
    "The account's display name from the configuration (accounts[].name); empty when none is configured.",
};
const ACCOUNT = [ACCOUNT_ID, ACCOUNT_NAME] as const;
const PROPERTY_ID: ReportingColumn = { name: 'property_id', meaning: 'The property (source PropertyID).' };
const PROPERTY_NAME: ReportingColumn = {
  name: 'property_name',
  meaning: "The property's name (see reporting.properties).",
};
const AS_OF: ReportingColumn = {
  name: 'as_of_date',
  meaning: 'The day the answer is as of: today in the time zone of reporting.settings.',
};
const TODAY_NOTE =
  "Today is reporting.today(): the current day in the time zone stored in reporting.settings (the configuration's timeZone, written at the end of each sync).";
const MONEY_NOTE =
  "Money is numeric, exact to the cent, with the ledger's signs (charges positive, payments and credits negative).";
const BUCKETS: readonly ReportingColumn[] = [
  {
    name: 'not_yet_due',
    meaning: 'Open balance not yet past due (due today or later, or without a due date).',
  },
  { name: 'days_1_30', meaning: 'Open balance 1 to 30 days past due.' },
  { name: 'days_31_60', meaning: 'Open balance 31 to 60 days past due.' },
  { name: 'days_61_90', meaning: 'Open balance 61 to 90 days past due.' },
  { name: 'over_90', meaning: 'Open balance more than 90 days past due.' },
];

/** Every view of `reporting`, in the order the docs list them. */
export const REPORTING_VIEWS: readonly ReportingView[] = [
  {
    name: 'portfolio',
    purpose:
      'One row per account: its properties, units and occupancy, current leases, open AR and open AP, side by side.',
    notes:
      'Accounts are those the configuration has run (with their names) and any account the warehouse holds properties of. ' +
      'Properties, units and occupancy sum reporting.properties and the latest month of reporting.occupancy_monthly (as of the last sync). ' +
      'Current leases are Current and Notice leases of homes (other-income leases left out). Open AR is what reporting.ar_aging sums, past due AR its part due before today; ' +
      'open AP is what reporting.ap_open_invoices lists. ' +
      `${TODAY_NOTE} ${MONEY_NOTE}`,
    columns: [
      ...ACCOUNT,
      {
        name: 'properties',
        meaning:
          'Properties of the account: those the source lists, and any its leases and invoice lines name besides (see reporting.properties).',
      },
      {
        name: 'units_known',
        meaning: 'Units any lease of the account has named (summed over its properties).',
      },
      {
        name: 'units_occupied',
        meaning: 'Of those, units with a resident in the latest month of reporting.occupancy_monthly.',
      },
      { name: 'occupancy_percent', meaning: 'units_occupied / units_known in percent, one decimal.' },
      {
        name: 'current_leases',
        meaning: 'Current and Notice leases of homes (parking and storage left out).',
      },
      {
        name: 'open_ar_balance',
        meaning: "Open AR balance of the account's leases (positive: residents owe).",
      },
      { name: 'past_due_ar_balance', meaning: 'Part of the open AR balance whose due date is before today.' },
      { name: 'open_ap_invoices', meaning: 'Invoices with an amount still due.' },
      { name: 'open_ap_amount', meaning: 'What those invoices still have due.' },
      AS_OF,
    ],
    example: `select account_name, properties, occupancy_percent, current_leases, open_ar_balance, past_due_ar_balance, open_ap_amount
  from reporting.portfolio
 order by account_id;`,
  },
  {
    name: 'rent_roll',
    purpose:
      'One row per lease that is Current or Notice today: where, who, the current term, monthly charges and balances.',
    notes:
      'Leases the source no longer lists (deleted_at set) are left out. A multi-space lease is one row, its spaces listed in unit_spaces. ' +
      'The primary resident is the customer whose type is Primary (else relationship Primary, else the lowest customer id). ' +
      "Monthly charges are the current interval's scheduled charges of frequency Monthly in effect today. " +
      'Balances count non-temporary, non-reversed AR transactions still open. Other-income leases (parking, storage) are included and flagged. ' +
      `${TODAY_NOTE} ${MONEY_NOTE}`,
    columns: [
      ...ACCOUNT,
      PROPERTY_ID,
      PROPERTY_NAME,
      { name: 'lease_id', meaning: 'The lease.' },
      { name: 'unit_id', meaning: 'The unit the lease is on.' },
      { name: 'unit_number', meaning: "The unit's number." },
      { name: 'building_name', meaning: "The unit's building." },
      { name: 'floor_plan_name', meaning: "The unit's floor plan." },
      {
        name: 'unit_spaces',
        meaning: "The lease's unit spaces, comma-separated (several for a multi-space lease).",
      },
      { name: 'primary_customer_id', meaning: "The primary resident's customer id." },
      { name: 'primary_resident', meaning: "The primary resident's full name." },
      { name: 'lease_status', meaning: 'Current or Notice.' },
      { name: 'is_month_to_month', meaning: 'The lease runs month to month.' },
      { name: 'is_other_income', meaning: 'An other-income lease (parking, storage) rather than a home.' },
      { name: 'move_in_date', meaning: 'The day the residents moved in.' },
      { name: 'move_out_date', meaning: 'The planned or actual move-out day, if any.' },
      { name: 'lease_start_date', meaning: 'Start of the current lease interval (term).' },
      { name: 'lease_end_date', meaning: 'End of the current lease interval (term).' },
      {
        name: 'monthly_charges',
        meaning:
          "Sum of the current interval's monthly scheduled charges in effect today (rent, pet rent, utilities ...).",
      },
      {
        name: 'open_balance',
        meaning: 'Open AR balance of the lease (positive: the residents owe; negative: a credit).',
      },
      { name: 'past_due_balance', meaning: 'Part of the open balance whose due date is before today.' },
      AS_OF,
    ],
    example: `select account_name, property_name, count(*) as leases, sum(monthly_charges) as monthly_charges, sum(past_due_balance) as past_due
  from reporting.rent_roll
 where not is_other_income
 group by account_id, account_name, property_id, property_name
 order by account_name, property_name;`,
  },
  {
    name: 'occupancy_monthly',
    purpose:
      "Per property and month: units known, units occupied at the month's end (today for the current month), occupancy %.",
    notes:
      'The source gives no unit inventory in the methods synced, so units known is the number of distinct units any lease of the property has ever named (all time, the same every month). ' +
      'A unit is occupied on a day when a Current, Notice or Past lease moved in on or before it and moves out after it (or has no move-out and is Current or Notice). ' +
      "Other-income leases (parking, storage) and leases the source no longer lists are left out. Months run from the property's first move-in to the current month. " +
      TODAY_NOTE,
    columns: [
      ...ACCOUNT,
      PROPERTY_ID,
      PROPERTY_NAME,
      { name: 'month', meaning: 'The month, as its first day.' },
      { name: 'month_end', meaning: "The month's last day." },
      {
        name: 'as_of_date',
        meaning: "The day occupancy is counted on: the month's last day, or today for the current month.",
      },
      {
        name: 'units_known',
        meaning: 'Distinct units any lease of the property has named (the source has no unit list).',
      },
      {
        name: 'units_occupied',
        meaning: 'Distinct units with a resident on as_of_date (a multi-space lease counts once).',
      },
      { name: 'occupancy_percent', meaning: 'units_occupied / units_known in percent, one decimal.' },
    ],
    materialized:
      'counting the units occupied at every month end of every property took seconds on the large data set; the current month is counted as of the last refresh (see as_of_date)',
    example: `select property_name, month, occupancy_percent
  from reporting.occupancy_monthly
 where month >= date_trunc('month', reporting.today()) - interval '11 months'
 order by property_name, month;`,
  },
  {
    name: 'lease_activity_monthly',
    purpose: 'Per property and month: move-ins, move-outs, renewals started and cancellations.',
    notes:
      'Move-ins: leases that moved in (Current, Notice or Past) by their move-in day up to today. Move-outs: those leases by their move-out day up to today. ' +
      'Renewals: lease intervals of type Renewal by their start day up to today. Cancellations: Cancelled leases by the move-in day they had planned (the source gives no cancellation date). ' +
      'Other-income leases and rows the source no longer lists are left out; months without any activity have no row. ' +
      TODAY_NOTE,
    columns: [
      ...ACCOUNT,
      PROPERTY_ID,
      PROPERTY_NAME,
      { name: 'month', meaning: 'The month, as its first day.' },
      { name: 'move_ins', meaning: 'Leases that moved in during the month.' },
      { name: 'move_outs', meaning: 'Leases that moved out during the month.' },
      { name: 'renewals', meaning: 'Renewal intervals that started during the month.' },
      { name: 'cancellations', meaning: 'Cancelled leases whose planned move-in fell in the month.' },
    ],
    example: `select month, sum(move_ins) as move_ins, sum(move_outs) as move_outs, sum(renewals) as renewals
  from reporting.lease_activity_monthly
 group by month
 order by month desc
 limit 12;`,
  },
  {
    name: 'lease_expirations',
    purpose:
      'Per property and month: Current and Notice leases whose current interval ends that month, and how many already have a renewal.',
    notes:
      'A lease has a renewal when it has a Renewal interval starting after its current one. On notice counts Notice leases (moving out). ' +
      'Other-income leases and rows the source no longer lists are left out. Past months show leases still Current after their term ended (typically month to month).',
    columns: [
      ...ACCOUNT,
      PROPERTY_ID,
      PROPERTY_NAME,
      { name: 'month', meaning: 'The month the current interval ends, as its first day.' },
      {
        name: 'expiring_leases',
        meaning: 'Current and Notice leases whose current interval ends in the month.',
      },
      {
        name: 'renewed',
        meaning: 'Of those, leases with a Renewal interval starting after the current one.',
      },
      { name: 'on_notice', meaning: 'Of those, leases on Notice (the residents are moving out).' },
      { name: 'month_to_month', meaning: 'Of those, month-to-month leases.' },
    ],
    example: `select property_name, month, expiring_leases, renewed, on_notice, expiring_leases - renewed - on_notice as undecided
  from reporting.lease_expirations
 where month between date_trunc('month', reporting.today()) and date_trunc('month', reporting.today()) + interval '3 months'
 order by month, property_name;`,
  },
  {
    name: 'ar_aging',
    purpose:
      'Per lease with open AR: the open balance by days past due (not yet due, 1-30, 31-60, 61-90, over 90) as of today.',
    notes:
      'Open items are AR transactions with a balance due that are not temporary, not reversed and still listed by the source, on leases still listed. ' +
      'An item falls in the bucket of today minus its due date; credits (negative balances) age like charges. ' +
      `${TODAY_NOTE} To see the buckets at another moment, set reporting.now for the session (set reporting.now = '2024-07-01 05:30+00'). ${MONEY_NOTE}`,
    columns: [
      ...ACCOUNT,
      PROPERTY_ID,
      PROPERTY_NAME,
      { name: 'lease_id', meaning: 'The lease.' },
      { name: 'unit_number', meaning: "The lease's unit number." },
      { name: 'primary_resident', meaning: "The primary resident's full name." },
      { name: 'lease_status', meaning: "The lease's status (Current, Notice, Past ...)." },
      AS_OF,
      { name: 'open_items', meaning: 'Open AR transactions of the lease.' },
      { name: 'balance', meaning: 'Total open balance (the sum of the buckets).' },
      ...BUCKETS,
    ],
    example: `select property_name, unit_number, primary_resident, balance, over_90
  from reporting.ar_aging
 where over_90 > 0
 order by over_90 desc
 limit 20;`,
  },
  {
    name: 'ar_aging_by_property',
    purpose: 'Per property: the AR aging buckets of reporting.ar_aging summed over its leases.',
    notes: `Sums reporting.ar_aging; the same rules apply. ${TODAY_NOTE} ${MONEY_NOTE}`,
    columns: [
      ...ACCOUNT,
      PROPERTY_ID,
      PROPERTY_NAME,
      AS_OF,
      { name: 'leases', meaning: 'Leases with open AR.' },
      { name: 'open_items', meaning: 'Open AR transactions.' },
      { name: 'balance', meaning: 'Total open balance.' },
      ...BUCKETS,
    ],
    example: `select property_name, balance, not_yet_due, days_1_30, days_31_60, days_61_90, over_90
  from reporting.ar_aging_by_property
 order by balance desc;`,
  },
  {
    name: 'ar_activity_monthly',
    purpose:
      'Per property, post month and AR code: charges, deposits, payments, concessions, deposit applications, refunds and write-offs.',
    notes:
      "Amounts by the source's transaction types: 1 charge, 2 payment, 3 concession/credit, 4 deposit, 5 deposit application, 6 refund, 7 write-off. " +
      'Temporary transactions, reversed transactions (a returned payment and its reversal, both marked reversed by the source, cancel out) and rows the source no longer lists (or whose lease it no longer lists) are left out. ' +
      "Post months are the source's accounting months. " +
      MONEY_NOTE,
    columns: [
      ...ACCOUNT,
      PROPERTY_ID,
      PROPERTY_NAME,
      { name: 'post_month', meaning: 'The accounting month, as its first day.' },
      { name: 'ar_code_id', meaning: 'The AR code (rent, late fee, payment ...).' },
      { name: 'ar_code_name', meaning: "The AR code's name." },
      { name: 'transactions', meaning: 'AR transactions counted.' },
      { name: 'charges', meaning: 'Charges (type 1), positive.' },
      { name: 'deposits', meaning: 'Security deposits charged (type 4).' },
      { name: 'payments', meaning: 'Payments received (type 2), negative.' },
      { name: 'concessions', meaning: 'Concessions and credits (type 3), negative.' },
      { name: 'deposit_applications', meaning: 'Deposits applied to the balance (type 5).' },
      { name: 'refunds', meaning: 'Refunds to residents (type 6).' },
      { name: 'write_offs', meaning: 'Balances written off (type 7), negative.' },
      { name: 'net_amount', meaning: 'Sum of all the above: the change of the AR balance.' },
    ],
    maintained: {
      groups: '(account, property and post month) whose AR transactions or leases',
      reason:
        'summing the whole AR ledger again took seconds on the large data set, for the few dozen transactions a nightly sync changes',
    },
    example: `select post_month, sum(charges) as charges, sum(payments) as payments, sum(concessions) as concessions, sum(write_offs) as write_offs
  from reporting.ar_activity_monthly
 where post_month >= date '2025-01-01'
 group by post_month
 order by post_month;`,
  },
  {
    name: 'vendor_spend_monthly',
    purpose:
      'Per post month, vendor and property (from invoice lines): invoices, credit memos and the net amount spent.',
    notes:
      'Refunds to residents (invoice type 20, Customer Refund) are not vendor spend and are left out. A reversal (an invoice with reversal_invoice_id) and the invoice it reverses cancel out and are both left out. ' +
      'Credit memos (type 12) are netted: their negative amounts reduce the spend. An invoice whose lines name several properties counts once for each. ' +
      'Invoices and lines the source no longer lists are left out. ' +
      MONEY_NOTE,
    columns: [
      ...ACCOUNT,
      { name: 'post_month', meaning: "The invoices' accounting month, as its first day." },
      { name: 'vendor_id', meaning: 'The vendor.' },
      { name: 'vendor_name', meaning: "The vendor's name." },
      { name: 'property_id', meaning: 'The property the invoice lines are charged to.' },
      PROPERTY_NAME,
      { name: 'invoices', meaning: 'Invoices (credit memos not counted).' },
      { name: 'credit_memos', meaning: 'Credit memos.' },
      { name: 'amount', meaning: 'Net amount of the lines: invoices minus credit memos.' },
      { name: 'credit_memo_amount', meaning: 'Part of amount from credit memos (negative).' },
    ],
    maintained: {
      groups: '(account and invoice post month) whose invoices or invoice lines',
      reason:
        'summing every invoice line again took a second on the large data set, for the dozen invoices a nightly sync changes',
    },
    example: `select vendor_name, sum(amount) as spend
  from reporting.vendor_spend_monthly
 where post_month >= date_trunc('month', reporting.today()) - interval '11 months'
 group by vendor_name
 order by spend desc
 limit 10;`,
  },
  {
    name: 'ap_open_invoices',
    purpose: 'Invoices with an amount still due: vendor, property, due date and days past due.',
    notes:
      'Every invoice the source still lists whose amount due is not zero, refunds to residents included (flagged by invoice_type_id 20) and open credit memos (negative amounts due). ' +
      "property_id is set when all the invoice's lines are charged to one property; property_count says how many they name. " +
      `${TODAY_NOTE} ${MONEY_NOTE}`,
    columns: [
      ...ACCOUNT,
      { name: 'invoice_id', meaning: 'The invoice.' },
      { name: 'invoice_number', meaning: "The vendor's invoice number." },
      {
        name: 'invoice_type_id',
        meaning: 'Invoice type: 5 Standard, 8 Catalog, 12 Credit Memo, 17/18 Job Cost, 20 Customer Refund.',
      },
      { name: 'invoice_type', meaning: "The invoice type's name." },
      { name: 'vendor_id', meaning: 'The vendor (for a customer refund, the resident).' },
      { name: 'vendor_name', meaning: "The vendor's name." },
      {
        name: 'property_id',
        meaning: "The property all the invoice's lines are charged to; empty when they name several.",
      },
      PROPERTY_NAME,
      { name: 'property_count', meaning: "How many properties the invoice's lines are charged to." },
      { name: 'invoice_date', meaning: "The invoice's date." },
      { name: 'post_date', meaning: 'The day it was posted.' },
      { name: 'post_month', meaning: 'Its accounting month, as the first day.' },
      { name: 'due_date', meaning: 'The day payment is due.' },
      { name: 'post_status', meaning: 'Posting status (Posted, On Hold ...).' },
      { name: 'is_on_hold', meaning: 'Payment is on hold.' },
      { name: 'amount', meaning: "The invoice's total." },
      { name: 'amount_due', meaning: 'What is still unpaid.' },
      { name: 'days_past_due', meaning: 'Days since the due date (0 when not yet due).' },
      AS_OF,
    ],
    example: `select vendor_name, count(*) as invoices, sum(amount_due) as due, max(days_past_due) as oldest_days_past_due
  from reporting.ap_open_invoices
 where invoice_type_id <> 20
 group by vendor_name
 order by due desc;`,
  },
  {
    name: 'voided_payments_log',
    purpose: 'Each voided payment with its invoice, vendor, property, amount, dates and reason.',
    notes:
      "Voided payments and invoices the source no longer lists are left out. property_id is set when all the invoice's lines are charged to one property. " +
      MONEY_NOTE,
    columns: [
      ...ACCOUNT,
      { name: 'invoice_id', meaning: 'The invoice the payment was for.' },
      { name: 'invoice_number', meaning: "The vendor's invoice number." },
      { name: 'invoice_type', meaning: "The invoice type's name." },
      { name: 'vendor_id', meaning: 'The vendor.' },
      { name: 'vendor_name', meaning: "The vendor's name." },
      {
        name: 'property_id',
        meaning: "The property all the invoice's lines are charged to; empty when they name several.",
      },
      PROPERTY_NAME,
      { name: 'payment_id', meaning: 'The voided payment.' },
      { name: 'payment_number', meaning: 'Its check or payment number.' },
      { name: 'amount', meaning: 'The amount of the voided payment.' },
      { name: 'payment_date', meaning: 'When it was paid.' },
      { name: 'voided_on', meaning: 'When it was voided.' },
      { name: 'voided_by', meaning: 'Who voided it.' },
      { name: 'void_reason', meaning: 'Why it was voided.' },
    ],
    example: `select voided_on, vendor_name, invoice_number, payment_number, amount, void_reason
  from reporting.voided_payments_log
 where voided_on >= reporting.today() - 30
 order by voided_on desc;`,
  },
  {
    name: 'properties',
    purpose:
      'One row per property the warehouse knows, with its name, kind, parent, year built and address: the property dimension the other views join.',
    notes:
      'Read from the properties the source lists (getProperties, the properties stream); a property it does not list (the stream disabled, or a property the source no longer lists) ' +
      "is still named, by its leases and invoice lines, with the dimension's columns empty. " +
      'A property is its account and its id: join on both (two accounts may use the same property ids).',
    columns: [
      ...ACCOUNT,
      PROPERTY_ID,
      {
        name: 'property_name',
        meaning:
          "The property's marketing name (for a property the source does not list: the name its leases and invoice lines give).",
      },
      {
        name: 'property_type',
        meaning: 'Kind of property, as the source names it (Apartment, Student ...).',
      },
      {
        name: 'parent_property_id',
        meaning: 'The parent property, for a child property of a parent/child pair; empty otherwise.',
      },
      { name: 'lookup_code', meaning: "The property's short lookup code." },
      { name: 'year_built', meaning: 'Year the property was built.' },
      { name: 'street', meaning: 'Street address.' },
      { name: 'city', meaning: 'City.' },
      { name: 'state', meaning: 'State or province code.' },
      { name: 'postal_code', meaning: 'Postal code.' },
      { name: 'country', meaning: 'Country code.' },
      {
        name: 'is_disabled',
        meaning: 'The property is disabled at the source (its leases and invoices are not synced).',
      },
      { name: 'ar_post_month', meaning: 'The open accounts-receivable post month, its first day.' },
      { name: 'ap_post_month', meaning: 'The open accounts-payable post month, its first day.' },
    ],
    materialized:
      'every view joins it, and naming the properties from every lease and invoice line took 0.3 s on the large data set',
    example: `select property_id, property_name, property_type, city, year_built
  from reporting.properties
 order by property_name;`,
  },
];

/** Objects of `reporting` other than views: the settings table and the today() function. */
export const REPORTING_SETTINGS = {
  table: 'settings',
  purpose: 'One row of settings the views read: the time zone their "today" is taken in.',
  columns: [
    { name: 'singleton', meaning: 'Always true: the table holds one row.' },
    {
      name: 'time_zone',
      meaning: 'IANA time zone of "today" (the configuration\'s timeZone, written at the end of each sync).',
    },
    {
      name: 'source_day_offset',
      meaning:
        "Days the source's today runs ahead of the server's (0 against the real source; a simulator may run ahead), written at the end of each sync.",
    },
    { name: 'updated_at', meaning: 'When the row was last written.' },
  ] as readonly ReportingColumn[],
  todayFunction:
    'Today in the time zone of reporting.settings (plus its source_day_offset); set reporting.now (a timestamptz) for the session to take another moment as now.',
} as const;
