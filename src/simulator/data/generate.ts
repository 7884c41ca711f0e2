/**
 * `generateDataset`: a whole portfolio's history, made by opening each property on its
 * opening day and simulating every day up to and including "today". Deterministic from
 * (seed, scale, today); no clock, no Math.random.
 */
import { dayFromIso, isoFromDay } from './calendar.js';
import { emptySummary, newRuntime, type PropertyRuntime, type SimContext } from './context.js';
import { generateProperties, generateVendors, SCALE_SETTINGS } from './generate-properties.js';
import type { IsoDay, SimDataset } from './model.js';
import { runDay } from './simulation.js';
import type { IdCounters, Scale, SimWorld } from './world.js';

/** Options of `generateDataset`. */
export interface GenerateOptions {
  /** Any integer; the same seed gives the same data set. */
  seed: number;
  scale: Scale;
  /** The data set's "today" (America/Denver), `YYYY-MM-DD`. */
  today: IsoDay;
}

/** Where each kind of id starts. */
export function initialIds(): IdCounters {
  return {
    lease: 1200001,
    customer: 3400001,
    interval: 5600001,
    application: 7800001,
    scheduledCharge: 21000001,
    arTransaction: 90000001,
    arPayment: 44000001,
    activity: 61000001,
    special: 3001,
    pet: 4001,
    invoice: 2300001,
    invoiceNumber: 100001,
    lineItem: 8700001,
    apPayment: 560001,
    checkNumber: 10001,
  };
}

/** Generates the seeded data set for a scale as of `today`. */
export function generateDataset(options: GenerateOptions): SimDataset {
  const { seed, scale, today } = options;
  if (!Number.isSafeInteger(seed)) throw new Error(`seed must be an integer, got ${seed}`);
  if (!(scale in SCALE_SETTINGS)) throw new Error(`unknown scale ${JSON.stringify(scale)}`);
  const todayDay = dayFromIso(today);
  const vendorCount = 12 + SCALE_SETTINGS[scale].properties * 3;
  const vendors = generateVendors(seed, vendorCount);
  const { properties, world: propertyWorld } = generateProperties(seed, scale, todayDay, vendors);
  const world: SimWorld = { ids: initialIds(), vendors, properties: propertyWorld };
  const dataset: SimDataset = {
    seed,
    scale,
    today: isoFromDay(todayDay),
    properties,
    leases: [],
    invoices: [],
    _world: world,
  };
  const runtimes: PropertyRuntime[] = properties.map((property, index) =>
    newRuntime(property, propertyWorld[index], index),
  );
  const ctx: SimContext = {
    seed,
    dataset,
    world,
    ids: world.ids,
    runtimes,
    byPropertyId: new Map(runtimes.map((rt) => [rt.property.PropertyID, rt])),
    summary: emptySummary(),
  };
  const first = Math.min(...runtimes.map((rt) => rt.openDay));
  for (let day = first; day <= todayDay; day++) runDay(ctx, day);
  return dataset;
}
