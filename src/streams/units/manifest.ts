import type { SourceMethod } from '../../source/types.js';
import type { SettingsBuilders } from '../settings.js';
import type { StreamManifest } from '../types.js';
import { UNIT_DERIVED_TABLES, UNIT_TABLES } from './tables.js';

/** getPropertyUnits (`/api/v1/propertyunits`): every unit and space of the properties asked for, r1. */
export const GET_PROPERTY_UNITS: SourceMethod = {
  name: 'getPropertyUnits',
  area: 'propertyunits',
  versions: ['r1'],
  defaultVersion: 'r1',
  records: ['properties', 'property'],
  params: {
    propertyIds: { kind: 'idList', required: true },
    availableUnitsOnly: { kind: 'boolean' },
    usePropertyPreferences: { kind: 'boolean' },
    includeDisabledFloorplans: { kind: 'boolean' },
    includeDisabledUnits: { kind: 'boolean' },
  },
};

/** Parameters of every call: every unit, disabled ones (down for renovation) and disabled floor plans included. */
export const UNIT_CALL_PARAMS = { includeDisabledUnits: true, includeDisabledFloorplans: true } as const;

/**
 * The unit inventory (docs/sync.md#the-unit-inventory): each property's units and spaces with
 * today's status and market rent, read whole on every run, and the spaces' status history kept
 * by the warehouse from one run to the next.
 */
export const units = {
  name: 'units',
  entity: 'unit inventory',
  method: GET_PROPERTY_UNITS,
  tables: UNIT_TABLES,
  derivedTables: UNIT_DERIVED_TABLES,
  backfillBy: 'the whole listing (today only: the source keeps no history)',
  personal: {
    fields: {},
    notPersonal: {
      'units.unit.unitAddress': "the unit's street address: the building's, not a resident's",
      'units.unit.buildingName': "the building's name",
      'units.unit.floorplanName': "the floor plan's name",
    },
  },
  verify: {
    params: { ...UNIT_CALL_PARAMS },
    propertyParam: { name: 'propertyIds', list: true },
    covers: { table: 'unit_inventories', column: 'property_id' },
  },
  settings: ({ positiveInt, streamSettings }: SettingsBuilders) =>
    streamSettings(
      { schedule: '10 2 * * *', chunk: '1y' },
      {
        unitsPerCall: positiveInt
          .default(5000)
          .describe(
            'Units one call may list: properties are asked for together up to this many units (as last ' +
              'synced), so that a reply stays well under source.maxReplyBytes (about 1.5 KB of ' +
              'JSON a unit).',
          ),
      },
    ),
} as const satisfies StreamManifest;
