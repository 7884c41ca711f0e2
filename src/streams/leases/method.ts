import type { SourceMethod } from '../../source/types.js';

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
