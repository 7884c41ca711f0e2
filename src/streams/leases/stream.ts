import { defineStream } from '../define.js';
import { idOf } from '../record.js';
import { leases } from './manifest.js';
import { normalizeLease } from './normalize.js';
import { planLeases, planLeasesBackfill } from './plan.js';

export default defineStream(leases, {
  plan: planLeases,
  planBackfill: planLeasesBackfill,
  normalize: normalizeLease,
  recordKey: (record) => idOf(record),
});
