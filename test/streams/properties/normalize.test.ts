import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RecordError } from '../../../src/source/field-readers.js';
import { PROPERTY_DISCOVERY } from '../../../src/streams/properties/discovery.js';
import { normalizeProperty } from '../../../src/streams/properties/normalize.js';

/** A recorded getProperties reply of the simulator (see ../record-fixtures.ts). */
const records = JSON.parse(
  readFileSync(new URL('./fixtures/getProperties-r1.json', import.meta.url), 'utf8'),
) as Record<string, any>[];

describe('properties normalize, a recorded getProperties r1 reply', () => {
  it('gives one row per property, with its address parts and the whole record as raw', () => {
    expect(records.length).toBeGreaterThan(1);
    for (const record of records) {
      const { key, rows } = normalizeProperty(record);
      expect(key).toBe(Number(record.PropertyID));
      expect(rows.properties).toEqual([
        {
          property_id: key,
          marketing_name: record.MarketingName,
          property_type: record.Type,
          is_disabled: record.IsDisabled === '1',
          street: record.Address.Address,
          city: record.Address.City,
          state: record.Address.State,
          postal_code: record.Address.PostalCode,
          country: record.Address.Country,
          parent_property_id: record.ParentPropertyID === undefined ? null : Number(record.ParentPropertyID),
          lookup_code: record.LookupCode,
          year_built: Number(record.YearBuilt),
          ar_post_month: `${record.PostMonths.ArPostMonth.slice(3, 7)}-${record.PostMonths.ArPostMonth.slice(0, 2)}-01`,
          ap_post_month: `${record.PostMonths.ApPostMonth.slice(3, 7)}-${record.PostMonths.ApPostMonth.slice(0, 2)}-01`,
          raw: record,
        },
      ]);
    }
  });

  it('reads a disabled property, and one without an address', () => {
    const { rows } = normalizeProperty({ PropertyID: '7', MarketingName: 'Closed', IsDisabled: '1' });
    expect(rows.properties![0]).toMatchObject({
      property_id: 7,
      marketing_name: 'Closed',
      is_disabled: true,
      street: null,
      country: null,
      parent_property_id: null,
      year_built: null,
      ar_post_month: null,
    });
  });

  it('keeps the parent property of a child property, its lookup code, year built and open post months', () => {
    const { rows } = normalizeProperty({
      PropertyID: '12',
      ParentPropertyID: '11',
      LookupCode: 'OAK12',
      YearBuilt: '1987',
      PostMonths: { ArPostMonth: '07/2026', ApPostMonth: '06/2026' },
    });
    expect(rows.properties![0]).toMatchObject({
      property_id: 12,
      parent_property_id: 11,
      lookup_code: 'OAK12',
      year_built: 1987,
      ar_post_month: '2026-07-01',
      ap_post_month: '2026-06-01',
    });
  });

  it('refuses a record without a property id', () => {
    expect(() => normalizeProperty({ MarketingName: 'No id' })).toThrow(RecordError);
  });

  it('names each property as discovery does', () => {
    for (const record of records) {
      const row = normalizeProperty(record).rows.properties![0];
      expect(PROPERTY_DISCOVERY.property(record)).toEqual({
        id: String(row.property_id),
        name: row.marketing_name,
        disabled: row.is_disabled,
      });
    }
    expect(PROPERTY_DISCOVERY.property({ MarketingName: 'No id' })).toBeNull();
  });
});
