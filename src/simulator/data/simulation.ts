/**
 * Runs simulated days over a data set: for each property (in order) that is open, its leases'
 * events, new applications, then its payables. Each (seed, day, property) gets its own random
 * streams, so a day's activity depends only on the seed, the day and the state before it.
 */
import type { EpochDay } from './calendar.js';
import type { SimContext } from './context.js';
import { invoiceDay } from './invoice-life.js';
import { arrivals, computeNextDay, dayInfo, leaseDay } from './lease-life.js';
import { NEVER } from './world.js';
import { Rng, STREAM } from './random.js';

/** Applies one day of business activity to every open property. */
export function runDay(ctx: SimContext, day: EpochDay): void {
  const d = dayInfo(day);
  for (const rt of ctx.runtimes) {
    if (day < rt.openDay) continue;
    const pid = rt.property.PropertyID;
    const leaseRng = new Rng(ctx.seed, day, pid, STREAM.leases);
    // Leases created during the day are appended and get their turn the same day; leases with
    // nothing left to happen drop out of the live list.
    const live = rt.live;
    const plans = rt.livePlans;
    let keep = 0;
    for (let i = 0; i < plans.length; i++) {
      const plan = plans[i];
      if (plan.nextDay <= day) {
        live[i] = leaseDay(ctx, rt, live[i], d, leaseRng);
        plan.nextDay = computeNextDay(live[i], d);
      }
      if (plan.nextDay !== NEVER) {
        if (keep !== i) {
          live[keep] = live[i];
          plans[keep] = plan;
        }
        keep++;
      } else {
        // Nothing more will be charged: the recurring mirrors are no longer needed.
        plan.recurring.length = 0;
      }
    }
    plans.length = keep;
    live.length = keep;
    arrivals(ctx, rt, day, new Rng(ctx.seed, day, pid, STREAM.arrivals));
    invoiceDay(ctx, rt, day, d.dom, new Rng(ctx.seed, day, pid, STREAM.invoices));
  }
}
