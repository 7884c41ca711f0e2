import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Warehouse } from '../../src/catalog/tables.js';
import { connect } from '../../src/warehouse/db.js';
import { withStatementTimeout } from '../../src/warehouse/session.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
let db: Db;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
  // One connection: the refresh's session and the next statement share it.
  db = connect<Warehouse>(database.url, { maxConnections: 1, timeouts: { statementTimeoutMs: 1_000, lockTimeoutMs: 500, idleInTransactionTimeoutMs: 2_000 } });
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

async function setting(name: string, on: Db = db): Promise<string> {
  const { rows } = await sql<{ value: string }>`select current_setting(${name}) as value`.execute(on);
  return rows[0].value;
}

describe('the sessions of the warehouse pool', () => {
  it('carry the configured statement, lock and idle-in-transaction timeouts', async () => {
    expect([await setting('statement_timeout'), await setting('lock_timeout'), await setting('idle_in_transaction_session_timeout')]).toEqual(['1s', '500ms', '2s']);
    await expect(sql`select pg_sleep(1.5)`.execute(db)).rejects.toThrow(/statement timeout/);
  });

  it('give the refreshing session a statement budget of its own, then their own back', async () => {
    const inside = await withStatementTimeout(db, 3_000, async (session) => {
      await sql`select pg_sleep(1.2)`.execute(session);
      return setting('statement_timeout', session);
    });
    expect(inside).toBe('3s');
    expect(await setting('statement_timeout')).toBe('1s');
    await expect(withStatementTimeout(db, 100, (session) => sql`select pg_sleep(0.5)`.execute(session))).rejects.toThrow(/statement timeout/);
    expect(await setting('statement_timeout')).toBe('1s');
  });
});
