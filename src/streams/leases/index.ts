import { idOf } from '../record.js';
import type { StreamDefinition } from '../types.js';
import { leases } from './manifest.js';
import { normalizeLease } from './normalize.js';
import { planLeases, planLeasesBackfill } from './plan.js';

/** Leases with their customers, unit spaces, charges, intervals, activities and AR transactions, per property. */
export const leasesStream: StreamDefinition = {
  name: leases.name,
  method: leases.method,
  entity: 'lease',
  tables: leases.tables,
  plan: planLeases,
  planBackfill: planLeasesBackfill,
  normalize: normalizeLease,
  recordKey: (record) => idOf(record),
};
