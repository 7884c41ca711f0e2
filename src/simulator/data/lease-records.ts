/**
 * Builders for the parts of a lease record in canonical r2 wire shape (customers, intervals,
 * scheduled charges, r1 activities) and the one place that changes a lease's status, so that
 * every wire field that mirrors the status (lease, current interval, customers) stays in step
 * with `_status`.
 */
import { businessSecond, isoFromDay, mdy, mountainDateTime, type EpochDay } from './calendar.js';
import { nextId, type PropertyRuntime, type SimContext } from './context.js';
import type { LeaseStatusTypeId, SimLease, SimLeaseInterval } from './model.js';
import { centsToString } from './money.js';
import {
  CITIES,
  FIRST_NAMES,
  LAST_NAMES,
  MIDDLE_NAMES,
  areaCodeFor,
  emailAddress,
  phoneNumber,
  streetLine,
} from './names.js';
import type { Rng } from './random.js';
import { AR_CODES, INTERVAL_TYPE_NAMES, LEASE_STATUS_NAMES, type ArCodeKey } from './reference.js';
import type { RecurringCharge } from './world.js';

/** Roles of people on a lease. */
export const CUSTOMER_ROLES = ['primary', 'roommate', 'spouse', 'guarantor', 'occupant'] as const;
/** A customer's role. */
export type CustomerRole = (typeof CUSTOMER_ROLES)[number];

const ROLE_WIRE: Record<CustomerRole, { customerType: string; relationshipName: string }> = {
  primary: { customerType: 'Primary', relationshipName: 'Primary' },
  roommate: { customerType: 'Responsible', relationshipName: 'Roommate' },
  spouse: { customerType: 'Responsible', relationshipName: 'Spouse' },
  guarantor: { customerType: 'Guarantor', relationshipName: 'Guarantor' },
  occupant: { customerType: 'Occupant', relationshipName: 'Child' },
};

const PHONE_MOBILE = { phoneTypeId: '1', phoneType: 'Mobile' } as const;
const PHONE_HOME = { phoneTypeId: '2', phoneType: 'Home' } as const;
const PHONE_WORK = { phoneTypeId: '3', phoneType: 'Work' } as const;
const CONTACT_RELATIONSHIPS = ['Parent', 'Sibling', 'Friend', 'Spouse', 'Coworker'] as const;

/** A home address record (`addresses.address[]`). */
export function addressRecord(rng: Rng, addressType: string): Record<string, string> {
  const c = rng.pick(CITIES);
  return {
    addressType,
    streetLine1: streetLine(rng),
    city: c.city,
    state: c.state,
    postalCode: `${c.zip}${String(rng.int(1, 99)).padStart(2, '0')}`,
    country: 'US',
  };
}

/** A new customer record in the lease's shape (`customers.customer[]`). */
export function makeCustomer(
  ctx: SimContext,
  rng: Rng,
  role: CustomerRole,
  moveIn: EpochDay,
  statusName: string,
  lastName?: string,
): Record<string, unknown> {
  const id = nextId(ctx, 'customer');
  const firstName = rng.pick(FIRST_NAMES);
  const last = lastName ?? rng.pick(LAST_NAMES);
  const middle = rng.chance(0.35) ? rng.pick(MIDDLE_NAMES) : undefined;
  const home = addressRecord(rng, 'Previous');
  const area = areaCodeFor(home.state);
  const c: Record<string, unknown> = {
    id,
    customerType: ROLE_WIRE[role].customerType,
    firstName,
    lastName: last,
  };
  if (middle !== undefined) c.middleName = middle;
  c.nameFull = middle !== undefined ? `${firstName} ${middle} ${last}` : `${firstName} ${last}`;
  if (role !== 'occupant' && rng.chance(0.93)) c.emailAddress = emailAddress(firstName, last, id);
  c.leaseCustomerStatus = statusName;
  c.relationshipName = ROLE_WIRE[role].relationshipName;
  c.moveInDate = mdy(moveIn);
  if (role !== 'occupant') {
    c.addresses = { address: [home] };
    const phones: Record<string, string>[] = [{ ...PHONE_MOBILE, phoneNumber: phoneNumber(rng, area) }];
    if (rng.chance(0.25))
      phones.push({ ...(rng.chance(0.5) ? PHONE_HOME : PHONE_WORK), phoneNumber: phoneNumber(rng, area) });
    c.phones = { phone: phones };
    if (role !== 'guarantor' && rng.chance(0.55)) {
      c.customerContacts = {
        customerContact: [
          {
            id: String(id * 10 + 1),
            contactType: 'Emergency Contact',
            nameFull: `${rng.pick(FIRST_NAMES)} ${rng.chance(0.5) ? last : rng.pick(LAST_NAMES)}`,
            relationship: rng.pick(CONTACT_RELATIONSHIPS),
            phoneNumber: phoneNumber(rng, area),
          },
        ],
      };
    }
  }
  return c;
}

/** A copy of a customer for another lease (same person, same id), with that lease's status. */
export function copyCustomer(
  customer: Record<string, unknown>,
  moveIn: EpochDay,
  statusName: string,
): Record<string, unknown> {
  // Address, phone and contact records are never changed once made, so they are shared; the
  // address list is copied because a move-out appends a forwarding address to it.
  const c: Record<string, unknown> = {};
  for (const key of Object.keys(customer)) {
    if (key === 'moveOutDate') continue;
    const value = customer[key];
    if (key === 'addresses') {
      const list = (value as { address: Record<string, string>[] }).address.filter(
        (a) => a.addressType !== 'Forwarding',
      );
      c.addresses = { address: list };
    } else c[key] = value;
  }
  c.leaseCustomerStatus = statusName;
  c.moveInDate = mdy(moveIn);
  return c;
}

/** The application record inside an interval (`applications.application[]`). */
function applicationRecord(applicationId: number, statusName: string, at: string): Record<string, unknown> {
  return {
    id: String(applicationId),
    applicationStatusTypeId: APPLICATION_STATUS[statusName] ?? '3',
    applicationStatus: statusName,
    applicationDateTime: at,
  };
}

const APPLICATION_STATUS: Record<string, string> = {
  Started: '1',
  Completed: '3',
  Approved: '4',
  Cancelled: '5',
  Denied: '6',
};

/** A lease interval record. */
export function makeInterval(
  ctx: SimContext,
  rng: Rng,
  day: EpochDay,
  start: EpochDay,
  end: EpochDay,
  typeId: number,
  status: LeaseStatusTypeId,
  completed: boolean,
): SimLeaseInterval {
  const applicationId = nextId(ctx, 'application');
  const at = mountainDateTime(day, businessSecond(rng.float()));
  const interval: SimLeaseInterval = {
    id: nextId(ctx, 'interval'),
    startDate: mdy(start),
    endDate: mdy(end),
    leaseIntervalTypeId: String(typeId),
    leaseIntervalTypeName: INTERVAL_TYPE_NAMES[typeId],
    leaseIntervalStatusTypeId: String(status),
    leaseIntervalStatusTypeName: LEASE_STATUS_NAMES[status],
    applicationId: String(applicationId),
    intervalDateTime: at,
  };
  if (completed) interval.applicationCompletedOn = at;
  interval.applications = {
    application: [applicationRecord(applicationId, completed ? 'Completed' : 'Started', at)],
  };
  return interval;
}

/** Marks an interval's application with a new status (and completion time when it completes). */
export function setApplicationStatus(
  interval: SimLeaseInterval,
  statusName: string,
  day: EpochDay,
  rng: Rng,
): void {
  const app = interval.applications?.application[0];
  if (app) {
    app.applicationStatus = statusName;
    app.applicationStatusTypeId = APPLICATION_STATUS[statusName] ?? '3';
  }
  if (
    interval.applicationCompletedOn === undefined &&
    (statusName === 'Completed' || statusName === 'Approved')
  ) {
    interval.applicationCompletedOn = mountainDateTime(day, businessSecond(rng.float()));
  }
}

/** A scheduled charge record; returns it with its recurring mirror when monthly. */
export function makeScheduledCharge(
  ctx: SimContext,
  codeKey: ArCodeKey,
  intervalId: number,
  usage: 'Lease' | 'Application' | 'Move In',
  monthly: boolean,
  start: EpochDay,
  end: EpochDay,
  cents: number,
  description: string,
  applicationId?: string,
): { record: Record<string, unknown>; recurring?: RecurringCharge } {
  const code = AR_CODES[codeKey];
  const id = String(nextId(ctx, 'scheduledCharge'));
  const record: Record<string, unknown> = {
    id,
    frequency: monthly ? 'Monthly' : 'One Time',
    leaseIntervalId: intervalId,
    chargeCodeId: code.id,
    chargeCode: code.name,
    chargeType: code.chargeType,
    chargeUsage: usage,
    startDate: mdy(start),
  };
  if (end >= 0) record.endDate = mdy(end);
  record.amount = centsToString(cents);
  record.description = description;
  if (applicationId !== undefined) record.applicationId = applicationId;
  const recurring = monthly
    ? { scheduledChargeId: id, arCodeKey: codeKey, cents, intervalId, startDay: start, endDay: end }
    : undefined;
  return { record, recurring };
}

/** Ends a lease's open recurring charges on `lastDay` (wire endDate and mirror both). */
export function endRecurring(lease: SimLease, lastDay: EpochDay): void {
  const plan = lease._plan!;
  const charges = lease.scheduledCharges?.scheduledCharge ?? [];
  for (const r of plan.recurring) {
    if (r.endDay !== -1 && r.endDay <= lastDay) continue;
    if (r.startDay > lastDay) {
      r.endDay = r.startDay - 1;
    } else {
      r.endDay = lastDay;
    }
    const sc = charges.find((c) => c.id === r.scheduledChargeId);
    if (sc) sc.endDate = mdy(Math.max(r.endDay, r.startDay));
  }
}

/** Appends an r1 lease activity (`leaseActivities.leaseActivity[]`). */
export function addActivity(
  ctx: SimContext,
  lease: SimLease,
  event: { id: string; name: string },
  day: EpochDay,
  description: string,
): void {
  const record = {
    id: String(nextId(ctx, 'activity')),
    eventTypeId: event.id,
    eventType: event.name,
    eventDate: mdy(day),
    description,
  };
  if (!lease.leaseActivities) lease.leaseActivities = { leaseActivity: [] };
  lease.leaseActivities.leaseActivity.push(record);
}

/** The lease's current interval. */
export function currentInterval(lease: SimLease): SimLeaseInterval {
  return lease.leaseIntervals.leaseInterval[0];
}

/**
 * Sets a lease's status and every field that mirrors it: leaseStatusTypeId, _status,
 * leaseSubStatus, leaseIntervalStatus, the current interval's status, customers' status.
 */
export function setLeaseStatus(
  lease: SimLease,
  status: LeaseStatusTypeId,
  subStatus: string | undefined,
): void {
  const name = LEASE_STATUS_NAMES[status];
  lease._status = status;
  lease._plan!.status = status;
  lease.leaseStatusTypeId = String(status);
  // Only a move-in clears the sub-status, and it builds a new record without the key (lease-life.ts).
  if (subStatus !== undefined) lease.leaseSubStatus = subStatus;
  lease.leaseIntervalStatus = name;
  const interval = currentInterval(lease);
  interval.leaseIntervalStatusTypeId = String(status);
  interval.leaseIntervalStatusTypeName = name;
  for (const c of lease.customers.customer) c.leaseCustomerStatus = name;
}

/** Makes a new current interval: the old one goes to leaseHistory as Past. */
export function replaceInterval(lease: SimLease, interval: SimLeaseInterval): void {
  const old = currentInterval(lease);
  old.leaseIntervalStatusTypeId = '6';
  old.leaseIntervalStatusTypeName = LEASE_STATUS_NAMES[6];
  if (!lease.leaseHistory) lease.leaseHistory = { leaseInterval: [] };
  lease.leaseHistory.leaseInterval.push(old);
  lease.leaseIntervals.leaseInterval[0] = interval;
  lease.leaseIntervalId = interval.id;
}

/** Sets the lease's planned or actual move-out day on the lease and its customers. */
export function setMoveOut(lease: SimLease, day: EpochDay): void {
  lease.moveOutDate = mdy(day);
  lease._moveOut = isoFromDay(day);
  for (const c of lease.customers.customer) c.moveOutDate = mdy(day);
}

/** The shared `unitSpaces` list objects of a unit. */
export function unitSpacesOf(
  rt: PropertyRuntime,
  unitIndex: number,
): { unitSpaceId: number; unitSpace: string }[] {
  return rt.units[unitIndex].spaces;
}
