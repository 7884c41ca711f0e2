/**
 * The working state of one simulation run (generation or advance): the data set, its world,
 * per-property indexes rebuilt from the records, and the tally of changes. Indexes are never
 * stored in the data set; `buildContext` derives them, so a run can start from any data set
 * that `generateDataset` or `advanceDataset` left behind.
 */
import {
  LEASE_STATUS,
  type SimDataset,
  type SimInvoice,
  type SimLease,
  type SimProperty,
  type SimUnit,
} from './model.js';
import { NEVER, type IdCounters, type LeasePlan, type SimWorld, type WorldProperty } from './world.js';

/** Kinds of change one run makes, counted. */
export const CHANGE_KINDS = [
  'applications',
  'approvals',
  'cancellations',
  'moveIns',
  'notices',
  'moveOuts',
  'renewals',
  'monthToMonth',
  'transfers',
  'modifications',
  'arTransactions',
  'arTemporaryRemoved',
  'payments',
  'lateFees',
  'reversals',
  'concessions',
  'depositRefunds',
  'writeOffs',
  'invoicesCreated',
  'invoicesBackdated',
  'customerRefunds',
  'invoicePayments',
  'paymentsVoided',
  'invoicesExported',
  'holdsReleased',
] as const;
/** One kind of change. */
export type ChangeKind = (typeof CHANGE_KINDS)[number];
/** Counts of changes by kind. */
export type ChangeSummary = Record<ChangeKind, number>;

/** A summary with every count at zero. */
export function emptySummary(): ChangeSummary {
  const s = {} as ChangeSummary;
  for (const k of CHANGE_KINDS) s[k] = 0;
  return s;
}

/** Per-property indexes of a run. */
export interface PropertyRuntime {
  index: number;
  property: SimProperty;
  info: WorldProperty;
  /** Every unit, buildings flattened in order (other-income spaces last). */
  units: SimUnit[];
  otherIncome: boolean[];
  /** Per unit: its leases in status Applicant, Future, Current or Notice. */
  unitLeases: SimLease[][];
  /** Their plans, index for index (lease records with removed keys are slow to read in hot loops). */
  unitPlans: LeasePlan[][];
  /** Per unit: 1 while a Future or Current (not on notice) lease holds it, so no application can come. */
  unitBlocked: number[];
  /** The property's utility vendors and its other vendors (derived from the world, once). */
  utilityVendorIds: number[];
  otherVendorIds: number[];
  /** Leases with something still to happen, in id order. */
  live: SimLease[];
  /** Their plans, index for index. */
  livePlans: LeasePlan[];
  /** Their plans' `nextDay`, index for index: one contiguous list the daily loop scans. */
  liveNext: number[];
  /** Invoices with a payment, void, hold release or export still to happen, in id order. */
  openInvoices: SimInvoice[];
  /** The next day something happens to each of them, index for index. */
  openNext: number[];
  /** Epoch day from which the property has vendor invoices. */
  openDay: number;
  /** Epoch day from which the property has leases. */
  leasingDay: number;
}

/** Everything a run works on. */
export interface SimContext {
  seed: number;
  dataset: SimDataset;
  world: SimWorld;
  ids: IdCounters;
  runtimes: PropertyRuntime[];
  byPropertyId: Map<number, PropertyRuntime>;
  summary: ChangeSummary;
}

/** Takes the next id of a kind. */
export function nextId(ctx: SimContext, kind: keyof IdCounters): number {
  return ctx.ids[kind]++;
}

const ACTIVE: ReadonlySet<number> = new Set([
  LEASE_STATUS.Applicant,
  LEASE_STATUS.Future,
  LEASE_STATUS.Current,
  LEASE_STATUS.Notice,
]);

/** True when something is still to happen to a lease (it stays in the live list). */
export function leaseHasPending(lease: SimLease): boolean {
  return lease._plan !== undefined && lease._plan.nextDay !== NEVER;
}

/** True when an invoice's plan still has an event to apply (a payment, void, hold release or export). */
export function invoiceHasPending(invoice: SimInvoice): boolean {
  const p = invoice._plan;
  if (!p) return false;
  return (
    p.payDay !== -1 || p.secondPayDay !== -1 || p.voidDay !== -1 || p.holdUntil !== -1 || p.exportDay !== -1
  );
}

/** Empty indexes of one property. */
export function newRuntime(property: SimProperty, info: WorldProperty, index: number): PropertyRuntime {
  const units: SimUnit[] = [];
  const otherIncome: boolean[] = [];
  for (const b of property._buildings) {
    for (const u of b.units) {
      units.push(u);
      otherIncome.push(b.name === 'Parking' || b.name === 'Storage');
    }
  }
  return {
    index,
    property,
    info,
    units,
    otherIncome,
    unitLeases: units.map(() => []),
    unitPlans: units.map(() => []),
    unitBlocked: units.map(() => 0),
    utilityVendorIds: [],
    otherVendorIds: [],
    live: [],
    livePlans: [],
    liveNext: [],
    openInvoices: [],
    openNext: [],
    openDay: info.openDay,
    leasingDay: info.leasingDay,
  };
}

/** Adds a lease to the live list. */
export function addLive(rt: PropertyRuntime, lease: SimLease): void {
  rt.live.push(lease);
  rt.livePlans.push(lease._plan!);
  rt.liveNext.push(lease._plan!.nextDay);
}

/** Recomputes whether a unit is blocked; call after its leases or their statuses change. */
export function refreshUnit(rt: PropertyRuntime, unit: number): void {
  let blocked = 0;
  for (const p of rt.unitPlans[unit])
    if (p.status === LEASE_STATUS.Future || p.status === LEASE_STATUS.Current) blocked = 1;
  rt.unitBlocked[unit] = blocked;
}

/** Adds a lease to its unit's active leases. */
export function addToUnit(rt: PropertyRuntime, lease: SimLease): void {
  const plan = lease._plan!;
  rt.unitLeases[plan.unit].push(lease);
  rt.unitPlans[plan.unit].push(plan);
  refreshUnit(rt, plan.unit);
}

/** Removes a lease from its unit's active leases. */
export function removeFromUnit(rt: PropertyRuntime, lease: SimLease): void {
  const plan = lease._plan!;
  const i = rt.unitPlans[plan.unit].indexOf(plan);
  if (i >= 0) {
    rt.unitLeases[plan.unit].splice(i, 1);
    rt.unitPlans[plan.unit].splice(i, 1);
  }
  refreshUnit(rt, plan.unit);
}

/** Adds an invoice to the property's open invoices, to be looked at on `nextDay`. */
export function addOpenInvoice(rt: PropertyRuntime, invoice: SimInvoice, nextDay: number): void {
  rt.openInvoices.push(invoice);
  rt.openNext.push(nextDay);
}

/** Builds the run's indexes from a data set that carries its world. */
export function buildContext(dataset: SimDataset): SimContext {
  const world = dataset._world;
  if (!world)
    throw new Error(
      'this data set has no _world: only data sets made by generateDataset (or advanced from one) can be advanced',
    );
  const runtimes: PropertyRuntime[] = [];
  const byPropertyId = new Map<number, PropertyRuntime>();
  dataset.properties.forEach((property, index) => {
    const info = world.properties[index];
    if (!info || info.propertyId !== property.PropertyID)
      throw new Error(`world and properties disagree at index ${index}`);
    const rt = newRuntime(property, info, index);
    runtimes.push(rt);
    byPropertyId.set(property.PropertyID, rt);
  });
  for (const lease of dataset.leases) {
    const rt = byPropertyId.get(lease._propertyId);
    if (!rt || !lease._plan) continue;
    if (ACTIVE.has(lease._status)) addToUnit(rt, lease);
    if (leaseHasPending(lease)) addLive(rt, lease);
  }
  for (const invoice of dataset.invoices) {
    if (!invoiceHasPending(invoice)) continue;
    const rt = byPropertyId.get(invoice._propertyIds[0]);
    if (rt) addOpenInvoice(rt, invoice, 0);
  }
  return {
    seed: dataset.seed,
    dataset,
    world,
    ids: world.ids,
    runtimes,
    byPropertyId,
    summary: emptySummary(),
  };
}
