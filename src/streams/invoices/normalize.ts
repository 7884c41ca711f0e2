import {
  asBoolean,
  asDate,
  asId,
  asInt,
  asMoney,
  asPostMonth,
  asText,
  required,
} from '../../source/field-readers.js';
import type { TreeObject } from '../../source/tree.js';
import type { LoadRowOf } from '../../warehouse/schema.js';
import { asObject, listOf, nested, without } from '../record.js';
import type { NormalizedRecord } from '../types.js';
import {
  INVOICES,
  INVOICE_LINE_ITEMS,
  INVOICE_PAYMENTS,
  VOIDED_PAYMENTS,
  type InvoiceRows,
} from './tables.js';

/** Containers of an invoice that have tables of their own (kept out of `invoices.raw`). */
const CHILD_CONTAINERS = ['lineItems', 'lineitems', 'lineitem', 'invoicePayments', 'voidedPayments'] as const;

/** One getInvoices record → rows of invoices, line items, payments and voided payments (r1 or r2). */
export function normalizeInvoice(value: unknown): NormalizedRecord<InvoiceRows> {
  const invoice = asObject(value, 'invoice');
  const invoiceId = required(asId(invoice.id, 'id'), 'id');
  const vendor = nested(invoice, 'vendor');
  const remittance = nested(invoice, 'remittance');
  const account = nested(invoice, 'account');
  const invoiceRow: LoadRowOf<typeof INVOICES> = {
    invoice_id: invoiceId,
    invoice_number: asText(invoice.invoiceNumber, 'invoiceNumber'),
    invoice_type_id: asInt(invoice.invoiceTypeId, 'invoiceTypeId'),
    invoice_type: asText(invoice.invoiceType, 'invoiceType'),
    vendor_id: asId(vendor.id, 'vendor.id'),
    vendor_name: asText(vendor.name, 'vendor.name'),
    vendor_location_name: asText(vendor.locationName, 'vendor.locationName'),
    invoice_date: asDate(invoice.date, 'date'),
    post_date: asDate(invoice.postDate, 'postDate'),
    post_month: asPostMonth(invoice.postMonth, 'postMonth'),
    due_date: asDate(invoice.dueDate, 'dueDate'),
    post_status: asText(invoice.postStatus, 'postStatus'),
    is_posted: asBoolean(invoice.isPosted, 'isPosted'),
    is_on_hold: asBoolean(invoice.isOnHold, 'isOnHold'),
    is_exported: asBoolean(invoice.isExported, 'isExported'),
    reversal_invoice_id: asId(invoice.reversalInvoiceId, 'reversalInvoiceId'),
    sub_total: asMoney(invoice.subTotal, 'subTotal'),
    tax_amount: asMoney(invoice.taxAmount, 'taxAmount'),
    shipping_amount: asMoney(invoice.shippingAmount, 'shippingAmount'),
    discount_amount: asMoney(invoice.discountAmount, 'discountAmount'),
    retention: asMoney(invoice.retention, 'retention'),
    amount: asMoney(invoice.amount, 'amount'),
    amount_due: asMoney(invoice.amountDue, 'amountDue'),
    remittance_name: asText(remittance.name, 'remittance.name'),
    ap_payment_type: asText(remittance.apPaymentType, 'remittance.apPaymentType'),
    account_number: asText(account.accountNumber, 'account.accountNumber'),
    raw: without(invoice, CHILD_CONTAINERS),
  };
  return {
    key: invoiceId,
    rows: {
      invoices: [invoiceRow],
      invoice_line_items: lineItems(invoice).map((item) => lineItemRow(item, invoiceId)),
      invoice_payments: listOf(invoice, 'invoicePayments', 'invoicePayment').map((item) =>
        paymentRow(item, invoiceId),
      ),
      voided_payments: listOf(invoice, 'voidedPayments', 'voidedPayment').map((item) =>
        voidedRow(item, invoiceId),
      ),
    },
  };
}

/** Line items under r2's `lineItems.lineItem` or r1's `lineitem` container. */
function lineItems(invoice: TreeObject): TreeObject[] {
  for (const container of ['lineItems', 'lineitems', 'lineitem']) {
    if (invoice[container] !== undefined) return listOf(invoice, container, 'lineItem', 'lineitem');
  }
  return [];
}

function lineItemRow(item: TreeObject, invoiceId: number): LoadRowOf<typeof INVOICE_LINE_ITEMS> {
  const property = nested(item, 'property');
  const gl = nested(item, 'glAccount');
  return {
    line_item_id: required(asId(item.id, 'lineItem.id'), 'lineItem.id'),
    invoice_id: invoiceId,
    property_id: asId(property.id ?? item.propertyId, 'lineItem.property.id'),
    property_name: asText(property.name ?? item.propertyName, 'lineItem.property.name'),
    description: asText(item.description, 'lineItem.description'),
    quantity: asMoney(item.quantity, 'lineItem.quantity'),
    rate: asMoney(item.rate, 'lineItem.rate'),
    amount: asMoney(item.amount, 'lineItem.amount'),
    amount_due: asMoney(item.amountDue, 'lineItem.amountDue'),
    gl_account_id: asId(gl.id, 'lineItem.glAccount.id'),
    gl_account_name: asText(gl.name, 'lineItem.glAccount.name'),
    gl_account_number: asText(gl.accountNumber, 'lineItem.glAccount.accountNumber'),
    department_id: asId(item.departmentId, 'lineItem.departmentId'),
    department_name: asText(item.departmentName, 'lineItem.departmentName'),
    po_number: asText(item.poNumber, 'lineItem.poNumber'),
    is_1099: asBoolean(item.is1099, 'lineItem.is1099'),
    billback: asBoolean(item.billback, 'lineItem.billback'),
    catalog_item_id: asId(item.catalogItemId, 'lineItem.catalogItemId'),
    catalog_item_name: asText(item.catalogItemName, 'lineItem.catalogItemName'),
    unit_of_measure: asText(item.unitOfMeasure, 'lineItem.unitOfMeasure'),
    job_id: asId(item.jobId, 'lineItem.jobId'),
    job_name: asText(item.jobName, 'lineItem.jobName'),
    job_phase_id: asId(item.jobPhaseId, 'lineItem.jobPhaseId'),
    job_phase_name: asText(item.jobPhaseName, 'lineItem.jobPhaseName'),
    cost_code_id: asText(item.costCodeId, 'lineItem.costCodeId'),
    cost_code_name: asText(item.costCodeName, 'lineItem.costCodeName'),
    raw: item,
  };
}

function paymentRow(item: TreeObject, invoiceId: number): LoadRowOf<typeof INVOICE_PAYMENTS> {
  return {
    invoice_id: invoiceId,
    payment_id: required(asId(item.paymentId, 'invoicePayment.paymentId'), 'invoicePayment.paymentId'),
    payment_number: asText(item.paymentNumber, 'invoicePayment.paymentNumber'),
    payment_type: asText(item.paymentType, 'invoicePayment.paymentType'),
    payment_status: asText(item.paymentStatus, 'invoicePayment.paymentStatus'),
    payment_date: asDate(item.paymentDate, 'invoicePayment.paymentDate'),
    amount: asMoney(item.paymentAmount, 'invoicePayment.paymentAmount'),
    post_date: asDate(item.postDate, 'invoicePayment.postDate'),
    post_month: asPostMonth(item.postMonth, 'invoicePayment.postMonth'),
    is_reversed: asBoolean(item.isReversed, 'invoicePayment.isReversed'),
    payee_name: asText(item.payeeName, 'invoicePayment.payeeName'),
    raw: item,
  };
}

function voidedRow(item: TreeObject, invoiceId: number): LoadRowOf<typeof VOIDED_PAYMENTS> {
  return {
    invoice_id: invoiceId,
    payment_id: required(asId(item.paymentId, 'voidedPayment.paymentId'), 'voidedPayment.paymentId'),
    payment_number: asText(item.paymentNumber, 'voidedPayment.paymentNumber'),
    amount: asMoney(item.paymentAmount, 'voidedPayment.paymentAmount'),
    payment_date: asDate(item.paymentDate, 'voidedPayment.paymentDate'),
    voided_on: asDate(item.voidedOn, 'voidedPayment.voidedOn'),
    voided_by: asText(item.voidedBy, 'voidedPayment.voidedBy'),
    void_reason: asText(item.voidReason, 'voidedPayment.voidReason'),
    raw: item,
  };
}
