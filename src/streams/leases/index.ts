import { AR_TRANSACTIONS, LEASES, LEASE_ACTIVITIES, LEASE_CUSTOMERS, LEASE_INTERVALS, LEASE_SCHEDULED_CHARGES, LEASE_UNIT_SPACES } from '../../warehouse/table-specs.js';
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
  tables: [LEASES, LEASE_INTERVALS, LEASE_ACTIVITIES, LEASE_CUSTOMERS, LEASE_UNIT_SPACES, LEASE_SCHEDULED_CHARGES, AR_TRANSACTIONS],
  plan: planLeases,
  planBackfill: planLeasesBackfill,
  normalize: normalizeLease,
  recordKey: (record) => idOf(record),
};
