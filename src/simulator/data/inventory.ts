/**
 * The unit inventory of a property on a day (what getPropertyUnits lists), derived from the data
 * set alone: its units and spaces (homes, parking and storage), each space's state read from the
 * unit's leases on that day, a make-ready period after each move-out, market rent by month, now
 * and then a vacant unit down for some days, and on some properties a new building opening after
 * the data set was made. Nothing is stored: the server and the truth compute the same answer.
 * Why and which statuses: docs/simulator.md#the-unit-inventory
 */
import { dayFromIso, firstOfMonth, ymd, type EpochDay } from './calendar.js';
import { LEASE_STATUS, type SimDataset, type SimLease, type SimProperty, type SimUnit } from './model.js';
import { roundToDollars, stringToCents } from './money.js';
import { hashInts } from './random.js';
import type { WorldProperty } from './world.js';

/** What a space is on the day, whatever the source calls it. */
export const SPACE_STATES = ['occupied', 'notice', 'vacant', 'down', 'model'] as const;
export type SpaceState = (typeof SPACE_STATES)[number];

/** One space of the inventory on a day. */
export interface InventorySpace {
  unitSpaceId: number;
  unitNumber: string;
  state: SpaceState;
  /** A future lease holds the space (pre-leased). */
  preleased: boolean;
  /** Vacant (or down/model) and made ready; false while the make-ready after a move-out runs. */
  ready: boolean;
  /** The status string the source sends. */
  status: string;
  /** The day the space is available (vacant or on notice), and the day its make-ready ends, if any. */
  availableDay?: EpochDay;
  makeReadyDay?: EpochDay;
  /** Market rent in cents on the day. */
  rentCents: number;
}

/** One unit of the inventory on a day. */
export interface InventoryUnit {
  unit: SimUnit;
  otherIncome: boolean;
  /** The building's number within the property (1-based, in the order buildings were made). */
  buildingId: number;
  spaces: InventorySpace[];
}

/** Statuses as most properties send them (finer than public clients show). */
const FINE = {
  occupied: 'Occupied No Notice',
  noticeUnrented: 'Notice Unrented',
  noticeRented: 'Notice Rented',
  vacantReady: 'Vacant Unrented Ready',
  vacantNotReady: 'Vacant Unrented Not Ready',
  rentedReady: 'Vacant Rented Ready',
  rentedNotReady: 'Vacant Rented Not Ready',
  down: 'Down',
  model: 'Model',
} as const;

/** Statuses as some properties send them: the three of public clients, and Down and Model. */
const COARSE = {
  occupied: 'Occupied',
  noticeUnrented: 'On Notice',
  noticeRented: 'On Notice',
  vacantReady: 'Vacant',
  vacantNotReady: 'Vacant',
  rentedReady: 'Vacant',
  rentedNotReady: 'Vacant',
  down: 'Down',
  model: 'Model',
} as const;

/** A status no client knows, sent for some down units of fine-status properties: it must be kept, not dropped. */
export const UNKNOWN_STATUS = 'Offline - Renovation';

/** Salts of the inventory's hashes (apart from the generator's streams). */
const SALT = {
  style: 701,
  model: 702,
  down: 703,
  downAt: 704,
  downFor: 705,
  ready: 706,
  unknown: 707,
  building: 708,
};

/** Days a vacant unit may be down for, and the period within which at most one such stretch falls. */
const DOWN_PERIOD = 40;
const DOWN_SHARE = 0.2;

/** A share from a hash. */
function unitShare(...parts: number[]): number {
  return hashInts(...parts) / 0x100000000;
}

/** The property sends the coarse statuses. */
function sendsCoarse(seed: number, propertyId: number): boolean {
  return unitShare(seed, SALT.style, propertyId) < 0.25;
}

/** Days of make-ready after a move-out (3 to 14). */
function makeReadyDays(seed: number, unitId: number, moveOut: EpochDay): number {
  return 3 + (hashInts(seed, SALT.ready, unitId, moveOut) % 12);
}

/** Whether a vacant unit is down on the day: one stretch of 6 to 20 days in a share of 40-day periods. */
function isDown(seed: number, unitId: number, day: EpochDay): boolean {
  const period = Math.floor(day / DOWN_PERIOD);
  if (unitShare(seed, SALT.down, unitId, period) >= DOWN_SHARE) return false;
  const from = period * DOWN_PERIOD + (hashInts(seed, SALT.downAt, unitId, period) % 15);
  return day >= from && day < from + 6 + (hashInts(seed, SALT.downFor, unitId, period) % 15);
}

/** Market rent of a home on a day: its asking rent grown about 3.5% a year, set on the first of each month. */
export function marketRentCents(
  unit: SimUnit,
  info: WorldProperty,
  day: EpochDay,
  otherIncome: boolean,
): number {
  const base = stringToCents(unit.marketRent);
  if (otherIncome) return base;
  const month = firstOfMonth(day);
  const season = [6, 7, 8].includes(ymd(month).month) ? 1.015 : 1;
  const years = (month - info.rentBaseDay) / 365;
  return Math.max(2500, roundToDollars(base * (1 + 0.035 * years) * season, 5));
}

/** A new building of a property, when it gets one: its opening day and its units (homes). */
export interface NewBuilding {
  openDay: EpochDay;
  name: string;
  units: SimUnit[];
}

/** Ids of new buildings' units and spaces, far above the generator's. */
const NEW_UNIT_ID = 900_000;
const NEW_SPACE_ID = 9_000_000;
/** Units of a new building, and the days its units take to be made ready after it opens. */
const NEW_BUILDING_UNITS = 12;
const NEW_BUILDING_READY_DAYS = 21;

/**
 * The building one property in three gets 10 to 24 days after the data set was made (its rent
 * base day): its homes copy the floor plans of the property's first units. Never leased by the
 * simulated leasing, which knows only the units it was made with: vacant, not ready, then ready.
 */
export function newBuildingOf(
  seed: number,
  property: SimProperty,
  info: WorldProperty,
  index: number,
): NewBuilding | undefined {
  if (index % 3 !== 1) return undefined;
  const homes = property._buildings.filter((b) => b.name !== 'Parking' && b.name !== 'Storage');
  const models = homes.flatMap((b) => b.units);
  if (models.length === 0) return undefined;
  const number = homes.length + 1;
  const name = `Building ${number}`;
  const units = Array.from({ length: NEW_BUILDING_UNITS }, (_, n): SimUnit => {
    const model = models[n % models.length];
    const unitNumber = `${number}${Math.floor(n / 8) + 1}${String((n % 8) + 1).padStart(2, '0')}`;
    return {
      unitId: String(NEW_UNIT_ID + index * 100 + n),
      unitNumber,
      buildingName: name,
      floorPlanId: model.floorPlanId,
      floorPlanName: model.floorPlanName,
      spaces: [{ unitSpaceId: NEW_SPACE_ID + index * 100 + n, unitSpace: unitNumber }],
      marketRent: model.marketRent,
    };
  });
  return {
    openDay: info.rentBaseDay + 10 + (hashInts(seed, SALT.building, property.PropertyID) % 15),
    name,
    units,
  };
}

/** Leases of each unit (by unit id) that decide its state: Future, Current, Notice and Past. */
export function leasesByUnit(leases: readonly SimLease[]): Map<string, SimLease[]> {
  const byUnit = new Map<string, SimLease[]>();
  for (const lease of leases) {
    if (lease._status === LEASE_STATUS.Applicant || lease._status === LEASE_STATUS.Cancelled) continue;
    let list = byUnit.get(lease.unitId);
    if (!list) byUnit.set(lease.unitId, (list = []));
    list.push(lease);
  }
  return byUnit;
}

/** The state of one unit's spaces on a day, from its leases. */
function unitState(
  seed: number,
  unit: SimUnit,
  leases: readonly SimLease[],
  day: EpochDay,
  model: boolean,
  opened: EpochDay | undefined,
): Omit<InventorySpace, 'unitSpaceId' | 'unitNumber' | 'status' | 'rentCents'> {
  let holder: SimLease | undefined;
  let preleased = false;
  let lastMoveOut: EpochDay | undefined;
  for (const lease of leases) {
    if (lease._status === LEASE_STATUS.Current || lease._status === LEASE_STATUS.Notice) holder = lease;
    else if (lease._status === LEASE_STATUS.Future) preleased = true;
    else if (lease._moveOut !== undefined) {
      const out = dayFromIso(lease._moveOut);
      if (out <= day && (lastMoveOut === undefined || out > lastMoveOut)) lastMoveOut = out;
    }
  }
  const unitId = Number(unit.unitId);
  const readyDay =
    opened !== undefined
      ? opened + NEW_BUILDING_READY_DAYS
      : lastMoveOut !== undefined
        ? lastMoveOut + makeReadyDays(seed, unitId, lastMoveOut)
        : undefined;
  if (holder?._status === LEASE_STATUS.Current) return { state: 'occupied', preleased, ready: false };
  if (holder) {
    const out = holder._moveOut ? dayFromIso(holder._moveOut) : day;
    const readyAt = out + makeReadyDays(seed, unitId, out);
    return { state: 'notice', preleased, ready: false, availableDay: readyAt, makeReadyDay: readyAt };
  }
  const ready = readyDay === undefined || readyDay <= day;
  const making = ready ? {} : { makeReadyDay: readyDay };
  const vacant = { preleased, ready, availableDay: ready ? day : readyDay, ...making };
  if (preleased) return { state: 'vacant', ...vacant };
  if (model) return { state: 'model', ...vacant };
  if (isDown(seed, unitId, day)) return { state: 'down', ...vacant };
  return { state: 'vacant', ...vacant };
}

/** The source's status string of a space state. */
function statusOf(
  seed: number,
  propertyId: number,
  unitId: number,
  space: Omit<InventorySpace, 'status'>,
): string {
  const names = sendsCoarse(seed, propertyId) ? COARSE : FINE;
  switch (space.state) {
    case 'occupied':
      return names.occupied;
    case 'notice':
      return space.preleased ? names.noticeRented : names.noticeUnrented;
    case 'model':
      return names.model;
    case 'down':
      return names === FINE && unitShare(seed, SALT.unknown, unitId) < 0.3 ? UNKNOWN_STATUS : names.down;
    case 'vacant':
      if (space.preleased) return space.ready ? names.rentedReady : names.rentedNotReady;
      return space.ready ? names.vacantReady : names.vacantNotReady;
  }
}

/** Everything the inventory of a data set needs, computed once per data set state. */
export interface InventoryIndex {
  byUnit: Map<string, SimLease[]>;
}

/** Builds the leases-by-unit lookup of a data set (rebuild after an advance). */
export function inventoryIndex(dataset: SimDataset): InventoryIndex {
  return { byUnit: leasesByUnit(dataset.leases) };
}

/** Every unit and space of one property on the data set's today, in building and unit order. */
export function propertyInventory(
  dataset: SimDataset,
  index: InventoryIndex,
  property: SimProperty,
): InventoryUnit[] {
  const position = dataset.properties.indexOf(property);
  const info = dataset._world?.properties[position];
  const day = dayFromIso(dataset.today);
  const seed = dataset.seed;
  const buildings: { id: number; name: string; units: SimUnit[]; opened?: EpochDay }[] =
    property._buildings.map((building, b) => ({ ...building, id: b + 1 }));
  const extra = info ? newBuildingOf(seed, property, info, position) : undefined;
  if (extra && extra.openDay <= day) {
    const at = buildings.findIndex((b) => b.name === 'Parking' || b.name === 'Storage');
    const added = { ...extra, id: buildings.length + 1, opened: extra.openDay };
    buildings.splice(at < 0 ? buildings.length : at, 0, added);
  }
  const hasModel = unitShare(seed, SALT.model, property.PropertyID) < 0.5;
  const units: InventoryUnit[] = [];
  buildings.forEach((building, b) => {
    const otherIncome = building.name === 'Parking' || building.name === 'Storage';
    building.units.forEach((unit, u) => {
      const model = hasModel && !otherIncome && b === 0 && u === 0;
      const state = unitState(seed, unit, index.byUnit.get(unit.unitId) ?? [], day, model, building.opened);
      const rentCents = info ? marketRentCents(unit, info, day, otherIncome) : stringToCents(unit.marketRent);
      const spaces = unit.spaces.map((space) => {
        const base = { unitSpaceId: space.unitSpaceId, unitNumber: space.unitSpace, ...state, rentCents };
        return { ...base, status: statusOf(seed, property.PropertyID, Number(unit.unitId), base) };
      });
      units.push({ unit, otherIncome, buildingId: building.id, spaces });
    });
  });
  return units;
}
