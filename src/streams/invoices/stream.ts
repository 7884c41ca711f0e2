import { defineStream } from '../define.js';
import { idOf } from '../record.js';
import { invoices } from './manifest.js';
import { normalizeInvoice } from './normalize.js';
import { planInvoices, planInvoicesBackfill } from './plan.js';

export default defineStream(invoices, {
  plan: planInvoices,
  planBackfill: planInvoicesBackfill,
  normalize: normalizeInvoice,
  recordKey: (record) => idOf(record),
});
