import type { SourceMethod } from '../../source/types.js';
import type { SettingsBuilders } from '../settings.js';
import type { StreamManifest } from '../types.js';
import { PROPERTY_TABLES } from './tables.js';

/** getProperties (`/api/v1/properties`): every property the credential sees, r1 only. */
export const GET_PROPERTIES: SourceMethod = {
  name: 'getProperties',
  area: 'properties',
  versions: ['r1'],
  defaultVersion: 'r1',
  records: ['PhysicalProperty', 'Property'],
  params: {
    propertyIds: { kind: 'idList' },
  },
};

/** The properties the source lists, read whole on every run: the property dimension. */
export const properties = {
  name: 'properties',
  entity: 'property',
  method: GET_PROPERTIES,
  tables: PROPERTY_TABLES,
  personal: {
    fields: {},
    notPersonal: {
      MarketingName: "the property's marketing name",
      'Address.Address': "the property's street address",
      'Address.City': "the property's city",
      'Address.PostalCode': "the property's postal code",
    },
  },
  backfillBy: 'the whole listing',
  verify: {
    params: {},
    propertyParam: { name: 'propertyIds', list: true },
    covers: { table: 'properties', column: 'property_id' },
  },
  settings: ({ streamSettings }: SettingsBuilders) =>
    streamSettings({ schedule: '5 2 * * *', chunk: '1y' }, {}),
} as const satisfies StreamManifest;
