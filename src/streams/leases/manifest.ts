import type { SettingsBuilders } from '../settings.js';
import type { StreamManifest } from '../types.js';
import { GET_LEASES } from './method.js';
import { LEASE_TABLES } from './tables.js';

/** Leases with their customers, unit spaces, charges, intervals, activities and AR transactions, per property. */
export const leases = {
  name: 'leases',
  method: GET_LEASES,
  tables: LEASE_TABLES,
  backfillBy: 'move-in date',
  settings: ({ nonNegativeInt, positiveInt, streamSettings }: SettingsBuilders) =>
    streamSettings(
      { schedule: '15 2 * * *', chunk: '1y' },
      {
        lookbackDays: nonNegativeInt.default(60).describe('Move-outs looked at again this many days back, since AR activity goes on after move-out.'),
        fullRefreshDays: positiveInt.default(7).describe('Days between two full refreshes of one property (spread over the days).'),
      },
    ),
  load: async () => (await import('./index.js')).leasesStream,
} as const satisfies StreamManifest;
