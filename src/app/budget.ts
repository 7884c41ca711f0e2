import { hostname } from 'node:os';
import type { Account } from '../config/schema.js';
import { callsToday } from '../sync/status.js';
import type { Db } from '../catalog/tables.js';

/** What budgeting reads of an account: its id, time zone and daily call budget. */
type BudgetedAccount = Pick<Account, 'id' | 'timeZone'> & {
  source: Pick<Account['source'], 'dailyCallBudget'>;
};

/** An account's budget as the run history tells it: calls spent today by every process, and what is left. */
export interface BudgetToday {
  spent: number;
  left: number;
  /** Why no run of the account may start, when nothing is left. */
  spentReason: string | null;
}

/** Reads an account's spending today (a day in its time zone) from the warehouse's run history. */
export async function budgetToday(db: Db, account: BudgetedAccount): Promise<BudgetToday> {
  const budget = account.source.dailyCallBudget;
  const spent = (await callsToday(db, account.id, account.timeZone)).get('*') ?? 0;
  const left = Math.max(budget - spent, 0);
  return {
    spent,
    left,
    spentReason:
      left > 0
        ? null
        : `today's call budget of account ${account.id} is spent (${spent} of ${budget} calls since midnight ${account.timeZone})`,
  };
}

/** This process, as its runs are recorded (host, pid, since it started). */
const THIS_PROCESS = {
  host: hostname(),
  pid: process.pid,
  since: new Date(Date.now() - Math.ceil(process.uptime() * 1000) - 1000),
};

/**
 * Calls of an account spent today by every other process (any run not of this process), from
 * the warehouse: what its source client adds to its own count to share the day's budget for real.
 */
export async function spentByOthersToday(db: Db, account: Pick<Account, 'id' | 'timeZone'>): Promise<number> {
  return (await callsToday(db, account.id, account.timeZone, { except: THIS_PROCESS })).get('*') ?? 0;
}
