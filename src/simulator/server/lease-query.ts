import { LEASE_STATUS, type IsoDay, type SimLease } from '../data/model.js';
import type { ApiVersion } from './routes.js';
import { ParamReader } from './params.js';

/** Parameters getLeases accepts (source-api.md section 5). */
export const LEASE_PARAMS = [
  'propertyId',
  'applicationId',
  'customerId',
  'leaseStatusTypeIds',
  'leaseIds',
  'scheduledArCodeIds',
  'unitNumber',
  'buildingName',
  'moveInDateFrom',
  'moveInDateTo',
  'leaseExpiringDateFrom',
  'leaseExpiringDateTo',
  'moveOutDateFrom',
  'moveOutDateTo',
  'includeOtherIncomeLeases',
  'residentFriendlyMode',
  'includeLeaseHistory',
  'includeArTransactions',
] as const;

/** Lease statuses returned when `leaseStatusTypeIds` is omitted: Current and Notice. */
export const DEFAULT_LEASE_STATUSES: readonly number[] = [LEASE_STATUS.Current, LEASE_STATUS.Notice];

/** A getLeases call's parameters, decoded and checked. */
export interface LeaseQuery {
  version: ApiVersion;
  propertyId: number;
  applicationId?: number;
  customerId?: number;
  statuses: Set<number>;
  leaseIds?: Set<number>;
  scheduledArCodeIds?: Set<number>;
  unitNumber?: string;
  buildingName?: string;
  moveInFrom?: IsoDay;
  moveInTo?: IsoDay;
  expiringFrom?: IsoDay;
  expiringTo?: IsoDay;
  moveOutFrom?: IsoDay;
  moveOutTo?: IsoDay;
  includeOtherIncome: boolean;
  residentFriendly: boolean;
  includeHistory: boolean;
  includeAr: boolean;
}

/** Decodes getLeases parameters; throws an ApiError (code 400 naming the parameter) on a bad one. */
export function parseLeaseQuery(params: Record<string, string>, version: ApiVersion): LeaseQuery {
  const p = new ParamReader(params, LEASE_PARAMS);
  const set = (ids: number[] | undefined) => (ids ? new Set(ids) : undefined);
  return {
    version,
    propertyId: p.id('propertyId', true)!,
    applicationId: p.id('applicationId'),
    customerId: p.id('customerId'),
    statuses: new Set(p.idList('leaseStatusTypeIds') ?? DEFAULT_LEASE_STATUSES),
    leaseIds: set(p.idList('leaseIds')),
    scheduledArCodeIds: set(p.idList('scheduledArCodeIds')),
    unitNumber: p.text('unitNumber')?.toLowerCase(),
    buildingName: p.text('buildingName')?.toLowerCase(),
    moveInFrom: p.date('moveInDateFrom'),
    moveInTo: p.date('moveInDateTo'),
    expiringFrom: p.date('leaseExpiringDateFrom'),
    expiringTo: p.date('leaseExpiringDateTo'),
    moveOutFrom: p.date('moveOutDateFrom'),
    moveOutTo: p.date('moveOutDateTo'),
    includeOtherIncome: p.flag('includeOtherIncomeLeases'),
    residentFriendly: p.flag('residentFriendlyMode'),
    includeHistory: p.flag('includeLeaseHistory'),
    includeAr: p.flag('includeArTransactions'),
  };
}

function inRange(day: IsoDay | undefined, from: IsoDay | undefined, to: IsoDay | undefined): boolean {
  if (from === undefined && to === undefined) return true;
  if (day === undefined) return false;
  return (from === undefined || day >= from) && (to === undefined || day <= to);
}

function hasChargeCode(lease: SimLease, codes: Set<number>): boolean {
  const charges = lease.scheduledCharges?.scheduledCharge ?? [];
  return charges.some((charge) => codes.has(Number(charge.chargeCodeId)));
}

/** Whether one lease (of the query's property) matches every filter of the query. */
export function leaseMatches(lease: SimLease, q: LeaseQuery): boolean {
  if (!q.statuses.has(lease._status)) return false;
  if (!q.includeOtherIncome && lease.isOtherIncomeLease === 't') return false;
  if (q.leaseIds && !q.leaseIds.has(lease._id)) return false;
  if (q.applicationId !== undefined && lease._applicationId !== q.applicationId) return false;
  if (q.customerId !== undefined && !lease._customerIds.includes(q.customerId)) return false;
  if (q.unitNumber !== undefined && lease.unitNumber?.toLowerCase() !== q.unitNumber) return false;
  if (q.buildingName !== undefined && lease.buildingName?.toLowerCase() !== q.buildingName) return false;
  if (q.scheduledArCodeIds && !hasChargeCode(lease, q.scheduledArCodeIds)) return false;
  if (!inRange(lease._moveIn, q.moveInFrom, q.moveInTo)) return false;
  if (!inRange(lease._leaseEnd, q.expiringFrom, q.expiringTo)) return false;
  if (q.moveOutFrom !== undefined || q.moveOutTo !== undefined) {
    // r1's old behaviour: moveOutDateFrom lets leases without a move-out date through.
    const r1Open = q.version === 'r1' && lease._moveOut === undefined && q.moveOutTo === undefined;
    if (!r1Open && !inRange(lease._moveOut, q.moveOutFrom, q.moveOutTo)) return false;
  }
  return true;
}

/** The leases of the query's property that match it, in id order. */
export function selectLeases(propertyLeases: readonly SimLease[], q: LeaseQuery): SimLease[] {
  return propertyLeases.filter((lease) => leaseMatches(lease, q));
}
