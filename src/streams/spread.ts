import { addDays } from '../sync/days.js';

/** A stable small number from a text (FNV-1a), to spread periodic work over days. */
export function stableHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * The day the next periodic full refresh of a scope is due: a period after the last one. After
 * the initial load, each scope's first refresh falls on its own day of the following period
 * (1 to `periodDays` days later), so a portfolio whose properties were all loaded on the same
 * day spreads its refreshes, and the call budget, evenly over the days — and no scope ever waits
 * longer than one period.
 */
export function nextFullRefresh(scope: string, today: string, periodDays: number, first: boolean): string {
  if (!first || periodDays <= 1) return addDays(today, periodDays);
  return addDays(today, 1 + (stableHash(scope) % periodDays));
}

/** True when a scope's periodic full refresh is due (never done, or its day has come). */
export function fullRefreshDue(state: Record<string, unknown> | undefined, today: string): boolean {
  const due = typeof state?.nextDue === 'string' ? state.nextDue : undefined;
  return due === undefined || due <= today;
}
