/**
 * Runs simulated days over a data set: for each property (in order) that is open, its leases'
 * events, new applications, then its payables. Each (seed, day, property) gets its own random
 * streams, so a day's activity depends only on the seed, the day and the state before it.
 */
import type { EpochDay } from './calendar.js';
import type { SimContext } from './context.js';
import { invoiceDay } from './invoice-life.js';
import { arrivals, dayInfo, leaseDay } from './lease-life.js';
import { Rng, STREAM } from './random.js';
import { leaseHasPending } from './context.js';

/** Applies one day of business activity to every open property. */
export function runDay(ctx: SimContext, day: EpochDay): void {
  const d = dayInfo(day);
  for (const rt of ctx.runtimes) {
    if (day < rt.openDay) continue;
    const pid = rt.property.PropertyID;
    const leaseRng = new Rng(ctx.seed, day, pid, STREAM.leases);
    // Leases created during the day are appended and get their turn the same day.
    for (let i = 0; i < rt.live.length; i++) leaseDay(ctx, rt, rt.live[i], d, leaseRng);
    arrivals(ctx, rt, day, new Rng(ctx.seed, day, pid, STREAM.arrivals));
    let keep = 0;
    const live = rt.live;
    for (let i = 0; i < live.length; i++) if (leaseHasPending(live[i], day + 1)) live[keep++] = live[i];
    live.length = keep;
    invoiceDay(ctx, rt, day, d.dom, new Rng(ctx.seed, day, pid, STREAM.invoices));
  }
}
