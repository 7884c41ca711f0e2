/**
 * The simulator of the source API: a seeded data set served over HTTP exactly as
 * `shared/docs/source-api.md` describes, with a clock that moves and faults on demand.
 *
 *     const sim = await startSimulator({ username: 'u', password: 'p', seed: 1, today: '2024-06-15' });
 *     // POST `${sim.url}/api/v1/leases` ...; sim.advance(1); sim.stats(); await sim.close();
 */
import { advanceDataset, generateDataset } from './data/index.js';
import { startSimulatorWith, type Simulator, type SimulatorOptions } from './server/simulator.js';

import type { SimDataset } from './data/model.js';

export type { SimDataset } from './data/model.js';
export type { SimStats } from './server/stats.js';
export { FAULT_SPEC_HELP, parseFaultSpec } from './server/faults.js';
export { parseRateLimitSpec } from './server/rate-limit.js';
export {
  SIM_SCALES,
  startSimulatorWith,
  type DatasetEngine,
  type SimScale,
  type Simulator,
  type SimulatorOptions,
} from './server/simulator.js';

/** What `advance(days)` returns: the days covered and the changes by kind. */
export type AdvanceSummary = ReturnType<typeof advanceDataset>;

/** One line on a data set: scale, seed, today and how many records of each kind it holds. */
export function datasetSummary(dataset: SimDataset): string {
  return (
    `${dataset.scale} data set, seed ${dataset.seed}, ` +
    `today ${dataset.today}: ${dataset.properties.length} properties, ` +
    `${dataset.leases.length} leases, ${dataset.invoices.length} invoices`
  );
}

/**
 * Starts a simulator on the seeded data set (`generateDataset({ seed, scale, today })`, or
 * `options.dataset`) and resolves once it accepts requests. See `SimulatorOptions`.
 */
export function startSimulator(options: SimulatorOptions): Promise<Simulator<AdvanceSummary>> {
  return startSimulatorWith(options, { generate: generateDataset, advance: advanceDataset });
}
