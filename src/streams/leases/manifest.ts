import type { SourceMethod } from '../../source/types.js';
import type { SettingsBuilders } from '../settings.js';
import type { StreamManifest } from '../types.js';
import { LEASE_TABLES } from './tables.js';

/** getLeases (`/api/v1/leases`): one property's leases with their children, r1 or r2. */
export const GET_LEASES: SourceMethod = {
  name: 'getLeases',
  area: 'leases',
  versions: ['r1', 'r2'],
  defaultVersion: 'r2',
  records: ['leases', 'lease'],
  params: {
    propertyId: { kind: 'id', required: true },
    applicationId: { kind: 'id' },
    customerId: { kind: 'id' },
    leaseStatusTypeIds: { kind: 'idList' },
    leaseIds: { kind: 'idList' },
    scheduledArCodeIds: { kind: 'idList' },
    unitNumber: { kind: 'text' },
    buildingName: { kind: 'text' },
    moveInDateFrom: { kind: 'date' },
    moveInDateTo: { kind: 'date' },
    leaseExpiringDateFrom: { kind: 'date' },
    leaseExpiringDateTo: { kind: 'date' },
    moveOutDateFrom: { kind: 'date' },
    moveOutDateTo: { kind: 'date' },
    includeOtherIncomeLeases: { kind: 'boolean' },
    residentFriendlyMode: { kind: 'boolean' },
    includeLeaseHistory: { kind: 'boolean' },
    includeArTransactions: { kind: 'boolean' },
  },
};

/** Leases with their customers, unit spaces, charges, intervals, activities and AR transactions, per property. */
export const leases = {
  name: 'leases',
  entity: 'lease',
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
} as const satisfies StreamManifest;
