import { nonNegativeInt, positiveInt, streamSettings } from '../settings.js';
import type { StreamManifest } from '../types.js';
import { GET_INVOICES } from './method.js';

/** Vendor invoices with line items, payments and voided payments, per property group. */
export const invoices = {
  name: 'invoices',
  method: GET_INVOICES,
  backfillBy: 'post date',
  settings: streamSettings(
    { schedule: '45 2 * * *', chunk: '3m' },
    {
      /** Overlap re-read behind each cursor (the post-date window also reaches the previous month's first day). */
      lookbackDays: nonNegativeInt.default(7),
      /** Longest date window of one work unit. */
      windowDays: positiveInt.default(92),
      /** Days between two full re-reads of a property group's invoices (catches changes no date window shows, such as an old invoice marked exported). */
      fullRefreshDays: positiveInt.default(7),
      /** Properties batched into one `propertyIds` call. */
      propertyGroupSize: positiveInt.max(500).default(50),
    },
  ),
  load: async () => (await import('./index.js')).invoicesStream,
} as const satisfies StreamManifest;
