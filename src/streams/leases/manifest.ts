import { nonNegativeInt, positiveInt, streamSettings } from '../settings.js';
import type { StreamManifest } from '../types.js';
import { GET_LEASES } from './method.js';

/** Leases with their customers, unit spaces, charges, intervals, activities and AR transactions, per property. */
export const leases = {
  name: 'leases',
  method: GET_LEASES,
  backfillBy: 'move-in date',
  settings: streamSettings(
    { schedule: '15 2 * * *', chunk: '1y' },
    {
      /** Move-outs looked at again this many days back, since AR activity goes on after move-out. */
      lookbackDays: nonNegativeInt.default(60),
      /** Days between two full refreshes of one property (spread over the days). */
      fullRefreshDays: positiveInt.default(7),
    },
  ),
  load: async () => (await import('./index.js')).leasesStream,
} as const satisfies StreamManifest;
