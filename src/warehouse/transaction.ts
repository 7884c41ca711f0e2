import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely, type Transaction } from 'kysely';

/** SQLSTATEs after which a whole transaction may simply be run again. */
const RETRYABLE_SQLSTATES = new Set([
  '40P01', // deadlock_detected
  '40001', // serialization_failure
]);

/** True for an error that Postgres raised because of a concurrent transaction, not of the data. */
export function isRetryableTransactionError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    RETRYABLE_SQLSTATES.has((error as { code?: string }).code ?? '')
  );
}

/** Attempts in all of a transaction that Postgres keeps aborting for a concurrent one. */
const ATTEMPTS = 5;

/** How `inTransaction` runs again. */
export interface RetryOptions {
  /**
   * An advisory lock key (two integers) that every attempt after the first takes before its
   * work, so that the transactions that met once run again one at a time, not into each other.
   */
  retriesOneAtATime?: readonly [number, number];
}

/**
 * Runs `work` in a transaction, again (up to `ATTEMPTS` times, after a random pause that grows)
 * when Postgres aborts it for a deadlock or a serialization failure with a concurrent
 * transaction: e.g. two property groups' pages updating the same multi-property invoice, or two
 * properties' pages when leases moved from each to the other.
 */
export async function inTransaction<DB, T>(
  db: Kysely<DB>,
  work: (trx: Transaction<DB>) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const key = options.retriesOneAtATime;
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(async (trx) => {
        if (attempt > 1 && key)
          await sql`select pg_advisory_xact_lock(${key[0]}::int, ${key[1]}::int)`.execute(trx);
        return work(trx);
      });
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryableTransactionError(error)) throw error;
      await sleep(Math.floor((0.5 + Math.random()) * 20 * 2 ** attempt));
    }
  }
}
