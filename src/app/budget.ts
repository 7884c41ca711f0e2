import type { Account } from '../config/schema.js';
import { budgetSpentToday } from '../sync/budget-spent.js';
import type { Db } from '../catalog/tables.js';

/** What budgeting reads of an account: its id, time zone and daily call budget. */
type BudgetedAccount = Pick<Account, 'id' | 'timeZone'> & {
  source: Pick<Account['source'], 'dailyCallBudget'>;
};

/** An account's budget as the call gate booked it: calls spent today by every process, and what is left. */
export interface BudgetToday {
  spent: number;
  left: number;
  /** Why no run of the account may start, when nothing is left. */
  spentReason: string | null;
}

/** Reads an account's spending today (a day in its time zone) from the call gate's booking in the warehouse. */
export async function budgetToday(db: Db, account: BudgetedAccount): Promise<BudgetToday> {
  const budget = account.source.dailyCallBudget;
  const spent = await budgetSpentToday(db, account.id, account.timeZone);
  const left = Math.max(budget - spent, 0);
  return {
    spent,
    left,
    spentReason:
      left > 0
        ? null
        : `today's call budget of account ${account.id} is spent (${spent} of ${budget} calls since ` +
          `midnight ${account.timeZone})`,
  };
}
