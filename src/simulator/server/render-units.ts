import { mdy } from '../data/calendar.js';
import type { InventorySpace, InventoryUnit } from '../data/inventory.js';
import { centsToString } from '../data/money.js';
import type { SimProperty } from '../data/model.js';
import { hashUnit } from './hash.js';

/**
 * One property's record of getPropertyUnits in camelCase, with the quirks of the others: per
 * property, numbers sent as strings or as JSON numbers; optional fields left out where there is
 * nothing to say (dates of an occupied space, a unit's address on some properties). Single
 * elements and empty containers are the wire quirks' business (`applyWireQuirks`).
 */

type Tree = Record<string, unknown>;

/** Fields of the unit type, from its floor plan's name and building. */
function unitTypeOf(unit: InventoryUnit): { id: number; name: string } {
  if (unit.unit.buildingName === 'Parking') return { id: 7, name: 'Parking' };
  if (unit.unit.buildingName === 'Storage') return { id: 8, name: 'Storage' };
  return unit.unit.floorPlanName.startsWith('TH')
    ? { id: 2, name: 'Townhome' }
    : { id: 1, name: 'Apartment' };
}

/** Bedrooms, bathrooms and square feet of a home, from its floor plan's name. */
function sizeOf(unit: InventoryUnit): { beds?: number; baths?: string; squareFeet?: number } {
  const name = unit.unit.floorPlanName;
  const wiggle = (Number(unit.unit.unitId) % 7) * 10;
  if (unit.unit.buildingName === 'Parking') return {};
  if (unit.unit.buildingName === 'Storage') return { squareFeet: 40 + wiggle };
  if (name.startsWith('TH')) return { beds: 3, baths: '2.5', squareFeet: 1640 + wiggle };
  const match = /(\d) Bed (\d) Bath/.exec(name);
  if (!match) return { beds: 0, baths: '1', squareFeet: 520 + wiggle };
  const beds = Number(match[1]);
  return { beds, baths: match[2], squareFeet: 480 + beds * 300 + (name.includes('Den') ? 90 : 0) + wiggle };
}

function renderSpace(space: InventorySpace, number: (value: number | string) => unknown): Tree {
  const vacantish = space.state !== 'occupied';
  return {
    unitSpaceId: space.unitSpaceId,
    unitNumber: space.unitNumber,
    isAffordable: 'f',
    hasPricing: space.state !== 'down',
    excludedReason: space.state === 'down' ? 'Unit is down for maintenance' : undefined,
    spaceConfiguration: 'Conventional',
    availabilityStatus: space.status,
    availableDate: vacantish && space.availableDay !== undefined ? mdy(space.availableDay) : undefined,
    makeReadyDate: space.makeReadyDay !== undefined ? mdy(space.makeReadyDay) : undefined,
    rent: number(centsToString(space.rentCents)),
    minDeposit: number(centsToString(Math.round(space.rentCents / 200) * 100)),
    maxDeposit: number(centsToString(space.rentCents)),
  };
}

/** The getPropertyUnits record of one property: `propertyId` and its `units.unit[]`. */
export function renderPropertyUnits(
  property: SimProperty,
  units: readonly InventoryUnit[],
  seed: number,
): Tree {
  const id = property.PropertyID;
  const asText = hashUnit(seed, `unit-numbers:${id}`) < 0.5;
  const withAddress = hashUnit(seed, `unit-address:${id}`) < 0.6;
  const number = (value: number | string): unknown => (asText ? String(value) : Number(value));
  return {
    propertyId: String(id),
    units: {
      unit: units.map((unit): Tree => {
        const type = unitTypeOf(unit);
        const size = sizeOf(unit);
        const home = !unit.otherIncome;
        return {
          id: Number(unit.unit.unitId),
          unitNumber: unit.unit.unitNumber,
          buildingId: String(id * 100 + unit.buildingId),
          buildingName: unit.unit.buildingName,
          floorplanId: unit.unit.floorPlanId,
          floorplanName: unit.unit.floorPlanName,
          unitTypeId: type.id,
          unitTypeName: type.name,
          noOfBedrooms: size.beds === undefined ? undefined : number(size.beds),
          noOfBathrooms: size.baths === undefined ? undefined : number(size.baths),
          squareFeet: size.squareFeet === undefined ? undefined : number(size.squareFeet),
          isFurnished: 0,
          isCorportateRented: '0',
          numberOccupants: home && size.beds !== undefined ? number(Math.max(1, size.beds) * 2) : undefined,
          maxPets: home ? number(2) : undefined,
          unitAvailabilityURL: home
            ? `https://example.invalid/properties/${id}/units/${unit.unit.unitId}`
            : undefined,
          unitAddress:
            home && withAddress
              ? `${property.Address.Address} Unit ${unit.unit.unitNumber}, ${property.Address.City}`
              : undefined,
          unitSpaces: { unitSpace: unit.spaces.map((space) => renderSpace(space, number)) },
        };
      }),
    },
  };
}
