import { asBoolean, asId, asInt, asPostMonth, asText, required } from '../../source/field-readers.js';
import type { TreeObject } from '../../source/tree.js';
import type { LoadRowOf } from '../../warehouse/schema.js';
import { asObject, nested } from '../record.js';
import type { NormalizedRecord } from '../types.js';
import { PROPERTIES, type PropertyRows } from './tables.js';

/**
 * What names a property, read alike by the stream and by discovery: its id (null when unusable), name and
 * disabled flag.
 */
export function propertyIdentity(property: TreeObject): {
  id: number | null;
  name: string | null;
  disabled: boolean | null;
} {
  return {
    id: asId(property.PropertyID, 'PropertyID'),
    name: asText(property.MarketingName, 'MarketingName'),
    disabled: asBoolean(property.IsDisabled, 'IsDisabled'),
  };
}

/** One getProperties record (PascalCase, with an `Address` object) → its `properties` row. */
export function normalizeProperty(value: unknown): NormalizedRecord<PropertyRows> {
  const property = asObject(value, 'property');
  const identity = propertyIdentity(property);
  const propertyId = required(identity.id, 'PropertyID');
  const address = nested(property, 'Address');
  const postMonths = nested(property, 'PostMonths');
  const row: LoadRowOf<typeof PROPERTIES> = {
    property_id: propertyId,
    marketing_name: identity.name,
    property_type: asText(property.Type, 'Type'),
    is_disabled: identity.disabled,
    street: asText(address.Address, 'Address.Address'),
    city: asText(address.City, 'Address.City'),
    state: asText(address.State, 'Address.State'),
    postal_code: asText(address.PostalCode, 'Address.PostalCode'),
    country: asText(address.Country, 'Address.Country'),
    parent_property_id: asId(property.ParentPropertyID, 'ParentPropertyID'),
    lookup_code: asText(property.LookupCode, 'LookupCode'),
    year_built: asInt(property.YearBuilt, 'YearBuilt'),
    ar_post_month: asPostMonth(postMonths.ArPostMonth, 'PostMonths.ArPostMonth'),
    ap_post_month: asPostMonth(postMonths.ApPostMonth, 'PostMonths.ApPostMonth'),
    raw: property,
  };
  return { key: propertyId, rows: { properties: [row] } };
}
