import { idOf } from '../record.js';
import type { StreamDefinition } from '../types.js';
import { invoices } from './manifest.js';
import { normalizeInvoice } from './normalize.js';
import { planInvoices, planInvoicesBackfill } from './plan.js';

/** Vendor invoices with line items, payments and voided payments, per property group. */
export const invoicesStream: StreamDefinition = {
  name: invoices.name,
  method: invoices.method,
  entity: 'invoice',
  tables: invoices.tables,
  plan: planInvoices,
  planBackfill: planInvoicesBackfill,
  normalize: (record) => normalizeInvoice(record),
  recordKey: (record) => idOf(record),
};
