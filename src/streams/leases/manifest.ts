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

/** Parameters of every getLeases call: children, history and other-income leases included. */
export const LEASE_CALL_PARAMS = {
  includeArTransactions: true,
  includeLeaseHistory: true,
  includeOtherIncomeLeases: true,
} as const;

/** Every lease status, so that nothing is hidden by the source's default (Current and Notice only). */
export const ALL_STATUSES = [1, 2, 3, 4, 5, 6] as const;

/** Leases with their customers, unit spaces, charges, intervals, activities and AR transactions, per property. */
export const leases = {
  name: 'leases',
  entity: 'lease',
  method: GET_LEASES,
  tables: LEASE_TABLES,
  backfillBy: 'move-in date',
  personal: {
    childRaw: { lease_customers: 'customers.customer' },
    fields: {
      'customers.customer.firstName': 'name',
      'customers.customer.middleName': 'name',
      'customers.customer.lastName': 'name',
      'customers.customer.nameFull': 'name',
      'customers.customer.emailAddress': 'email',
      'customers.customer.phones.phone.phoneNumber': 'phone',
      'customers.customer.addresses.address.streetLine1': 'address',
      'customers.customer.addresses.address.streetLine2': 'address',
      'customers.customer.addresses.address.streetLine3': 'address',
      'customers.customer.addresses.address.city': 'address',
      'customers.customer.addresses.address.postalCode': 'address',
      'customers.customer.birthDate': 'birth_date',
      'customers.customer.dateOfBirth': 'birth_date',
      'customers.customer.customerContacts.customerContact.nameFull': 'name',
      'customers.customer.customerContacts.customerContact.firstName': 'name',
      'customers.customer.customerContacts.customerContact.lastName': 'name',
      'customers.customer.customerContacts.customerContact.emailAddress': 'email',
      'customers.customer.customerContacts.customerContact.phoneNumber': 'phone',
    },
    notPersonal: {
      propertyName: "the property's name",
      buildingName: "the building's name",
      floorPlanName: "the floor plan's name",
      'moveOutReason.name': 'the name of a move-out reason',
      'pets.pet.name': "a pet's name",
      'specials.special.name': "a special offer's name",
      'customers.customer.relationshipName': 'a relationship (Spouse, Roommate)',
      'customers.customer.phones.phone.phoneType': 'the kind of phone (Mobile, Home)',
      'customers.customer.phones.phone.phoneTypeId': 'the kind of phone: its id',
    },
  },
  verify: {
    params: { ...LEASE_CALL_PARAMS, leaseStatusTypeIds: [...ALL_STATUSES] },
    propertyParam: { name: 'propertyId', list: false },
    covers: { table: 'leases', column: 'property_id' },
  },
  settings: ({ nonNegativeInt, positiveInt, streamSettings }: SettingsBuilders) =>
    streamSettings(
      { schedule: '15 2 * * *', chunk: '1y' },
      {
        lookbackDays: nonNegativeInt
          .default(60)
          .describe(
            'Move-outs looked at again this many days back, since AR activity goes on after move-out.',
          ),
        fullRefreshDays: positiveInt
          .default(7)
          .describe('Days between two full refreshes of one property (spread over the days).'),
      },
    ),
} as const satisfies StreamManifest;
