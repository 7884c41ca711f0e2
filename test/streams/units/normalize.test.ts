import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { wholeRecord } from '../../../src/streams/parts.js';
import type { LoadRow } from '../../../src/warehouse/bulk-load/index.js';
import { normalizePropertyUnits } from '../../../src/streams/units/normalize.js';
import { unitStatusMeaning } from '../../../src/streams/units/statuses.js';

// The units stream's normalize over recorded replies (test/streams/record-fixtures.ts) and over
// the quirks the source is known for, as the client decodes them (every leaf text).

const recorded = JSON.parse(
  readFileSync(new URL('./fixtures/getPropertyUnits-r1.json', import.meta.url), 'utf8'),
) as Record<string, any>[];

const space = (fields: Record<string, string> = {}) => ({
  unitSpaceId: '70001',
  unitNumber: '101',
  availabilityStatus: 'Vacant Unrented Not Ready',
  makeReadyDate: '07/02/2026',
  rent: '1450.00',
  ...fields,
});

/** A property normalized and taken whole (`wholeRecord`), with the parts that failed by their messages. */
function normalize(value: unknown) {
  const normalized = normalizePropertyUnits(value);
  const { rows, notes, failed } = wholeRecord(normalized);
  return {
    key: normalized.key,
    rows: {
      unit_inventories: [] as LoadRow[],
      units: [] as LoadRow[],
      unit_spaces: [] as LoadRow[],
      ...rows,
    },
    notes: notes.length ? notes : undefined,
    failed: failed.map(({ label, error }) => ({ label, message: (error as Error).message })),
  };
}

describe('units normalize', () => {
  it('reads a recorded property into an inventory row, a row per unit and one per space', () => {
    const property = recorded[0];
    const { key, rows, notes } = normalize(property);
    expect(key).toBe(Number(property.propertyId));
    const units = [property.units.unit].flat();
    expect(rows.unit_inventories).toMatchObject([{ unit_count: units.length }]);
    expect(rows.units).toHaveLength(units.length);
    const spaces = units.flatMap((unit) => [unit.unitSpaces.unitSpace].flat());
    expect(rows.unit_spaces!.map((row) => row.unit_space_id)).toEqual(
      spaces.map((s) => Number(s.unitSpaceId)),
    );
    expect(rows.unit_spaces!.every((row) => row.status_category !== 'other')).toBe(true);
    expect(notes).toBeUndefined();
    // A unit's raw leaves its spaces to their table; the inventory's leaves its units.
    expect(rows.units![0].raw).not.toHaveProperty('unitSpaces');
    expect(rows.unit_inventories![0].raw).not.toHaveProperty('units');
  });

  it('reads a single unit and a single space sent as objects, and missing optional fields as null', () => {
    const { rows } = normalize({
      propertyId: '100009',
      units: {
        unit: { id: '501', unitNumber: '101', unitTypeName: 'Apartment', unitSpaces: { unitSpace: space() } },
      },
    });
    expect(rows.units).toMatchObject([
      {
        unit_id: 501,
        property_id: 100009,
        bedrooms: null,
        square_feet: null,
        unit_address: null,
        is_other_income: false,
      },
    ]);
    expect(rows.unit_spaces).toMatchObject([
      {
        unit_space_id: 70001,
        unit_id: 501,
        availability_status: 'Vacant Unrented Not Ready',
        status_category: 'vacant',
        is_preleased: false,
        is_ready: false,
        make_ready_date: '2026-07-02',
        available_date: null,
        rent: '1450.00',
        min_deposit: null,
      },
    ]);
  });

  it('keeps a status it does not know as category other, with a note, rather than refusing the record', () => {
    const { rows, notes } = normalize({
      propertyId: '100009',
      units: {
        unit: [
          { id: '501', unitSpaces: { unitSpace: space({ availabilityStatus: 'Offline - Renovation' }) } },
          {
            id: '502',
            unitSpaces: { unitSpace: space({ unitSpaceId: '70002', availabilityStatus: 'Occupied' }) },
          },
        ],
      },
    });
    expect(rows.unit_spaces!.map((row) => [row.availability_status, row.status_category])).toEqual([
      ['Offline - Renovation', 'other'],
      ['Occupied', 'occupied'],
    ]);
    expect(notes).toEqual([
      "unit space 70001 of property 100009: status 'Offline - Renovation' is not one propsync knows; kept, as category other",
    ]);
  });

  it('tells other-income units by their unit type', () => {
    const { rows } = normalize({
      propertyId: '100009',
      units: { unit: [{ id: '601', unitTypeName: 'Parking', unitSpaces: { unitSpace: space() } }] },
    });
    expect(rows.units![0].is_other_income).toBe(true);
    expect(rows.unit_spaces![0].is_other_income).toBe(true);
  });

  it('maps the statuses public clients show and finer ones, whatever their case and dashes', () => {
    expect(unitStatusMeaning('Occupied').category).toBe('occupied');
    expect(unitStatusMeaning('On Notice').category).toBe('notice');
    expect(unitStatusMeaning('Vacant').category).toBe('vacant');
    expect(unitStatusMeaning('notice-rented')).toMatchObject({ category: 'notice', preleased: true });
    expect(unitStatusMeaning('Vacant Rented Ready')).toMatchObject({
      category: 'vacant',
      preleased: true,
      ready: true,
    });
    expect(unitStatusMeaning('Down').category).toBe('down');
    expect(unitStatusMeaning('Model').category).toBe('model');
    expect(unitStatusMeaning('constructor')).toMatchObject({ category: 'other', known: false });
    expect(unitStatusMeaning(null)).toMatchObject({ category: 'other', known: false });
  });

  it('leaves out a unit it cannot read, as a failed part naming the field, and reads the others', () => {
    const { rows, failed } = normalize({
      propertyId: '100009',
      units: {
        unit: [
          { unitNumber: '1', unitSpaces: { unitSpace: space() } },
          { id: '502', unitSpaces: { unitSpace: space({ unitSpaceId: '70002', rent: 'twelve' }) } },
          { id: '503', unitSpaces: { unitSpace: space({ unitSpaceId: '70003' }) } },
        ],
      },
    });
    expect(failed).toEqual([
      { label: 'unit at units.unit[0]', message: expect.stringMatching(/units\.unit\[0\]\.id/) },
      {
        label: 'unit 502',
        message: expect.stringMatching(/units\.unit\[1\]\.unitSpaces\.unitSpace\[0\]\.rent/),
      },
    ]);
    expect(rows.units.map((row) => row.unit_id)).toEqual([503]);
    expect(rows.unit_spaces.map((row) => row.unit_space_id)).toEqual([70003]);
    // The inventory counts what the source listed, the units left out included.
    expect(rows.unit_inventories).toMatchObject([{ unit_count: 3, space_count: 3 }]);
  });

  it('refuses a property without an id, naming the field', () => {
    expect(() => normalizePropertyUnits({ units: { unit: { id: '1' } } })).toThrow(/propertyId/);
  });
});
