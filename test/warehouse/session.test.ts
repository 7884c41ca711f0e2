import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Warehouse } from '../../src/catalog/tables.js';
import { connect } from '../../src/warehouse/db.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
let db: Db;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
  db = connect<Warehouse>(database.url, {
    maxConnections: 1,
    timeouts: { statementTimeoutMs: 1_000, lockTimeoutMs: 500, idleInTransactionTimeoutMs: 2_000 },
  });
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
    expect([
      await setting('statement_timeout'),
      await setting('lock_timeout'),
      await setting('idle_in_transaction_session_timeout'),
    ]).toEqual(['1s', '500ms', '2s']);
    await expect(sql`select pg_sleep(1.5)`.execute(db)).rejects.toThrow(/statement timeout/);
  });
});
