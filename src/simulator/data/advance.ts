/**
 * `advanceDataset`: moves a data set's "today" forward day by day, applying each day's
 * business activity (the same simulation that generated its history). Deterministic from the
 * seed, the day and the data set's state; changes the data set in place.
 */
import { dayFromIso, isoFromDay } from './calendar.js';
import { buildContext, type ChangeSummary } from './context.js';
import type { SimDataset } from './model.js';
import { runDay } from './simulation.js';

/** What one advance did: the days covered and counts of changes by kind. */
export interface AdvanceResult {
  /** "today" before and after, `YYYY-MM-DD`. */
  from: string;
  to: string;
  days: number;
  changes: ChangeSummary;
}

/** Advances the data set by `days` whole days (0 does nothing); returns what changed. */
export function advanceDataset(dataset: SimDataset, days: number): AdvanceResult {
  if (!Number.isInteger(days) || days < 0)
    throw new Error(`days must be a non-negative integer, got ${days}`);
  const from = dataset.today;
  const ctx = buildContext(dataset);
  let day = dayFromIso(dataset.today);
  for (let i = 0; i < days; i++) {
    day++;
    dataset.today = isoFromDay(day);
    runDay(ctx, day);
  }
  return { from, to: dataset.today, days, changes: ctx.summary };
}
