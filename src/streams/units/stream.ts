import { defineStream } from '../define.js';
import { idOf } from '../record.js';
import { units } from './manifest.js';
import { normalizePropertyUnits } from './normalize.js';
import { planUnits, planUnitsBackfill } from './plan.js';

export default defineStream(units, {
  plan: planUnits,
  planBackfill: planUnitsBackfill,
  normalize: normalizePropertyUnits,
  recordKey: (record) => idOf(record, 'propertyId'),
});
