import {
  bigint,
  boolean,
  date,
  defineSourceTable,
  money,
  numeric,
  smallint,
  text,
  type RowsOf,
} from '../../warehouse/schema.js';

/** The tables of the invoices stream: `invoices` first, then its children. */

export const INVOICES = defineSourceTable({
  name: 'invoices',
  meaning: 'Vendor invoices (accounts payable).',
  key: ['invoice_id'],
  sourceHash: true,
  indexes: [['vendor_id', 'post_date'], ['post_date'], ['post_month'], ['due_date'], ['reversal_invoice_id']],
  columns: {
    invoice_id: bigint("The invoice's id.").notNull(),
    invoice_number: text("The vendor's invoice number."),
    invoice_type_id: smallint(
      'Invoice type: 5 Standard, 8 Catalog, 12 Credit Memo, 17/18 Job Cost, 20 Customer Refund.',
    ),
    invoice_type: text('Name of the invoice type.'),
    vendor_id: bigint('The vendor.'),
    vendor_name: text("The vendor's name.").personalData('name'),
    vendor_location_name: text("The vendor location's name."),
    invoice_date: date('Invoice date.'),
    post_date: date('Posting date.'),
    post_month: date('Accounting month, its first day.'),
    due_date: date('Due date.'),
    post_status: text('Posting state, as the source names it.'),
    is_posted: boolean('The invoice is posted.'),
    is_on_hold: boolean('The invoice is on hold.'),
    is_exported: boolean('Already exported to accounting.'),
    reversal_invoice_id: bigint('The invoice this one reverses, if any.'),
    sub_total: money('Total before tax, shipping, discount and retention.'),
    tax_amount: money('Tax.'),
    shipping_amount: money('Shipping.'),
    discount_amount: money('Discount (negative).'),
    retention: money('Amount retained.'),
    amount: money('Total.'),
    amount_due: money('What is still unpaid.'),
    remittance_name: text('Whom the invoice is paid to.').personalData('name'),
    ap_payment_type: text('How the invoice is paid.'),
    account_number: text('The vendor account.'),
  },
});

export const INVOICE_LINE_ITEMS = defineSourceTable({
  name: 'invoice_line_items',
  meaning: 'The lines of an invoice.',
  key: ['line_item_id'],
  parentColumn: 'invoice_id',
  indexes: [['invoice_id'], ['property_id']],
  columns: {
    line_item_id: bigint("The line's id.").notNull(),
    invoice_id: bigint('Its invoice.').notNull(),
    property_id: bigint('The property the line is charged to.'),
    property_name: text("That property's name."),
    description: text('What was bought.'),
    quantity: numeric('Quantity bought.'),
    rate: numeric('Price of one unit.'),
    amount: money('Line total.'),
    amount_due: money('What is unpaid of the line.'),
    gl_account_id: bigint('General-ledger account: its id.'),
    gl_account_name: text('General-ledger account: its name.'),
    gl_account_number: text('General-ledger account: its number.'),
    department_id: bigint('Department: its id.'),
    department_name: text('Department: its name.'),
    po_number: text('Purchase order number.'),
    is_1099: boolean('Reportable on a 1099.'),
    billback: boolean('Billed back.'),
    catalog_item_id: bigint('Catalog item (catalog lines): its id.'),
    catalog_item_name: text('Catalog item: its name.'),
    unit_of_measure: text("Catalog item's unit of measure."),
    job_id: bigint('Job (job-cost lines): its id.'),
    job_name: text('Job: its name.'),
    job_phase_id: bigint('Job phase: its id.'),
    job_phase_name: text('Job phase: its name.'),
    cost_code_id: text('Cost code: its id, as the source writes it.'),
    cost_code_name: text('Cost code: its name.'),
  },
});

export const INVOICE_PAYMENTS = defineSourceTable({
  name: 'invoice_payments',
  meaning: 'Payments applied to an invoice.',
  key: ['invoice_id', 'payment_id'],
  parentColumn: 'invoice_id',
  columns: {
    invoice_id: bigint('The invoice.').notNull(),
    payment_id: bigint('The payment.').notNull(),
    payment_number: text('Check number.'),
    payment_type: text('Payment method.'),
    payment_status: text('Payment status.'),
    payment_date: date('When it was paid.'),
    amount: money('Amount applied.'),
    post_date: date('Posting date.'),
    post_month: date('Accounting month, its first day.'),
    is_reversed: boolean('The payment was reversed.'),
    payee_name: text('Who was paid.').personalData('name'),
  },
});

export const VOIDED_PAYMENTS = defineSourceTable({
  name: 'voided_payments',
  meaning: 'Payments voided on an invoice.',
  key: ['invoice_id', 'payment_id'],
  parentColumn: 'invoice_id',
  indexes: [['voided_on']],
  columns: {
    invoice_id: bigint('The invoice.').notNull(),
    payment_id: bigint('The payment.').notNull(),
    payment_number: text('Check number.'),
    amount: money('Amount of the voided payment.'),
    payment_date: date('When it was paid.'),
    voided_on: date('When it was voided.'),
    voided_by: text('Who voided it.'),
    void_reason: text('Why it was voided.'),
  },
});

/** The parent table first, then its children. */
export const INVOICE_TABLES = [INVOICES, INVOICE_LINE_ITEMS, INVOICE_PAYMENTS, VOIDED_PAYMENTS] as const;

/** The rows one invoice record becomes. */
export type InvoiceRows = RowsOf<typeof INVOICE_TABLES>;
