import { asBoolean, asDate, asId, asInt, asMoney, asText, required } from '../../source/field-readers.js';
import type { TreeObject } from '../../source/tree.js';
import type { LoadRowOf } from '../../warehouse/schema.js';
import { asObject, listOf, without } from '../record.js';
import type { NormalizedPart, NormalizedRecord } from '../types.js';
import { unitStatusMeaning } from './statuses.js';
import { UNIT_INVENTORIES, UNIT_SPACES, UNITS, type UnitRows } from './tables.js';

/** Unit types rented as other income rather than lived in (by the unit type's or floor plan's name). */
const OTHER_INCOME = /\b(parking|storage|garage|carport|locker)\b/i;

/** A unit is other income when its unit type names parking, storage, a garage, a carport or a locker. */
export function isOtherIncome(unit: TreeObject): boolean {
  const type = asText(unit.unitTypeName, 'unitTypeName');
  return type !== null && OTHER_INCOME.test(type);
}

/**
 * One property of getPropertyUnits → its `unit_inventories` row, and each unit as a part of its
 * own: a `units` row and a `unit_spaces` row per space (single elements as objects, numbers as
 * strings and missing optional fields read by the quirk readers). A unit that cannot be read is
 * its own part's error, so that the property's other units still load. A status the mapping does
 * not know is kept, as category `other`, with a note for the run's log.
 */
export function normalizePropertyUnits(value: unknown): NormalizedRecord<UnitRows> {
  const property = asObject(value, 'property');
  const propertyId = required(asId(property.propertyId, 'propertyId'), 'propertyId');
  const listed = listOf(property, 'units', 'unit');
  let spaceCount = 0;
  const parts: NormalizedPart<UnitRows>[] = listed.map((unit, u) => {
    const at = `units.unit[${u}]`;
    let label = `unit at ${at}`;
    try {
      const spaces = listOf(unit, 'unitSpaces', 'unitSpace');
      spaceCount += spaces.length;
      const unitId = required(asId(unit.id, `${at}.id`), `${at}.id`);
      label = `unit ${unitId}`;
      return { label, ...unitRows(unit, spaces, at, unitId, propertyId) };
    } catch (error) {
      return { label, error };
    }
  });
  const inventory: LoadRowOf<typeof UNIT_INVENTORIES> = {
    property_id: propertyId,
    unit_count: listed.length,
    // A unit whose list of spaces cannot be read counts none.
    space_count: spaceCount,
    raw: without(property, ['units']),
  };
  return { key: propertyId, rows: { unit_inventories: [inventory], units: [], unit_spaces: [] }, parts };
}

/** One unit's row and its spaces' rows, with a note for each status the mapping does not know. */
function unitRows(
  unit: TreeObject,
  listedSpaces: readonly TreeObject[],
  at: string,
  unitId: number,
  propertyId: number,
): { rows: Pick<UnitRows, 'units' | 'unit_spaces'>; notes?: string[] } {
  const otherIncome = isOtherIncome(unit);
  const units: LoadRowOf<typeof UNITS>[] = [
    {
      unit_id: unitId,
      property_id: propertyId,
      unit_number: asText(unit.unitNumber, `${at}.unitNumber`),
      building_id: asId(unit.buildingId, `${at}.buildingId`),
      building_name: asText(unit.buildingName, `${at}.buildingName`),
      floorplan_id: asId(unit.floorplanId, `${at}.floorplanId`),
      floorplan_name: asText(unit.floorplanName, `${at}.floorplanName`),
      unit_type_id: asId(unit.unitTypeId, `${at}.unitTypeId`),
      unit_type_name: asText(unit.unitTypeName, `${at}.unitTypeName`),
      bedrooms: asInt(unit.noOfBedrooms, `${at}.noOfBedrooms`),
      bathrooms: asMoney(unit.noOfBathrooms, `${at}.noOfBathrooms`),
      square_feet: asInt(unit.squareFeet, `${at}.squareFeet`),
      is_furnished: asBoolean(unit.isFurnished, `${at}.isFurnished`),
      is_corporate_rented: asBoolean(unit.isCorportateRented, `${at}.isCorportateRented`),
      number_occupants: asInt(unit.numberOccupants, `${at}.numberOccupants`),
      max_pets: asInt(unit.maxPets, `${at}.maxPets`),
      unit_availability_url: asText(unit.unitAvailabilityURL, `${at}.unitAvailabilityURL`),
      unit_address: asText(unit.unitAddress, `${at}.unitAddress`),
      is_other_income: otherIncome,
      raw: without(unit, ['unitSpaces']),
    },
  ];
  const spaces: LoadRowOf<typeof UNIT_SPACES>[] = [];
  const notes: string[] = [];
  for (const [s, space] of listedSpaces.entries()) {
    const where = `${at}.unitSpaces.unitSpace[${s}]`;
    const spaceId = required(asId(space.unitSpaceId, `${where}.unitSpaceId`), `${where}.unitSpaceId`);
    const status = asText(space.availabilityStatus, `${where}.availabilityStatus`);
    const meaning = unitStatusMeaning(status);
    if (!meaning.known)
      notes.push(
        `unit space ${spaceId} of property ${propertyId}: ` +
          `status ${status === null ? '(none)' : `'${status}'`} is not one propsync knows; ` +
          `kept, as category other`,
      );
    spaces.push({
      unit_space_id: spaceId,
      property_id: propertyId,
      unit_id: unitId,
      unit_number: asText(space.unitNumber, `${where}.unitNumber`),
      availability_status: status,
      status_category: meaning.category,
      is_preleased: meaning.preleased,
      is_ready: meaning.ready,
      available_date: asDate(space.availableDate, `${where}.availableDate`),
      make_ready_date: asDate(space.makeReadyDate, `${where}.makeReadyDate`),
      rent: asMoney(space.rent, `${where}.rent`),
      min_deposit: asMoney(space.minDeposit, `${where}.minDeposit`),
      max_deposit: asMoney(space.maxDeposit, `${where}.maxDeposit`),
      reserve_until: asDate(space.reserveUntil, `${where}.reserveUntil`),
      is_affordable: asBoolean(space.isAffordable, `${where}.isAffordable`),
      has_pricing: asBoolean(space.hasPricing, `${where}.hasPricing`),
      excluded_reason: asText(space.excludedReason, `${where}.excludedReason`),
      space_configuration: asText(space.spaceConfiguration, `${where}.spaceConfiguration`),
      is_other_income: otherIncome,
      raw: space,
    });
  }
  return { rows: { units, unit_spaces: spaces }, ...(notes.length ? { notes } : {}) };
}
