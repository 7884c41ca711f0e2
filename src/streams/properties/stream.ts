import { defineStream } from '../define.js';
import { idOf } from '../record.js';
import { properties } from './manifest.js';
import { normalizeProperty } from './normalize.js';
import { planProperties, planPropertiesBackfill } from './plan.js';

export default defineStream(properties, {
  plan: planProperties,
  planBackfill: planPropertiesBackfill,
  normalize: normalizeProperty,
  recordKey: (record) => idOf(record, 'PropertyID'),
});
