/**
 * Builders and mutators for invoices in canonical r2 wire shape. Every money field is derived
 * from integer cents: `subTotal` = sum of the merchandise/service lines, `taxAmount`,
 * `shippingAmount` and `discountAmount` = the tax, freight and discount lines, so that
 * `amount` = sum of every line amount; `amountDue` = amount - sum of the payments in
 * `invoicePayments` (voided payments no longer count), spread over the lines first in, first out.
 */
import { isoFromDay, mdy, postMonth, type EpochDay } from './calendar.js';
import { nextId, type PropertyRuntime, type SimContext } from './context.js';
import { INVOICE_TYPE, type InvoiceTypeId, type SimInvoice, type SimInvoicePayment } from './model.js';
import { centsToString, stringToCents } from './money.js';
import { DEPARTMENTS, STAFF_USERS, VOID_REASONS, type GlAccount } from './reference.js';
import type { Rng } from './random.js';

/** Invoice type names by id. */
export const INVOICE_TYPE_NAMES: Record<InvoiceTypeId, string> = {
  [INVOICE_TYPE.Standard]: 'Standard',
  [INVOICE_TYPE.Catalog]: 'Catalog',
  [INVOICE_TYPE.CreditMemo]: 'Credit Memo',
  [INVOICE_TYPE.StandardJobCost]: 'Standard Job Cost',
  [INVOICE_TYPE.CatalogJobCost]: 'Catalog Job Cost',
  [INVOICE_TYPE.CustomerRefund]: 'Customer Refund',
};

const QUANTITIES = Array.from({ length: 25 }, (_, i) => String(i));

/** What a line is, for the header totals. */
export type LineKind = 'item' | 'tax' | 'shipping' | 'discount';

/** A line before it becomes a record. */
export interface LineDraft {
  kind: LineKind;
  description: string;
  quantity: number;
  rateCents: number;
  property: { id: string; name: string; lookupCode: string };
  propertyId: number;
  gl: GlAccount;
  department: (typeof DEPARTMENTS)[number];
  poNumber: string;
  is1099: boolean;
  billback: boolean;
  catalog?: { id: string; name: string; unit: string };
  job?: {
    jobId: string;
    jobName: string;
    jobPhaseId: string;
    jobPhaseName: string;
    costCodeId: string;
    costCodeName: string;
  };
}

/** The header fields of a new invoice. */
export interface InvoiceDraft {
  typeId: InvoiceTypeId;
  invoiceNumber: string;
  vendorId: number;
  vendor: SimInvoice['vendor'];
  remittance: Record<string, string>;
  account?: { id: string; accountNumber: string };
  invoiceDay: EpochDay;
  postDay: EpochDay;
  dueDay: EpochDay;
  onHold: boolean;
  reversalInvoiceId?: string;
  invoiceNote?: string;
  note?: string;
  routingTagId?: string;
  retentionCents: number;
  lines: LineDraft[];
}

/** Builds the invoice record (not yet added to the data set). */
export function makeInvoice(ctx: SimContext, draft: InvoiceDraft): SimInvoice {
  const id = nextId(ctx, 'invoice');
  let sub = 0;
  let tax = 0;
  let shipping = 0;
  let discount = 0;
  const lineItems: Record<string, unknown>[] = [];
  const propertyIds: number[] = [];
  for (const l of draft.lines) {
    const cents = l.quantity * l.rateCents;
    if (l.kind === 'item') sub += cents;
    else if (l.kind === 'tax') tax += cents;
    else if (l.kind === 'shipping') shipping += cents;
    else discount += cents;
    if (!propertyIds.includes(l.propertyId)) propertyIds.push(l.propertyId);
    const rate = centsToString(l.rateCents);
    const amount = l.quantity === 1 ? rate : centsToString(cents);
    const r: Record<string, unknown> = {
      id: String(nextId(ctx, 'lineItem')),
      description: l.description,
      quantity: QUANTITIES[l.quantity] ?? String(l.quantity),
      rate,
      amount,
      amountDue: amount,
      property: l.property,
      glAccount: l.gl,
      departmentId: l.department.id,
      departmentName: l.department.name,
      poNumber: l.poNumber,
      is1099: l.is1099 ? 'true' : 'false',
      billback: l.billback ? '1' : '0',
    };
    if (l.catalog) {
      r.catalogItemId = l.catalog.id;
      r.catalogItemName = l.catalog.name;
      r.unitOfMeasure = l.catalog.unit;
    }
    if (l.job) Object.assign(r, l.job);
    lineItems.push(r);
  }
  const total = sub + tax + shipping + discount;
  // Equal amounts share one string (a data set holds hundreds of thousands of them).
  const totalText =
    total === sub && lineItems.length === 1 ? String(lineItems[0].amount) : centsToString(total);
  const invoice: SimInvoice = {
    id: String(id),
    invoiceNumber: draft.invoiceNumber,
    invoiceTypeId: String(draft.typeId),
    invoiceType: INVOICE_TYPE_NAMES[draft.typeId],
    date: mdy(draft.invoiceDay),
    postDate: mdy(draft.postDay),
    postMonth: postMonth(draft.postDay),
    dueDate: mdy(draft.dueDay),
    postStatus: draft.onHold ? 'On Hold' : 'Posted',
    isPosted: 't',
    isOnHold: draft.onHold ? 1 : 0,
    isExported: false,
    subTotal: sub === total ? totalText : centsToString(sub),
    taxAmount: centsToString(tax),
    shippingAmount: centsToString(shipping),
    discountAmount: centsToString(discount),
    retention: centsToString(draft.retentionCents),
    amount: totalText,
    amountDue: totalText,
    vendor: draft.vendor,
    remittance: draft.remittance,
    lineItems: { lineItem: lineItems },
    _id: id,
    _typeId: draft.typeId,
    _vendorId: draft.vendorId,
    _propertyIds: propertyIds,
    _postDay: isoFromDay(draft.postDay),
    _exported: false,
    _paidDays: [],
    _voidedDays: [],
  };
  if (draft.reversalInvoiceId !== undefined) invoice.reversalInvoiceId = draft.reversalInvoiceId;
  if (draft.invoiceNote !== undefined) invoice.invoiceNote = draft.invoiceNote;
  if (draft.note !== undefined) invoice.note = draft.note;
  if (draft.routingTagId !== undefined) invoice.routingTagId = draft.routingTagId;
  if (draft.account) invoice.account = draft.account;
  return invoice;
}

/** Sets amountDue on the invoice and spreads what is paid over its lines, first in, first out. */
export function setAmountDue(invoice: SimInvoice, dueCents: number): void {
  invoice.amountDue = centsToString(dueCents);
  const total = stringToCents(invoice.amount);
  const lines = invoice.lineItems.lineItem;
  if (total <= 0) {
    for (const l of lines) l.amountDue = l.amount;
    return;
  }
  // Negative lines (discounts) count as applied; payments cover the positive lines in order.
  let pool = total - dueCents;
  for (const l of lines) {
    const c = stringToCents(String(l.amount));
    if (c < 0) pool -= c;
  }
  for (const l of lines) {
    const c = stringToCents(String(l.amount));
    if (c < 0) {
      l.amountDue = '0.00';
      continue;
    }
    const take = Math.min(c, Math.max(0, pool));
    pool -= take;
    l.amountDue = centsToString(c - take);
  }
}

/** Applies a payment of `cents` on `day`; returns the payment record. */
export function applyPayment(
  ctx: SimContext,
  rt: PropertyRuntime,
  invoice: SimInvoice,
  cents: number,
  day: EpochDay,
): SimInvoicePayment {
  const typeId = invoice.remittance.apPaymentTypeId ?? '1';
  const typeName = invoice.remittance.apPaymentType ?? 'Check';
  const pid = nextId(ctx, 'apPayment');
  const payment: SimInvoicePayment = {
    paymentId: String(pid),
    paymentNumber:
      typeId === '1'
        ? String(nextId(ctx, 'checkNumber'))
        : `${typeName.toUpperCase().replace(/\s+/g, '')}-${pid}`,
    paymentType: typeName,
    paymentStatus: typeId === '1' ? 'Issued' : 'Cleared',
    paymentDate: mdy(day),
    paymentAmount: cents === stringToCents(invoice.amount) ? invoice.amount : centsToString(cents),
    postMonth: postMonth(day),
    postDate: mdy(day),
    isReversed: '0',
    payeeName: invoice.remittance.name ?? invoice.vendor.name,
    bankAccountId: rt.info.bankAccountId,
    bankAccountName: rt.info.bankAccountName,
  };
  if (!invoice.invoicePayments) invoice.invoicePayments = { invoicePayment: [] };
  invoice.invoicePayments.invoicePayment.push(payment);
  setAmountDue(invoice, stringToCents(invoice.amountDue) - cents);
  const iso = isoFromDay(day);
  if (invoice._paidDays[invoice._paidDays.length - 1] !== iso) invoice._paidDays.push(iso);
  ctx.summary.invoicePayments++;
  return payment;
}

/** Voids a payment on `day`: it moves to voidedPayments and amountDue goes back up. Returns its cents, or 0. */
export function voidPayment(
  ctx: SimContext,
  invoice: SimInvoice,
  paymentId: string,
  day: EpochDay,
  rng: Rng,
): number {
  const list = invoice.invoicePayments?.invoicePayment;
  const i = list ? list.findIndex((p) => p.paymentId === paymentId) : -1;
  if (!list || i < 0) return 0;
  const [p] = list.splice(i, 1);
  if (list.length === 0) delete invoice.invoicePayments;
  if (!invoice.voidedPayments) invoice.voidedPayments = { voidedPayment: [] };
  invoice.voidedPayments.voidedPayment.push({
    paymentId: p.paymentId,
    paymentNumber: p.paymentNumber,
    paymentAmount: p.paymentAmount,
    paymentDate: p.paymentDate,
    voidedOn: mdy(day),
    voidedBy: rng.pick(STAFF_USERS),
    voidReason: rng.pick(VOID_REASONS),
  });
  const cents = stringToCents(p.paymentAmount);
  const restored = stringToCents(invoice.amountDue) + cents;
  setAmountDue(invoice, restored);
  if (restored === stringToCents(invoice.amount)) invoice.amountDue = invoice.amount;
  const iso = isoFromDay(day);
  if (invoice._voidedDays[invoice._voidedDays.length - 1] !== iso) invoice._voidedDays.push(iso);
  ctx.summary.paymentsVoided++;
  return cents;
}

/** Marks an invoice exported (wire field and mirror). */
export function markExported(ctx: SimContext, invoice: SimInvoice): void {
  invoice.isExported = true;
  invoice._exported = true;
  ctx.summary.invoicesExported++;
}
