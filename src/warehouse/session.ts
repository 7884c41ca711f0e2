import { sql, type Kysely } from 'kysely';

/**
 * Runs `work` on one connection of the pool whose `statement_timeout` is `ms` meanwhile (e.g.
 * the reporting refresh, which may take longer than a page's statements), then resets it to
 * the session's own. A connection lost meanwhile is dropped by the pool, so no setting leaks.
 */
export async function withStatementTimeout<DB, T>(db: Kysely<DB>, ms: number, work: (session: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (session) => {
    await sql`select set_config('statement_timeout', ${String(ms)}, false)`.execute(session);
    try {
      return await work(session);
    } finally {
      await sql`reset statement_timeout`.execute(session).catch(() => {});
    }
  });
}
