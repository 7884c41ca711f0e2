import { sql } from 'kysely';
import type { Db } from '../catalog/tables.js';

/**
 * Calls of an account's daily budget booked today (a day in its time zone) by every process: the
 * call gate's `source_budget` row, the one count of the budget (queue/call-gate.ts).
 */
export async function budgetSpentToday(db: Db, account: string, timeZone: string): Promise<number> {
  const { rows } = await sql<{ spent: number }>`
    select spent from source_budget
     where account_id = ${account} and day = (now() at time zone ${timeZone})::date`.execute(db);
  return rows[0]?.spent ?? 0;
}
