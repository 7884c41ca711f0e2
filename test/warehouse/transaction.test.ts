import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inTransaction } from '../../src/warehouse/transaction.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ migrate: false });
  await sql`create table counters (id int primary key, n int not null)`.execute(t.db);
  await sql`insert into counters values (1, 0), (2, 0)`.execute(t.db);
});
afterAll(async () => {
  await t?.drop();
});

it('runs a transaction again when Postgres aborts it for a deadlock, so both writers succeed', async () => {
  let attempts = 0;
  // Two transactions lock the same two rows in opposite orders: Postgres kills one of them.
  const writer = (first: number, second: number) =>
    inTransaction(t.db, async (trx) => {
      attempts += 1;
      await sql`update counters set n = n + 1 where id = ${first}`.execute(trx);
      await sql`select pg_sleep(0.3)`.execute(trx);
      await sql`update counters set n = n + 1 where id = ${second}`.execute(trx);
    });
  await Promise.all([writer(1, 2), writer(2, 1)]);
  expect(attempts).toBe(3);
  const { rows } = await sql<{ id: number; n: number }>`select id, n from counters order by id`.execute(t.db);
  expect(rows).toEqual([
    { id: 1, n: 2 },
    { id: 2, n: 2 },
  ]);
});

it('does not run again a transaction that failed for its own reasons', async () => {
  let attempts = 0;
  await expect(
    inTransaction(t.db, async (trx) => {
      attempts += 1;
      await sql`insert into counters values (1, 0)`.execute(trx);
    }),
  ).rejects.toThrow(/duplicate key/);
  expect(attempts).toBe(1);
});
