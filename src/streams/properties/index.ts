import { idOf } from '../record.js';
import type { StreamDefinition } from '../types.js';
import { properties } from './manifest.js';
import { normalizeProperty } from './normalize.js';
import { planProperties, planPropertiesBackfill } from './plan.js';

/** The properties the source lists, read whole on every run: the property dimension. */
export const propertiesStream: StreamDefinition = {
  name: properties.name,
  method: properties.method,
  entity: 'property',
  tables: properties.tables,
  plan: planProperties,
  planBackfill: planPropertiesBackfill,
  normalize: (record) => normalizeProperty(record),
  recordKey: (record) => idOf(record, 'PropertyID'),
};
