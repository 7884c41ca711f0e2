import type { SettingsBuilders } from '../settings.js';
import type { StreamManifest } from '../types.js';
import { GET_PROPERTIES } from './method.js';
import { PROPERTY_TABLES } from './tables.js';

/** The properties the source lists, read whole on every run: the property dimension. */
export const properties = {
  name: 'properties',
  method: GET_PROPERTIES,
  tables: PROPERTY_TABLES,
  backfillBy: 'the whole listing',
  settings: ({ streamSettings }: SettingsBuilders) => streamSettings({ schedule: '5 2 * * *', chunk: '1y' }, {}),
  load: async () => (await import('./index.js')).propertiesStream,
} as const satisfies StreamManifest;
