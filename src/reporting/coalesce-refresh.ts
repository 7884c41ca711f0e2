import { sql } from 'kysely';
import type { Db } from '../catalog/tables.js';

/**
 * Runs that end close together share one refresh of the reporting layer (docs/reporting.md,
 * "Refresh"): each counts its request in reporting_private.reporting_refresh_requests, then the
 * one that gets the advisory lock refreshes, again as long as requests came meanwhile; the others
 * leave at once, their writes in the dirty tables for it.
 */

/** The session-level advisory lock of the one refreshing. */
const LOCK_KEY = sql.raw(`hashtextextended('propsync reporting refresh', 0)`);

/** What a coalesced refresh did: the outcomes of the passes this run made (none: another refreshed for it). */
export interface Coalesced<T> {
  passes: T[];
}

async function requested(db: Db): Promise<string> {
  const { rows } = await sql<{ requested: string }>`
    select requested::text from reporting_private.reporting_refresh_requests`.execute(db);
  return rows[0]?.requested ?? '0';
}

/**
 * Asks for a refresh and runs `refresh` while it holds the lock and requests keep coming; returns
 * at once, with no pass, when another session holds it (that one passes again for this request).
 * `refresh` runs on the pool of `db`; the lock holds one connection of it meanwhile.
 */
export async function refreshCoalesced<T>(db: Db, refresh: () => Promise<T>): Promise<Coalesced<T>> {
  await sql`update reporting_private.reporting_refresh_requests set requested = requested + 1`.execute(db);
  return db.connection().execute(async (session) => {
    const passes: T[] = [];
    for (;;) {
      const { rows } = await sql<{ got: boolean }>`select pg_try_advisory_lock(${LOCK_KEY}) as got`.execute(
        session,
      );
      if (!rows[0].got) return { passes };
      let seen: string;
      try {
        do {
          seen = await requested(session);
          passes.push(await refresh());
        } while ((await requested(session)) !== seen);
      } finally {
        await sql`select pg_advisory_unlock(${LOCK_KEY})`.execute(session);
      }
      // A request between the last look and the unlock found the lock held: it is this one's.
      if ((await requested(session)) === seen) return { passes };
    }
  });
}

/** Runs `work` under the refresh's lock, waiting for it: a rebuild never runs beside a refresh. */
export async function underRefreshLock<T>(db: Db, work: () => Promise<T>): Promise<T> {
  return db.connection().execute(async (session) => {
    await sql`select pg_advisory_lock(${LOCK_KEY})`.execute(session);
    try {
      return await work();
    } finally {
      await sql`select pg_advisory_unlock(${LOCK_KEY})`.execute(session);
    }
  });
}
