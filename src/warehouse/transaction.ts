import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely, Transaction } from 'kysely';

/** SQLSTATEs after which a whole transaction may simply be run again. */
const RETRYABLE_SQLSTATES = new Set([
  '40P01', // deadlock_detected
  '40001', // serialization_failure
]);

/** True for an error that Postgres raised because of a concurrent transaction, not of the data. */
export function isRetryableTransactionError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && RETRYABLE_SQLSTATES.has((error as { code?: string }).code ?? '');
}

/**
 * Runs `work` in a transaction, again (up to `attempts` times, after a short random pause) when
 * Postgres aborts it for a deadlock or a serialization failure with a concurrent transaction:
 * e.g. two property groups' pages updating the same multi-property invoice.
 */
export async function inTransaction<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= attempts || !isRetryableTransactionError(error)) throw error;
      await sleep(20 * attempt + Math.floor(Math.random() * 50));
    }
  }
}
