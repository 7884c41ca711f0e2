import type { SimInvoice } from '../data/model.js';
import { hashUnit } from './hash.js';
import type { ApiVersion } from './routes.js';

/** What shapes one rendered invoice. */
export interface InvoiceRenderOptions {
  version: ApiVersion;
  includeVoidedPayments: boolean;
  /** Seed of the data set: picks which r1 invoices write money with `$`. */
  seed: number;
}

/** Share of r1 invoices whose money fields carry a `$` prefix (`"$-2500.00"`). */
export const R1_DOLLAR_SHARE = 0.5;

/** Line item fields r1 does not send: catalog, job cost and GL account details. */
export const R2_ONLY_LINE_ITEM_FIELDS = [
  'glAccount',
  'catalogItemId',
  'catalogItemName',
  'unitOfMeasure',
  'jobId',
  'jobName',
  'jobPhaseId',
  'jobPhaseName',
  'costCodeId',
  'costCodeName',
] as const;

const INVOICE_MONEY = [
  'subTotal',
  'taxAmount',
  'shippingAmount',
  'discountAmount',
  'retention',
  'amount',
  'amountDue',
] as const;
const LINE_MONEY = ['rate', 'amount', 'amountDue'] as const;

type Tree = Record<string, unknown>;

function dollars(record: Tree, fields: readonly string[]): Tree {
  const out = { ...record };
  for (const field of fields) {
    const value = out[field];
    if (typeof value === 'string' && value !== '' && !value.startsWith('$')) out[field] = `$${value}`;
  }
  return out;
}

/** Whether an r1 invoice writes its money with `$`: a fixed, seeded choice per invoice. */
export function r1UsesDollars(seed: number, invoiceId: string): boolean {
  return hashUnit(seed, `r1-dollar:${invoiceId}`) < R1_DOLLAR_SHARE;
}

/**
 * One invoice as the given version sends it, before the wire quirks: r2 is the stored shape
 * (voided payments only when asked for); r1 puts line items under `lineItems.lineitem`,
 * leaves out catalog, job cost and GL account details, and in a seeded share of invoices
 * writes money with a `$` prefix. The stored record is not changed.
 */
export function renderInvoice(invoice: SimInvoice, options: InvoiceRenderOptions): Tree {
  const out: Tree = {};
  for (const key of Object.keys(invoice) as (keyof SimInvoice)[]) {
    if (key.startsWith('_')) continue;
    if (key === 'voidedPayments' && !options.includeVoidedPayments) continue;
    out[key] = invoice[key];
  }
  if (options.version === 'r2') return out;

  const dollar = r1UsesDollars(options.seed, invoice.id);
  const lines = invoice.lineItems.lineItem.map((line) => {
    let copy: Tree = { ...line };
    for (const field of R2_ONLY_LINE_ITEM_FIELDS) delete copy[field];
    if (dollar) copy = dollars(copy, LINE_MONEY);
    return copy;
  });
  out.lineItems = { lineitem: lines };
  if (!dollar) return out;
  Object.assign(out, dollars(out, INVOICE_MONEY));
  if (invoice.invoicePayments) {
    out.invoicePayments = {
      invoicePayment: invoice.invoicePayments.invoicePayment.map((p) => dollars({ ...p }, ['paymentAmount'])),
    };
  }
  if (out.voidedPayments && invoice.voidedPayments) {
    out.voidedPayments = {
      voidedPayment: invoice.voidedPayments.voidedPayment.map((p) => dollars({ ...p }, ['paymentAmount'])),
    };
  }
  return out;
}
