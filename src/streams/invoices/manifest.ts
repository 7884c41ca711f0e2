import type { SettingsBuilders } from '../settings.js';
import type { StreamManifest } from '../types.js';
import { GET_INVOICES } from './method.js';
import { INVOICE_TABLES } from './tables.js';

/** Vendor invoices with line items, payments and voided payments, per property group. */
export const invoices = {
  name: 'invoices',
  method: GET_INVOICES,
  tables: INVOICE_TABLES,
  backfillBy: 'post date',
  settings: ({ nonNegativeInt, positiveInt, streamSettings }: SettingsBuilders) =>
    streamSettings(
      { schedule: '45 2 * * *', chunk: '3m' },
      {
        lookbackDays: nonNegativeInt.default(7).describe("Overlap re-read behind each cursor, in days (the post-date window also reaches the previous month's first day)."),
        windowDays: positiveInt.default(92).describe('Longest date window of one work unit, in days.'),
        fullRefreshDays: positiveInt
          .default(7)
          .describe("Days between two full re-reads of a property group's invoices (catches changes no date window shows, such as an old invoice marked exported)."),
        propertyGroupSize: positiveInt.max(500).default(50).describe('Properties batched into one call (1 to 500).'),
      },
    ),
  load: async () => (await import('./index.js')).invoicesStream,
} as const satisfies StreamManifest;
