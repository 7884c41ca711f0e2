import { hostname } from 'node:os';
import type { Config } from '../config/schema.js';
import { callsToday } from '../sync/status.js';
import type { Db } from '../catalog/tables.js';

/** The day's budget as the run history tells it: calls spent today by every process, and what is left. */
export interface BudgetToday {
  spent: number;
  left: number;
  /** Why no run may start, when nothing is left. */
  spentReason: string | null;
}

/** Reads today's spending (a day in the configured time zone) from the warehouse's run history. */
export async function budgetToday(db: Db, config: Pick<Config, 'timeZone'> & { source: Pick<Config['source'], 'dailyCallBudget'> }): Promise<BudgetToday> {
  const budget = config.source.dailyCallBudget;
  const spent = (await callsToday(db, config.timeZone)).get('*') ?? 0;
  const left = Math.max(budget - spent, 0);
  return {
    spent,
    left,
    spentReason: left > 0 ? null : `today's call budget is spent (${spent} of ${budget} calls since midnight ${config.timeZone})`,
  };
}

/** This process, as its runs are recorded (host, pid, since it started). */
const THIS_PROCESS = { host: hostname(), pid: process.pid, since: new Date(Date.now() - Math.ceil(process.uptime() * 1000) - 1000) };

/**
 * Calls spent today by every other process (any run not of this process), from the warehouse:
 * what the source client adds to its own count to share the day's budget for real.
 */
export async function spentByOthersToday(db: Db, config: Pick<Config, 'timeZone'>): Promise<number> {
  return (await callsToday(db, config.timeZone, { except: THIS_PROCESS })).get('*') ?? 0;
}
