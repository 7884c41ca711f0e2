import { INVOICE_TYPE, type IsoDay, type SimInvoice } from '../data/model.js';
import type { DatasetIndex } from './dataset-index.js';
import { ParamReader } from './params.js';
import type { ApiVersion } from './routes.js';

/** Parameters getInvoices accepts in each version (r1 has a single `vendorId`, r2 `vendorIds`). */
export const INVOICE_PARAMS: Record<ApiVersion, readonly string[]> = {
  r1: [
    'ids',
    'invoiceNumber',
    'vendorId',
    'propertyIds',
    'fromDate',
    'toDate',
    'paidInvoiceFromDate',
    'paidInvoiceToDate',
    'postMonth',
    'includeVoidedPayments',
    'voidedPaymentFromDate',
    'voidedPaymentToDate',
    'includeExported',
    'customerRefunds',
    'invoiceTypeIds',
  ],
  r2: [
    'ids',
    'invoiceNumber',
    'vendorIds',
    'propertyIds',
    'fromDate',
    'toDate',
    'paidInvoiceFromDate',
    'paidInvoiceToDate',
    'postMonth',
    'includeVoidedPayments',
    'voidedPaymentFromDate',
    'voidedPaymentToDate',
    'includeExported',
    'customerRefunds',
    'invoiceTypeIds',
  ],
};

/** A getInvoices call's parameters, decoded and checked. */
export interface InvoiceQuery {
  version: ApiVersion;
  ids?: Set<number>;
  invoiceNumber?: string;
  vendorIds?: Set<number>;
  propertyIds?: number[];
  postFrom?: IsoDay;
  postTo?: IsoDay;
  paidFrom?: IsoDay;
  paidTo?: IsoDay;
  postMonth?: string;
  includeVoidedPayments: boolean;
  voidedFrom?: IsoDay;
  voidedTo?: IsoDay;
  includeExported: boolean;
  customerRefunds: boolean;
  invoiceTypeIds?: Set<number>;
}

/** Decodes getInvoices parameters; throws an ApiError (code 400 naming the parameter) on a bad one. */
export function parseInvoiceQuery(params: Record<string, string>, version: ApiVersion): InvoiceQuery {
  const p = new ParamReader(params, INVOICE_PARAMS[version]);
  const set = (ids: number[] | undefined) => (ids ? new Set(ids) : undefined);
  const vendorIds =
    version === 'r1'
      ? p.id('vendorId') === undefined
        ? undefined
        : [p.id('vendorId')!]
      : p.idList('vendorIds');
  return {
    version,
    ids: set(p.idList('ids')),
    invoiceNumber: p.text('invoiceNumber'),
    vendorIds: set(vendorIds),
    propertyIds: p.idList('propertyIds'),
    postFrom: p.date('fromDate'),
    postTo: p.date('toDate'),
    paidFrom: p.date('paidInvoiceFromDate'),
    paidTo: p.date('paidInvoiceToDate'),
    postMonth: p.postMonth('postMonth'),
    includeVoidedPayments: p.flag('includeVoidedPayments'),
    voidedFrom: p.date('voidedPaymentFromDate'),
    voidedTo: p.date('voidedPaymentToDate'),
    includeExported: p.flag('includeExported'),
    customerRefunds: p.flag('customerRefunds'),
    invoiceTypeIds: set(p.idList('invoiceTypeIds')),
  };
}

function anyDayIn(days: readonly IsoDay[], from: IsoDay | undefined, to: IsoDay | undefined): boolean {
  return days.some((day) => (from === undefined || day >= from) && (to === undefined || day <= to));
}

/** Whether one invoice matches every filter of the query. */
export function invoiceMatches(invoice: SimInvoice, q: InvoiceQuery): boolean {
  if (!q.includeExported && invoice._exported) return false;
  if (!q.customerRefunds && invoice._typeId === INVOICE_TYPE.CustomerRefund) return false;
  if (q.ids && !q.ids.has(invoice._id)) return false;
  if (q.invoiceNumber !== undefined && invoice.invoiceNumber !== q.invoiceNumber) return false;
  if (q.vendorIds && !q.vendorIds.has(invoice._vendorId)) return false;
  if (q.invoiceTypeIds && !q.invoiceTypeIds.has(invoice._typeId)) return false;
  if (q.postFrom !== undefined && invoice._postDay < q.postFrom) return false;
  if (q.postTo !== undefined && invoice._postDay > q.postTo) return false;
  if (
    (q.paidFrom !== undefined || q.paidTo !== undefined) &&
    !anyDayIn(invoice._paidDays, q.paidFrom, q.paidTo)
  )
    return false;
  if (
    (q.voidedFrom !== undefined || q.voidedTo !== undefined) &&
    !anyDayIn(invoice._voidedDays, q.voidedFrom, q.voidedTo)
  )
    return false;
  if (q.postMonth !== undefined && invoice.postMonth !== q.postMonth) return false;
  return true;
}

/**
 * The invoices matching the query in id order. With `propertyIds` (an invoice matches when any
 * of its line items is at one of them) only those properties' invoices are looked at.
 */
export function selectInvoices(index: DatasetIndex, q: InvoiceQuery): SimInvoice[] {
  if (!q.propertyIds) return index.allInvoices().filter((invoice) => invoiceMatches(invoice, q));
  const seen = new Set<SimInvoice>();
  for (const propertyId of q.propertyIds) {
    for (const invoice of index.invoicesByProperty.get(propertyId) ?? []) {
      if (!seen.has(invoice) && invoiceMatches(invoice, q)) seen.add(invoice);
    }
  }
  return [...seen].sort((a, b) => a._id - b._id);
}
