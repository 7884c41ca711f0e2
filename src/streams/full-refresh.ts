import { addDays } from '../dates/days.js';

/**
 * The day the next periodic full refresh of a scope is due: a period after the last one. After
 * the initial load, the scopes' first refreshes are spread evenly over the following period by
 * their position (`slot`) among the run's `scopes`, so a portfolio whose properties were all
 * loaded on the same day spreads its refreshes, and the call budget, evenly over the days, and
 * no scope waits longer than a period.
 */
export function nextFullRefresh(
  today: string,
  periodDays: number,
  first: boolean,
  slot: number,
  scopes: number,
): string {
  if (!first || periodDays <= 1) return addDays(today, periodDays);
  return addDays(today, Math.max(1, Math.floor(((slot + 1) * periodDays) / Math.max(1, scopes))));
}

/** True when a scope's periodic full refresh is due (never done, or its day has come). */
export function fullRefreshDue(state: Record<string, unknown> | undefined, today: string): boolean {
  const due = typeof state?.nextDue === 'string' ? state.nextDue : undefined;
  return due === undefined || due <= today;
}
