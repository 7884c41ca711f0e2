/**
 * One day in the life of a property's leases: applications arrive for available units, are
 * approved or cancelled, approved leases move in, residents are charged on the 1st and pay
 * (on time, late with a late fee, partly, or with a returned payment), decide at the end of
 * their term to renew, go month-to-month, transfer or give notice, move out, and after the
 * move-out get final charges, the deposit applied and refunded within weeks, and what is still
 * owed written off months later. Generation runs this from each property's opening day to
 * "today"; `advanceDataset` runs it for the days after.
 */
import {
  addMonths,
  dayOfMonth,
  firstOfMonth,
  isoFromDay,
  lastOfMonth,
  mdy,
  ymd,
  type EpochDay,
} from './calendar.js';
import {
  addLive,
  addToUnit,
  nextId,
  refreshUnit,
  removeFromUnit,
  type PropertyRuntime,
  type SimContext,
} from './context.js';
import { createRefundInvoice } from './invoice-life.js';
import {
  addActivity,
  addressRecord,
  copyCustomer,
  currentInterval,
  endRecurring,
  makeCustomer,
  makeInterval,
  makeScheduledCharge,
  replaceInterval,
  setApplicationStatus,
  setLeaseStatus,
  setMoveOut,
  type CustomerRole,
} from './lease-records.js';
import { postAr, removeTemporary, reversePayment } from './ledger.js';
import { LEASE_INTERVAL_TYPE, LEASE_STATUS, type SimLease } from './model.js';
import { centsToString, roundToDollars, stringToCents } from './money.js';
import { PET_NAMES } from './names.js';
import type { Rng } from './random.js';
import {
  AR_CODES,
  LEASE_EVENT,
  MOVE_OUT_REASONS,
  VOLUNTARY_REASONS,
  VOLUNTARY_REASON_WEIGHTS,
  type ArCode,
  type ArCodeKey,
  type MoveOutReasonKey,
} from './reference.js';
import { NEVER, type LeasePlan, type RecurringCharge } from './world.js';

const TERMS = [12, 6, 9, 13, 15, 18] as const;
const TERM_WEIGHTS = [70, 4, 5, 8, 8, 5] as const;
const RENEWAL_TERMS = [12, 6, 9, 13] as const;
const RENEWAL_TERM_WEIGHTS = [75, 8, 7, 10] as const;
const PAYMENT_METHODS = [
  'Online Payment - ACH',
  'Online Payment - Card',
  'Check Payment',
  'Money Order',
  'Auto-Pay ACH',
] as const;
const PAYMENT_METHOD_WEIGHTS = [34, 14, 18, 6, 28] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const DAMAGE_TEXTS = [
  'Carpet replacement',
  'Wall repair and paint',
  'Blinds replacement',
  'Missing keys and fobs',
  'Appliance damage',
  'Pet damage',
] as const;

const descriptions = new Map<number, string>();
/** `Rent - Mar 2025`, one shared string per code and month. */
function monthDescription(code: ArCode, day: EpochDay, prorated: boolean): string {
  const { year, month } = ymd(day);
  const key = ((code.id * 10000 + year) * 13 + month) * 2 + (prorated ? 1 : 0);
  let s = descriptions.get(key);
  if (s === undefined) {
    s = `${code.name} - ${MONTHS[month - 1]} ${year}${prorated ? ' (prorated)' : ''}`;
    descriptions.set(key, s);
  }
  return s;
}

/** Asking rent of a unit on a day: its marketRent moved by about 3.5% a year from the base day. */
export function rentAt(rt: PropertyRuntime, unitIndex: number, day: EpochDay): number {
  const base = stringToCents(rt.units[unitIndex].marketRent);
  const years = (day - rt.info.rentBaseDay) / 365;
  return Math.max(2500, roundToDollars(base * (1 + 0.035 * years), 5));
}

function newPlan(unit: number, otherIncome: boolean, rng: Rng): LeasePlan {
  const r = rng.float();
  return {
    status: LEASE_STATUS.Applicant,
    unit,
    otherIncome,
    payer: r < 0.72 ? 0 : r < 0.92 ? 1 : 2,
    rentCents: 0,
    depositCents: 0,
    termMonths: 12,
    moveInDay: -1,
    leaseEndDay: -1,
    moveOutDay: -1,
    decideDay: -1,
    outcome: 'undecided',
    changeDay: -1,
    modifyDay: -1,
    payDay: -1,
    secondPayDay: -1,
    reverseDay: -1,
    reverseArId: -1,
    tempRemoveDay: -1,
    moveOutReason: '',
    finalChargesDay: -1,
    refundDay: -1,
    writeOffDay: -1,
    transferLeaseId: -1,
    mtmNoticeDay: -1,
    skipDay: -1,
    creditDay: -1,
    tempAddDay: -1,
    nextDay: 0,
    recurring: [],
    openFrom: 0,
    balanceCents: 0,
  };
}

function addCharge(
  lease: SimLease,
  made: { record: Record<string, unknown>; recurring?: RecurringCharge },
): void {
  if (!lease.scheduledCharges) lease.scheduledCharges = { scheduledCharge: [] };
  lease.scheduledCharges.scheduledCharge.push(made.record);
  if (made.recurring) lease._plan!.recurring.push(made.recurring);
}

/** Options of a new lease. */
interface NewLeaseOptions {
  moveIn: EpochDay;
  intervalType: number;
  /** People carried over (transfers, other-income leases of residents); new ones otherwise. */
  customers?: Record<string, unknown>[];
  payer?: 0 | 1 | 2;
  /** The application is started but not yet completed. */
  started?: boolean;
}

/** Creates a lease in status Applicant on a unit and posts its application fee. */
function createLease(
  ctx: SimContext,
  rt: PropertyRuntime,
  unitIndex: number,
  day: EpochDay,
  rng: Rng,
  opts: NewLeaseOptions,
): SimLease {
  const otherIncome = rt.otherIncome[unitIndex];
  const unit = rt.units[unitIndex];
  const term = otherIncome ? 12 : TERMS[rng.weighted(TERM_WEIGHTS)];
  const moveIn = opts.moveIn;
  const leaseEnd = addMonths(moveIn, term) - 1;
  const plan = newPlan(unitIndex, otherIncome, rng);
  if (opts.payer !== undefined) plan.payer = opts.payer;
  plan.termMonths = term;
  plan.moveInDay = moveIn;
  plan.leaseEndDay = leaseEnd;
  plan.rentCents = otherIncome ? stringToCents(unit.marketRent) : rentAt(rt, unitIndex, day);
  const id = nextId(ctx, 'lease');
  const completed = opts.started !== true;
  const interval = makeInterval(
    ctx,
    rng,
    day,
    moveIn,
    leaseEnd,
    opts.intervalType,
    LEASE_STATUS.Applicant,
    completed,
  );
  const status = 'Applicant';
  let customers: Record<string, unknown>[];
  if (opts.customers) {
    customers = opts.customers.map((c) => copyCustomer(c, moveIn, status));
  } else {
    const primary = makeCustomer(ctx, rng, 'primary', moveIn, status);
    customers = [primary];
    if (!otherIncome) {
      const extra: CustomerRole[] = [];
      const r = rng.float();
      if (r < 0.22) extra.push('roommate');
      else if (r < 0.42) extra.push('spouse');
      if (rng.chance(0.1)) extra.push('guarantor');
      if (rng.chance(0.15)) extra.push('occupant');
      for (const role of extra) {
        customers.push(
          makeCustomer(
            ctx,
            rng,
            role,
            moveIn,
            status,
            role === 'spouse' || role === 'occupant' ? String(primary.lastName) : undefined,
          ),
        );
      }
    }
  }
  // Fields in the order the source sends them; optional ones only when present.
  const lease = {
    id: String(id),
    leaseStatusTypeId: String(LEASE_STATUS.Applicant),
    propertyId: String(rt.property.PropertyID),
    propertyName: rt.property.MarketingName,
    leaseSubStatus: completed ? 'Application Completed' : 'Application Started',
    leaseType: otherIncome ? 'Other Income' : rng.chance(0.04) ? 'Corporate' : 'Conventional',
    moveInDate: mdy(moveIn),
    leaseIntervalStatus: 'Applicant',
    occupancyTypeId: otherIncome ? '7' : '1',
    occupancyType: otherIncome ? 'Other Income' : 'Conventional',
    isMonthToMonth: 0,
    leaseIntervalId: interval.id,
    floorPlanId: unit.floorPlanId,
    floorPlanName: unit.floorPlanName,
    spaceConfiguration: unit.spaces.length > 1 ? 'Multi-Space' : 'Whole Unit',
    paymentAllowanceType: plan.payer === 2 && rng.chance(0.5) ? 'Certified Funds Only' : 'Allow All',
    unitId: unit.unitId,
  } as SimLease;
  if (!otherIncome) lease.buildingName = unit.buildingName;
  lease.unitNumber = unit.unitNumber;
  if (otherIncome) lease.isOtherIncomeLease = 't';
  else if (rt.info.sendsOtherIncomeFlag) lease.isOtherIncomeLease = 'f';
  lease.customers = { customer: customers };
  lease.unitSpaces = { unitSpace: unit.spaces };
  lease.leaseIntervals = { leaseInterval: [interval] };
  lease._id = id;
  lease._propertyId = rt.property.PropertyID;
  lease._status = LEASE_STATUS.Applicant;
  lease._moveIn = isoFromDay(moveIn);
  lease._leaseEnd = isoFromDay(leaseEnd);
  lease._applicationId = Number(interval.applicationId);
  lease._customerIds = customers.map((c) => Number(c.id));
  lease._plan = plan;
  if (!otherIncome) {
    plan.depositCents = rng.chance(0.5)
      ? roundToDollars(plan.rentCents / 2, 50)
      : rng.chance(0.5)
        ? 50000
        : plan.rentCents;
  }
  // Scheduled charges: application charges, deposit, and the recurring ones of the first interval.
  const appId = interval.applicationId;
  if (!otherIncome && opts.intervalType === LEASE_INTERVAL_TYPE.Application) {
    addCharge(
      lease,
      makeScheduledCharge(
        ctx,
        'applicationFee',
        interval.id,
        'Application',
        false,
        day,
        day,
        rt.info.applicationFeeCents,
        'Application fee',
        appId,
      ),
    );
    addCharge(
      lease,
      makeScheduledCharge(
        ctx,
        'adminFee',
        interval.id,
        'Application',
        false,
        moveIn,
        moveIn,
        rt.info.adminFeeCents,
        'Administrative fee',
        appId,
      ),
    );
  }
  if (plan.depositCents > 0) {
    addCharge(
      lease,
      makeScheduledCharge(
        ctx,
        'deposit',
        interval.id,
        'Move In',
        false,
        moveIn,
        moveIn,
        plan.depositCents,
        'Security deposit',
      ),
    );
  }
  const rentKey: ArCodeKey = otherIncome ? (unit.buildingName === 'Parking' ? 'parking' : 'storage') : 'rent';
  addCharge(
    lease,
    makeScheduledCharge(
      ctx,
      rentKey,
      interval.id,
      'Lease',
      true,
      moveIn,
      leaseEnd,
      plan.rentCents,
      otherIncome ? `${unit.floorPlanName} ${unit.unitNumber}` : 'Base rent',
    ),
  );
  if (!otherIncome) {
    if (rt.info.utilitiesCents > 0) {
      const cents = roundToDollars(rt.info.utilitiesCents * (0.8 + 0.4 * rng.float()), 1);
      addCharge(
        lease,
        makeScheduledCharge(
          ctx,
          'utilities',
          interval.id,
          'Lease',
          true,
          moveIn,
          leaseEnd,
          cents,
          'Water, sewer and trash (RUBS)',
        ),
      );
    }
    if (rng.chance(0.2)) {
      const dog = rng.chance(0.6);
      lease.pets = {
        pet: [
          {
            id: String(nextId(ctx, 'pet')),
            petType: dog ? 'Dog' : 'Cat',
            name: rng.pick(PET_NAMES),
            weight: String(dog ? rng.int(12, 75) : rng.int(6, 15)),
            isServiceAnimal: 'false',
          },
        ],
      };
      addCharge(
        lease,
        makeScheduledCharge(
          ctx,
          'petRent',
          interval.id,
          'Lease',
          true,
          moveIn,
          leaseEnd,
          rng.pick([2500, 3500, 4000, 5000]),
          `Pet rent - ${dog ? 'dog' : 'cat'}`,
        ),
      );
    }
    if (rng.chance(0.06)) {
      addCharge(
        lease,
        makeScheduledCharge(
          ctx,
          'trash',
          interval.id,
          'Lease',
          true,
          moveIn,
          leaseEnd,
          2500,
          'Valet trash service',
        ),
      );
    }
  }
  addActivity(
    ctx,
    lease,
    LEASE_EVENT.application,
    day,
    `Application ${appId} submitted for unit ${unit.unitNumber}`,
  );
  ctx.dataset.leases.push(lease);
  addToUnit(rt, lease);
  addLive(rt, lease);
  ctx.summary.applications++;
  if (!otherIncome && opts.intervalType === LEASE_INTERVAL_TYPE.Application) {
    const fee = AR_CODES.applicationFee;
    postAr(ctx, lease, fee, rt.info.applicationFeeCents, day, {
      description: 'Application fee',
      scheduledChargeId: String(lease.scheduledCharges!.scheduledCharge[0].id),
    });
    postAr(ctx, lease, AR_CODES.payment, -rt.info.applicationFeeCents, day, {
      description: 'Online Payment - Card',
    });
    ctx.summary.payments++;
  }
  return lease;
}

/** Starts an application for an available unit. */
export function startApplication(
  ctx: SimContext,
  rt: PropertyRuntime,
  unitIndex: number,
  day: EpochDay,
  rng: Rng,
  moveIn: EpochDay,
): SimLease {
  let customers: Record<string, unknown>[] | undefined;
  if (rt.otherIncome[unitIndex] && rng.chance(0.85)) {
    // Parking and storage are mostly rented by residents: the same person, on a second lease.
    const residents = rt.live.filter(
      (l, i) => rt.livePlans[i].status === LEASE_STATUS.Current && !rt.livePlans[i].otherIncome,
    );
    if (residents.length > 0) customers = [rng.pick(residents).customers.customer[0]];
  }
  // Started-but-unfinished applications linger for weeks; many are abandoned.
  const started = rng.chance(0.3);
  const decideDay = started
    ? day + rng.int(10, 50)
    : day + rng.int(2, Math.max(2, Math.min(10, moveIn - day - 1)));
  const moveInDay = started ? Math.max(moveIn, decideDay + rng.int(3, 14)) : moveIn;
  const lease = createLease(ctx, rt, unitIndex, day, rng, {
    moveIn: moveInDay,
    intervalType: LEASE_INTERVAL_TYPE.Application,
    customers,
    started,
  });
  lease._plan!.decideDay = decideDay;
  return lease;
}

function cancelLease(
  ctx: SimContext,
  rt: PropertyRuntime,
  lease: SimLease,
  day: EpochDay,
  rng: Rng,
  subStatus: string,
  appStatus: string,
): void {
  setLeaseStatus(lease, LEASE_STATUS.Cancelled, subStatus);
  setApplicationStatus(currentInterval(lease), appStatus, day, rng);
  removeTemporary(ctx, lease);
  const plan = lease._plan!;
  plan.decideDay = -1;
  plan.tempRemoveDay = -1;
  endRecurring(lease, Math.max(day, plan.moveInDay - 1));
  removeFromUnit(rt, lease);
  addActivity(ctx, lease, LEASE_EVENT.cancellation, day, subStatus);
  ctx.summary.cancellations++;
}

function approve(ctx: SimContext, rt: PropertyRuntime, lease: SimLease, day: EpochDay, rng: Rng): void {
  const plan = lease._plan!;
  setLeaseStatus(lease, LEASE_STATUS.Future, 'Lease Approved');
  refreshUnit(rt, plan.unit);
  setApplicationStatus(currentInterval(lease), 'Approved', day, rng);
  const moveIn = plan.moveInDay;
  const adminFee = lease.scheduledCharges?.scheduledCharge.find(
    (c) => c.chargeCodeId === AR_CODES.adminFee.id,
  );
  if (adminFee) {
    postAr(ctx, lease, AR_CODES.adminFee, stringToCents(String(adminFee.amount)), day, {
      description: 'Administrative fee',
      dueDay: moveIn,
      scheduledChargeId: String(adminFee.id),
    });
  }
  // Move-in charges show as temporary transactions until the move-in posts them for real.
  const dim = lastOfMonth(moveIn) - firstOfMonth(moveIn) + 1;
  const firstRent = Math.round((plan.rentCents * (lastOfMonth(moveIn) - moveIn + 1)) / dim);
  postAr(ctx, lease, AR_CODES.rent, firstRent, moveIn, {
    description: 'Estimated first month rent',
    temporary: true,
  });
  if (plan.depositCents > 0)
    postAr(ctx, lease, AR_CODES.deposit, plan.depositCents, moveIn, {
      description: 'Security deposit due at move-in',
      temporary: true,
    });
  plan.tempRemoveDay = moveIn;
  plan.decideDay = moveIn - day > 3 && rng.chance(0.05) ? rng.int(day + 1, moveIn - 1) : -1;
  addActivity(ctx, lease, LEASE_EVENT.approval, day, 'Application approved, lease signed');
  ctx.summary.approvals++;
}

function decideApplication(
  ctx: SimContext,
  rt: PropertyRuntime,
  lease: SimLease,
  day: EpochDay,
  rng: Rng,
): void {
  const taken = rt.unitLeases[lease._plan!.unit].some(
    (l) => l !== lease && (l._status === LEASE_STATUS.Future || l._status === LEASE_STATUS.Current),
  );
  if (lease.leaseSubStatus === 'Application Started' && rng.chance(0.45)) {
    cancelLease(ctx, rt, lease, day, rng, 'Application Abandoned', 'Cancelled');
  } else if (taken) {
    cancelLease(ctx, rt, lease, day, rng, 'Unit Leased to Another Applicant', 'Cancelled');
  } else if (rng.chance(0.12)) {
    const denied = rng.chance(0.4);
    cancelLease(
      ctx,
      rt,
      lease,
      day,
      rng,
      denied ? 'Application Denied' : 'Application Cancelled',
      denied ? 'Denied' : 'Cancelled',
    );
  } else {
    approve(ctx, rt, lease, day, rng);
  }
}

/** Charges each recurring charge for its share of [from, to] (within one month), prorated by day. */
function chargeRange(
  ctx: SimContext,
  lease: SimLease,
  from: EpochDay,
  to: EpochDay,
  onlyInterval?: number,
): void {
  const plan = lease._plan!;
  const monthStart = firstOfMonth(from);
  const monthEnd = lastOfMonth(from);
  const dim = monthEnd - monthStart + 1;
  for (const r of plan.recurring) {
    if (onlyInterval !== undefined && r.intervalId !== onlyInterval) continue;
    const a = Math.max(r.startDay, from);
    const b = r.endDay === -1 ? to : Math.min(r.endDay, to);
    if (b < a) continue;
    const full = a === monthStart && b === monthEnd;
    const cents = full ? r.cents : Math.round((r.cents * (b - a + 1)) / dim);
    if (cents <= 0) continue;
    const code = AR_CODES[r.arCodeKey as ArCodeKey];
    postAr(ctx, lease, code, cents, from, {
      description: monthDescription(code, from, !full),
      dueDay: from,
      scheduledChargeId: r.scheduledChargeId,
      intervalId: r.intervalId,
    });
  }
}

/**
 * The same lease as a new object without `leaseSubStatus` (current leases have none), put in
 * place of the old one in the data set and the unit index. Deleting the key instead would turn
 * the record into a slow dictionary-mode object for the rest of its life.
 */
function withoutSubStatus(ctx: SimContext, rt: PropertyRuntime, old: SimLease): SimLease {
  const { leaseSubStatus, ...rest } = old;
  void leaseSubStatus;
  const lease = rest as SimLease;
  const list = ctx.dataset.leases;
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]._id < old._id) lo = mid + 1;
    else hi = mid - 1;
  }
  if (list[lo] !== old) throw new Error(`lease ${old.id} not found in the data set`);
  list[lo] = lease;
  const unit = rt.unitLeases[old._plan!.unit];
  const k = unit.indexOf(old);
  if (k >= 0) unit[k] = lease;
  return lease;
}

function moveIn(
  ctx: SimContext,
  rt: PropertyRuntime,
  old: SimLease,
  day: EpochDay,
  rng: Rng,
  leaseUp: boolean,
): SimLease {
  const lease = withoutSubStatus(ctx, rt, old);
  const plan = lease._plan!;
  setLeaseStatus(lease, LEASE_STATUS.Current, undefined);
  removeTemporary(ctx, lease);
  plan.tempRemoveDay = -1;
  chargeRange(ctx, lease, day, lastOfMonth(day));
  if (plan.depositCents > 0) {
    const sc = lease.scheduledCharges?.scheduledCharge.find((c) => c.chargeCodeId === AR_CODES.deposit.id);
    postAr(ctx, lease, AR_CODES.deposit, plan.depositCents, day, {
      description: 'Security deposit',
      scheduledChargeId: sc ? String(sc.id) : undefined,
    });
  }
  if (!plan.otherIncome && rng.chance(leaseUp ? 0.45 : 0.15)) {
    const cents = roundToDollars(plan.rentCents / 2, 1);
    postAr(ctx, lease, AR_CODES.moveInSpecial, -cents, day, {
      description: 'Move-in special - half month free',
    });
    ctx.summary.concessions++;
    lease.specials = {
      special: [
        {
          id: String(nextId(ctx, 'special')),
          name: 'Half Month Free',
          specialType: 'Move-In Concession',
          amount: centsToString(cents),
          appliedOn: mdy(day),
        },
      ],
    };
  }
  if (plan.balanceCents > 0) {
    postAr(ctx, lease, AR_CODES.payment, -plan.balanceCents, day, {
      description: 'Move-in funds - certified',
    });
    ctx.summary.payments++;
  }
  plan.decideDay = Math.max(day + 1, plan.leaseEndDay - rng.int(35, 75));
  if (!plan.otherIncome && rng.chance(0.03) && plan.leaseEndDay - day > 150)
    plan.modifyDay = day + rng.int(45, plan.leaseEndDay - day - 90);
  addActivity(ctx, lease, LEASE_EVENT.moveIn, day, `Moved in to unit ${lease.unitNumber ?? ''}`.trim());
  ctx.summary.moveIns++;
  return lease;
}

function giveNotice(
  ctx: SimContext,
  rt: PropertyRuntime,
  lease: SimLease,
  day: EpochDay,
  moveOutDay: EpochDay,
  reason: MoveOutReasonKey,
  subStatus: string,
): void {
  const plan = lease._plan!;
  setLeaseStatus(lease, LEASE_STATUS.Notice, subStatus);
  refreshUnit(rt, plan.unit);
  setMoveOut(lease, moveOutDay);
  lease.moveOutReason = MOVE_OUT_REASONS[reason];
  plan.moveOutDay = moveOutDay;
  plan.moveOutReason = reason;
  if (plan.outcome !== 'transfer') plan.outcome = 'moveOut';
  plan.decideDay = -1;
  plan.changeDay = -1;
  plan.modifyDay = -1;
  plan.mtmNoticeDay = -1;
  plan.skipDay = -1;
  endRecurring(lease, moveOutDay);
  addActivity(ctx, lease, LEASE_EVENT.notice, day, `Notice to vacate, move-out ${mdy(moveOutDay)}`);
  ctx.summary.notices++;
}

function findVacantUnit(rt: PropertyRuntime, rng: Rng, except: number): number {
  const start = rng.int(0, rt.units.length - 1);
  for (let k = 0; k < rt.units.length; k++) {
    const u = (start + k) % rt.units.length;
    if (u === except || rt.otherIncome[u]) continue;
    // Free unless someone lives there or is about to (applicants lose out to the transfer).
    if (rt.unitPlans[u].every((p) => p.status === LEASE_STATUS.Applicant)) return u;
  }
  return -1;
}

function decideRenewal(ctx: SimContext, rt: PropertyRuntime, lease: SimLease, day: EpochDay, rng: Rng): void {
  const plan = lease._plan!;
  plan.decideDay = -1;
  const end = plan.leaseEndDay;
  if (plan.otherIncome) {
    if (rng.chance(0.35)) giveNotice(ctx, rt, lease, day, end, rng.pick(VOLUNTARY_REASONS), 'Notice Given');
    else {
      plan.outcome = 'monthToMonth';
      plan.changeDay = end + 1;
    }
    return;
  }
  if (plan.payer === 2 && plan.balanceCents > plan.rentCents && rng.chance(0.6)) {
    giveNotice(ctx, rt, lease, day, end, 'leaseViolation', 'Non-Renewal');
    return;
  }
  const r = rng.float();
  if (r < 0.55) {
    plan.outcome = 'renew';
    plan.changeDay = end + 1;
  } else if (r < 0.64) {
    plan.outcome = 'monthToMonth';
    plan.changeDay = end + 1;
  } else if (r < 0.72) {
    const target = findVacantUnit(rt, rng, plan.unit);
    if (target < 0) {
      plan.outcome = 'renew';
      plan.changeDay = end + 1;
      return;
    }
    plan.outcome = 'transfer';
    const moveInDay = end + 1;
    const next = createLease(ctx, rt, target, day, rng, {
      moveIn: moveInDay,
      intervalType: LEASE_INTERVAL_TYPE.Transfer,
      customers: lease.customers.customer,
      payer: plan.payer,
    });
    ctx.summary.applications--; // a transfer is not a new application
    approve(ctx, rt, next, day, rng);
    ctx.summary.approvals--;
    next._plan!.decideDay = -1;
    next._plan!.transferLeaseId = lease._id;
    next.transferDate = mdy(moveInDay);
    plan.transferLeaseId = next._id;
    lease.transferDate = mdy(end);
    giveNotice(ctx, rt, lease, day, end, 'transfer', 'Transfer Pending');
    addActivity(
      ctx,
      lease,
      LEASE_EVENT.transfer,
      day,
      `Transfer to unit ${rt.units[target].unitNumber} on ${mdy(moveInDay)}`,
    );
    addActivity(
      ctx,
      next,
      LEASE_EVENT.transfer,
      day,
      `Transfer from unit ${lease.unitNumber ?? ''} on ${mdy(moveInDay)}`,
    );
    ctx.summary.transfers++;
  } else {
    const early = rng.chance(0.1) ? rng.int(1, 20) : 0;
    giveNotice(
      ctx,
      rt,
      lease,
      day,
      Math.max(day + 14, end - early),
      VOLUNTARY_REASONS[rng.weighted(VOLUNTARY_REASON_WEIGHTS)],
      'Notice Given',
    );
  }
}

/** Starts the renewal or month-to-month interval decided earlier. */
function applyChange(ctx: SimContext, lease: SimLease, day: EpochDay, rng: Rng): void {
  const plan = lease._plan!;
  const oldEnd = plan.leaseEndDay;
  const carried = plan.recurring.filter((r) => r.endDay === oldEnd && r.arCodeKey !== 'mtmFee');
  plan.recurring = plan.recurring.filter((r) => r.endDay === -1 || r.endDay >= day - 62);
  plan.changeDay = -1;
  if (plan.outcome === 'renew') {
    const term = plan.otherIncome ? 12 : RENEWAL_TERMS[rng.weighted(RENEWAL_TERM_WEIGHTS)];
    const newEnd = addMonths(day, term) - 1;
    const interval = makeInterval(
      ctx,
      rng,
      day - rng.int(20, 45),
      day,
      newEnd,
      LEASE_INTERVAL_TYPE.Renewal,
      lease._status,
      true,
    );
    setApplicationStatus(interval, 'Approved', day, rng);
    replaceInterval(lease, interval);
    plan.rentCents = roundToDollars(plan.rentCents * (1.02 + 0.04 * rng.float()), 5);
    for (const r of carried) {
      const cents = r.arCodeKey === 'rent' ? plan.rentCents : r.cents;
      const desc = r.arCodeKey === 'rent' ? 'Base rent - renewal' : 'Renewal term charge';
      addCharge(
        lease,
        makeScheduledCharge(
          ctx,
          r.arCodeKey as ArCodeKey,
          interval.id,
          'Lease',
          true,
          day,
          newEnd,
          cents,
          desc,
        ),
      );
    }
    plan.termMonths = term;
    plan.leaseEndDay = newEnd;
    lease._leaseEnd = isoFromDay(newEnd);
    lease.isMonthToMonth = 0;
    plan.decideDay = Math.max(day + 1, newEnd - rng.int(35, 75));
    plan.outcome = 'undecided';
    addActivity(ctx, lease, LEASE_EVENT.renewal, day, `Renewed for ${term} months through ${mdy(newEnd)}`);
    ctx.summary.renewals++;
    if (rng.chance(0.12)) {
      postAr(ctx, lease, AR_CODES.renewalConcession, -roundToDollars(rng.int(10000, 30000), 25), day, {
        description: 'Renewal incentive',
      });
      ctx.summary.concessions++;
    }
  } else {
    const end = lastOfMonth(day);
    const interval = makeInterval(
      ctx,
      rng,
      day,
      day,
      end,
      LEASE_INTERVAL_TYPE.MonthToMonth,
      lease._status,
      true,
    );
    replaceInterval(lease, interval);
    for (const r of carried) {
      addCharge(
        lease,
        makeScheduledCharge(
          ctx,
          r.arCodeKey as ArCodeKey,
          interval.id,
          'Lease',
          true,
          day,
          -1,
          r.cents,
          'Month-to-month charge',
        ),
      );
    }
    if (!plan.otherIncome) {
      addCharge(
        lease,
        makeScheduledCharge(
          ctx,
          'mtmFee',
          interval.id,
          'Lease',
          true,
          day,
          -1,
          roundToDollars(15000 + rng.int(0, 10000), 25),
          'Month-to-month premium',
        ),
      );
    }
    plan.leaseEndDay = end;
    lease._leaseEnd = isoFromDay(end);
    lease.isMonthToMonth = 1;
    plan.outcome = 'undecided';
    addActivity(ctx, lease, LEASE_EVENT.monthToMonth, day, 'Converted to month-to-month');
    ctx.summary.monthToMonth++;
  }
  if (dayOfMonth(day) !== 1) chargeRange(ctx, lease, day, lastOfMonth(day), lease.leaseIntervalId);
}

/** A mid-term modification (a roommate added): a new interval for the rest of the term. */
function modify(ctx: SimContext, lease: SimLease, day: EpochDay, rng: Rng): void {
  const plan = lease._plan!;
  plan.modifyDay = -1;
  if (lease.isMonthToMonth === 1 || day >= plan.leaseEndDay - 30) return;
  const interval = makeInterval(
    ctx,
    rng,
    day,
    day,
    plan.leaseEndDay,
    LEASE_INTERVAL_TYPE.LeaseModification,
    lease._status,
    true,
  );
  const old = currentInterval(lease);
  old.endDate = mdy(day - 1);
  replaceInterval(lease, interval);
  const carried = plan.recurring.filter((r) => r.endDay === plan.leaseEndDay);
  endRecurring(lease, day - 1);
  for (const r of carried) {
    addCharge(
      lease,
      makeScheduledCharge(
        ctx,
        r.arCodeKey as ArCodeKey,
        interval.id,
        'Lease',
        true,
        day,
        plan.leaseEndDay,
        r.cents,
        'Charge after lease modification',
      ),
    );
  }
  const person = makeCustomer(ctx, rng, 'roommate', day, lease.leaseIntervalStatus);
  lease.customers.customer.push(person);
  lease._customerIds.push(Number(person.id));
  addActivity(ctx, lease, LEASE_EVENT.modification, day, `Roommate ${String(person.nameFull)} added`);
  ctx.summary.modifications++;
  if (dayOfMonth(day) !== 1) chargeRange(ctx, lease, day, lastOfMonth(day), interval.id);
}

function residentCount(lease: SimLease): number {
  let n = 0;
  for (const c of lease.customers.customer)
    if (c.customerType === 'Primary' || c.customerType === 'Responsible') n++;
  return n;
}

function pay(ctx: SimContext, lease: SimLease, day: EpochDay, rng: Rng, share: number): void {
  const plan = lease._plan!;
  if (plan.balanceCents <= 0) return;
  let cents = plan.balanceCents;
  if (share < 1) cents = Math.max(100, roundToDollars(cents * share, 1));
  const parts = residentCount(lease) >= 2 && rng.chance(0.15) && cents >= 200 ? 2 : 1;
  let left = cents;
  for (let i = 0; i < parts; i++) {
    const part = i === parts - 1 ? left : Math.round(cents / 2);
    left -= part;
    const t = postAr(ctx, lease, AR_CODES.payment, -part, day, {
      description: PAYMENT_METHODS[rng.weighted(PAYMENT_METHOD_WEIGHTS)],
    });
    ctx.summary.payments++;
    if (plan.reverseDay === -1 && rng.chance(0.02)) {
      plan.reverseDay = day + rng.int(2, 6);
      plan.reverseArId = t.id;
    }
  }
}

function planPayment(plan: LeasePlan, day: EpochDay, rng: Rng): void {
  if (plan.payer === 0) plan.payDay = day + rng.int(0, 2);
  else if (plan.payer === 1) plan.payDay = rng.chance(0.55) ? day + rng.int(0, 4) : day + rng.int(5, 16);
  else plan.payDay = rng.chance(0.15) ? -1 : rng.chance(0.4) ? day + rng.int(0, 4) : day + rng.int(5, 24);
}

function moveOut(ctx: SimContext, rt: PropertyRuntime, lease: SimLease, day: EpochDay, rng: Rng): void {
  const plan = lease._plan!;
  const reason = MOVE_OUT_REASONS[(plan.moveOutReason || 'leavingArea') as MoveOutReasonKey];
  const sub =
    reason.moveOutType === 'Eviction'
      ? 'Evicted'
      : reason.moveOutType === 'Skip'
        ? 'Skipped'
        : reason.moveOutType === 'Transfer'
          ? 'Transferred'
          : 'Moved Out';
  setLeaseStatus(lease, LEASE_STATUS.Past, sub);
  if (plan.moveOutDay !== day) {
    setMoveOut(lease, day);
    plan.moveOutDay = day;
  }
  if (reason.moveOutType !== 'Transfer') {
    for (const c of lease.customers.customer) {
      const addresses = c.addresses as { address: Record<string, string>[] } | undefined;
      if (addresses) addresses.address.push(addressRecord(rng, 'Forwarding'));
    }
  }
  removeTemporary(ctx, lease);
  removeFromUnit(rt, lease);
  plan.tempRemoveDay = -1;
  plan.payDay = -1;
  plan.secondPayDay = -1;
  plan.reverseDay = -1;
  plan.creditDay = -1;
  plan.tempAddDay = -1;
  plan.finalChargesDay = reason.moveOutType === 'Transfer' ? -1 : day + rng.int(2, 7);
  plan.refundDay = day + rng.int(14, 28);
  addActivity(ctx, lease, LEASE_EVENT.moveOut, day, `${sub}: ${reason.name}`);
  ctx.summary.moveOuts++;
}

function pastDay(ctx: SimContext, rt: PropertyRuntime, lease: SimLease, day: EpochDay, rng: Rng): void {
  const plan = lease._plan!;
  if (plan.finalChargesDay !== -1 && day >= plan.finalChargesDay) {
    plan.finalChargesDay = -1;
    if (!plan.otherIncome && rng.chance(0.7)) {
      postAr(ctx, lease, AR_CODES.cleaning, roundToDollars(rng.int(7500, 25000), 5), day, {
        description: 'Move-out cleaning',
      });
    }
    if (!plan.otherIncome && rng.chance(0.4)) {
      postAr(ctx, lease, AR_CODES.damages, roundToDollars(rng.int(10000, 150000), 5), day, {
        description: rng.pick(DAMAGE_TEXTS),
      });
    }
  }
  if (plan.refundDay !== -1 && day >= plan.refundDay) {
    plan.refundDay = -1;
    if (plan.depositCents > 0) {
      postAr(ctx, lease, AR_CODES.depositApplied, -plan.depositCents, day, {
        description: 'Security deposit applied to final balance',
      });
    }
    if (plan.balanceCents < 0) {
      const refund = -plan.balanceCents;
      postAr(ctx, lease, AR_CODES.depositRefund, refund, day, {
        description: 'Deposit refund check to resident',
      });
      ctx.summary.depositRefunds++;
      createRefundInvoice(ctx, rt, lease, refund, day, rng);
    } else if (plan.balanceCents > 0) {
      plan.writeOffDay = Math.max(day + 1, plan.moveOutDay + rng.int(60, 150));
      if (rng.chance(0.3)) plan.payDay = rng.int(day + 1, plan.writeOffDay - 1);
    }
  }
  if (plan.payDay !== -1 && day >= plan.payDay) {
    plan.payDay = -1;
    pay(ctx, lease, day, rng, 0.3 + 0.7 * rng.float());
  }
  if (plan.writeOffDay !== -1 && day >= plan.writeOffDay) {
    plan.writeOffDay = -1;
    if (plan.balanceCents > 0) {
      postAr(ctx, lease, AR_CODES.writeOff, -plan.balanceCents, day, {
        description: 'Balance written off - sent to collections',
      });
      ctx.summary.writeOffs++;
    }
  }
}

/** The day being simulated, with its month computed once for every lease. */
export interface DayInfo {
  day: EpochDay;
  dom: number;
  monthStart: EpochDay;
  monthEnd: EpochDay;
}

/** Describes a day for `leaseDay`. */
export function dayInfo(day: EpochDay): DayInfo {
  return { day, dom: dayOfMonth(day), monthStart: firstOfMonth(day), monthEnd: lastOfMonth(day) };
}

function residentDay(ctx: SimContext, rt: PropertyRuntime, lease: SimLease, d: DayInfo, rng: Rng): void {
  const { day, dom, monthStart, monthEnd } = d;
  const plan = lease._plan!;
  if (plan.tempRemoveDay !== -1 && day >= plan.tempRemoveDay) {
    plan.tempRemoveDay = -1;
    removeTemporary(ctx, lease);
  }
  if (plan.changeDay !== -1 && day >= plan.changeDay) applyChange(ctx, lease, day, rng);
  if (plan.modifyDay !== -1 && day >= plan.modifyDay) modify(ctx, lease, day, rng);
  if (dom === 1 && plan.moveInDay < day) {
    if (lease.isMonthToMonth === 1) {
      currentInterval(lease).endDate = mdy(monthEnd);
      plan.leaseEndDay = monthEnd;
      lease._leaseEnd = isoFromDay(monthEnd);
    }
    // This month's rare events, drawn once: the daily odds of the original hazards over a month.
    if (
      lease._status === LEASE_STATUS.Current &&
      lease.isMonthToMonth === 1 &&
      plan.changeDay === -1 &&
      rng.chance(0.25)
    )
      plan.mtmNoticeDay = rng.int(day, monthEnd);
    if (plan.payer === 2 && plan.balanceCents > plan.rentCents && rng.chance(0.045))
      plan.skipDay = rng.int(day, monthEnd);
    if (!plan.otherIncome && rng.chance(0.012)) plan.creditDay = rng.int(day, monthEnd);
    if (rt.info.utilitiesCents > 0 && !plan.otherIncome && rng.chance(0.04))
      plan.tempAddDay = monthStart + 19;
    chargeRange(ctx, lease, day, monthEnd);
    planPayment(plan, day, rng);
  }
  if (lease._status === LEASE_STATUS.Current) {
    if (plan.decideDay !== -1 && day >= plan.decideDay) decideRenewal(ctx, rt, lease, day, rng);
    else if (plan.mtmNoticeDay !== -1 && day >= plan.mtmNoticeDay) {
      plan.mtmNoticeDay = -1;
      if (lease.isMonthToMonth === 1 && plan.changeDay === -1) {
        giveNotice(
          ctx,
          rt,
          lease,
          day,
          lastOfMonth(day + 30),
          VOLUNTARY_REASONS[rng.weighted(VOLUNTARY_REASON_WEIGHTS)],
          'Notice Given',
        );
      }
    } else if (plan.payer === 2 && dom === 10 && plan.balanceCents > 2 * plan.rentCents && rng.chance(0.3)) {
      giveNotice(ctx, rt, lease, day, day + rng.int(20, 45), 'nonPayment', 'Eviction Filed');
    } else if (plan.skipDay !== -1 && day >= plan.skipDay) {
      plan.skipDay = -1;
      if (plan.balanceCents > plan.rentCents)
        giveNotice(ctx, rt, lease, day, day, 'abandoned', 'Skip Suspected');
    }
  }
  if (plan.payDay !== -1 && day >= plan.payDay) {
    plan.payDay = -1;
    const partial = plan.payer === 2 && rng.chance(0.35);
    pay(ctx, lease, day, rng, partial ? 0.4 + 0.45 * rng.float() : 1);
    if (partial) plan.secondPayDay = Math.min(monthEnd, day + rng.int(5, 15));
  }
  if (plan.secondPayDay !== -1 && day >= plan.secondPayDay) {
    plan.secondPayDay = -1;
    if (rng.chance(0.7)) pay(ctx, lease, day, rng, 1);
  }
  if (dom === 6 && plan.moveInDay < monthStart && plan.balanceCents > 0) {
    postAr(ctx, lease, AR_CODES.lateFee, rt.info.lateFeeCents, day, {
      description: 'Late fee - rent not received by the 5th',
    });
    ctx.summary.lateFees++;
  }
  if (plan.reverseDay !== -1 && day >= plan.reverseDay) {
    plan.reverseDay = -1;
    if (reversePayment(ctx, lease, plan.reverseArId, day, AR_CODES.payment)) {
      postAr(ctx, lease, AR_CODES.nsfFee, 3500, day, { description: 'Returned payment fee' });
      ctx.summary.reversals++;
      plan.payDay = day + rng.int(2, 7);
    }
  }
  if (plan.creditDay !== -1 && day >= plan.creditDay) {
    plan.creditDay = -1;
    postAr(ctx, lease, AR_CODES.serviceCredit, -roundToDollars(rng.int(2500, 10000), 5), day, {
      description: 'Courtesy credit - maintenance delay',
    });
    ctx.summary.concessions++;
  }
  if (plan.tempAddDay !== -1 && day >= plan.tempAddDay) {
    plan.tempAddDay = -1;
    if (plan.tempRemoveDay === -1) {
      postAr(ctx, lease, AR_CODES.estimatedUtilities, roundToDollars(rt.info.utilitiesCents * 0.5, 1), day, {
        description: 'Estimated utilities - pending meter read',
        temporary: true,
      });
      plan.tempRemoveDay = monthEnd + 1 + rng.int(0, 4);
    }
  }
  if (lease._status === LEASE_STATUS.Notice && day >= plan.moveOutDay) moveOut(ctx, rt, lease, day, rng);
}

/** The earlier of `next` and event day `x` (-1 = none); a day already passed is caught up tomorrow. */
function earliest(next: number, x: number, day: EpochDay): number {
  if (x === -1) return next;
  const at = x <= day ? day + 1 : x;
  return at < next ? at : next;
}

/** The next day anything can happen to the lease after `d.day` (NEVER when nothing will). */
export function computeNextDay(lease: SimLease, d: DayInfo): number {
  const p = lease._plan!;
  const day = d.day;
  let next = NEVER;
  switch (lease._status) {
    case LEASE_STATUS.Applicant:
      next = earliest(next, p.decideDay, day);
      break;
    case LEASE_STATUS.Future:
      next = earliest(next, p.decideDay, day);
      next = earliest(next, p.moveInDay, day);
      next = earliest(next, p.tempRemoveDay, day);
      break;
    case LEASE_STATUS.Current:
    case LEASE_STATUS.Notice: {
      next = earliest(next, d.monthEnd + 1, day);
      next = earliest(next, d.dom < 6 ? d.monthStart + 5 : d.monthEnd + 6, day);
      if (p.payer === 2) next = earliest(next, d.dom < 10 ? d.monthStart + 9 : d.monthEnd + 10, day);
      next = earliest(next, p.changeDay, day);
      next = earliest(next, p.modifyDay, day);
      next = earliest(next, p.payDay, day);
      next = earliest(next, p.secondPayDay, day);
      next = earliest(next, p.reverseDay, day);
      next = earliest(next, p.tempRemoveDay, day);
      next = earliest(next, p.decideDay, day);
      next = earliest(next, p.mtmNoticeDay, day);
      next = earliest(next, p.skipDay, day);
      next = earliest(next, p.creditDay, day);
      next = earliest(next, p.tempAddDay, day);
      if (lease._status === LEASE_STATUS.Notice) next = earliest(next, p.moveOutDay, day);
      break;
    }
    case LEASE_STATUS.Past:
      next = earliest(next, p.finalChargesDay, day);
      next = earliest(next, p.refundDay, day);
      next = earliest(next, p.payDay, day);
      next = earliest(next, p.writeOffDay, day);
      break;
    default:
      break;
  }
  return next;
}

/** Applies one day to one lease; returns the lease record (a new object after a move-in). */
export function leaseDay(
  ctx: SimContext,
  rt: PropertyRuntime,
  lease: SimLease,
  d: DayInfo,
  rng: Rng,
): SimLease {
  const plan = lease._plan;
  const day = d.day;
  if (!plan) return lease;
  switch (lease._status) {
    case LEASE_STATUS.Applicant:
      if (day >= plan.decideDay) decideApplication(ctx, rt, lease, day, rng);
      break;
    case LEASE_STATUS.Future:
      if (plan.decideDay !== -1 && day >= plan.decideDay) {
        cancelLease(ctx, rt, lease, day, rng, 'Cancelled Before Move-In', 'Cancelled');
        if (plan.transferLeaseId !== -1) plan.transferLeaseId = -1;
      } else if (day >= plan.moveInDay) {
        return moveIn(ctx, rt, lease, day, rng, day - rt.leasingDay < 240);
      }
      break;
    case LEASE_STATUS.Current:
    case LEASE_STATUS.Notice:
      residentDay(ctx, rt, lease, d, rng);
      break;
    case LEASE_STATUS.Past:
      pastDay(ctx, rt, lease, day, rng);
      break;
    default:
      break;
  }
  return lease;
}

/** New applications for the property's available units (vacant, or on notice without a successor). */
export function arrivals(ctx: SimContext, rt: PropertyRuntime, day: EpochDay, rng: Rng): void {
  const leaseUp = day - rt.leasingDay < 240;
  const blockedUnits = rt.unitBlocked;
  for (let u = 0; u < blockedUnits.length; u++) {
    // Most units are lived in: one contiguous list says so without touching the leases.
    if (blockedUnits[u] === 1) continue;
    const list = rt.unitPlans[u];
    let blocked = false;
    let applicants = 0;
    let notice: LeasePlan | undefined;
    for (let k = 0; k < list.length; k++) {
      const l = list[k];
      if (l.status === LEASE_STATUS.Applicant) applicants++;
      else if (l.status === LEASE_STATUS.Notice) notice = l;
      else blocked = true;
    }
    if (blocked || applicants >= 2) continue;
    const other = rt.otherIncome[u];
    let p: number;
    let available = day;
    if (notice) {
      available = notice.moveOutDay + 3;
      if (available - day > 60) continue;
      p = other ? 0.01 : 0.035;
    } else {
      p = other ? (leaseUp ? 0.012 : 0.008) : leaseUp ? 0.014 : 0.06;
    }
    if (applicants === 1) p *= 0.08;
    if (!rng.chance(p)) continue;
    const moveInDay = notice ? Math.max(available, day + 7) + rng.int(0, 10) : day + rng.int(7, 42);
    startApplication(ctx, rt, u, day, rng, moveInDay);
  }
}
