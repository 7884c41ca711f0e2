/**
 * Runs simulated days over a data set: for each property (in order) that is open, its leases'
 * events and new applications (once leasing has started), then its payables. Each (seed, day, property) gets
 * its own random
 * streams, so a day's activity depends only on the seed, the day and the state before it.
 */
import type { EpochDay } from './calendar.js';
import type { PropertyRuntime, SimContext } from './context.js';
import type { SimLease } from './model.js';
import { invoiceDay } from './invoice-life.js';
import { arrivals, computeNextDay, dayInfo, leaseDay, type DayInfo } from './lease-life.js';
import { NEVER } from './world.js';
import { Rng, STREAM } from './random.js';

/** Applies one day of business activity to every open property. */
export function runDay(ctx: SimContext, day: EpochDay): void {
  const d = dayInfo(day);
  for (const rt of ctx.runtimes) {
    if (day < rt.openDay) continue;
    const pid = rt.property.PropertyID;
    if (day >= rt.leasingDay) leaseDayAll(ctx, rt, d);
    invoiceDay(ctx, rt, day, d.dom, new Rng(ctx.seed, day, pid, STREAM.invoices));
  }
}

/**
 * A lease nothing more will happen to: its recurring mirrors go, and its lists are copied to
 * exact size (arrays grown by push keep up to half again as many empty slots).
 */
function compactLease(lease: SimLease): void {
  lease._plan!.recurring = [];
  if (lease.arTransactions) lease.arTransactions.arTransaction = lease.arTransactions.arTransaction.slice();
  if (lease.leaseActivities)
    lease.leaseActivities.leaseActivity = lease.leaseActivities.leaseActivity.slice();
  if (lease.scheduledCharges)
    lease.scheduledCharges.scheduledCharge = lease.scheduledCharges.scheduledCharge.slice();
  if (lease.leaseHistory) lease.leaseHistory.leaseInterval = lease.leaseHistory.leaseInterval.slice();
}

/** One day of every live lease of a property, then new applications. */
function leaseDayAll(ctx: SimContext, rt: PropertyRuntime, d: DayInfo): void {
  const day = d.day;
  const pid = rt.property.PropertyID;
  const leaseRng = new Rng(ctx.seed, day, pid, STREAM.leases);
  // Leases created during the day are appended and get their turn the same day; leases with
  // nothing left to happen drop out of the live list.
  const live = rt.live;
  const plans = rt.livePlans;
  const next = rt.liveNext;
  let keep = 0;
  for (let i = 0; i < next.length; i++) {
    let nextDay = next[i];
    if (nextDay <= day) {
      live[i] = leaseDay(ctx, rt, live[i], d, leaseRng);
      nextDay = computeNextDay(live[i], d);
      plans[i].nextDay = nextDay;
    }
    if (nextDay !== NEVER) {
      if (keep !== i) {
        live[keep] = live[i];
        plans[keep] = plans[i];
        next[keep] = nextDay;
      } else if (nextDay !== next[i]) next[i] = nextDay;
      keep++;
    } else {
      compactLease(live[i]);
    }
  }
  plans.length = keep;
  live.length = keep;
  next.length = keep;
  arrivals(ctx, rt, day, new Rng(ctx.seed, day, pid, STREAM.arrivals));
}
