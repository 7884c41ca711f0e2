import { setTimeout as sleep } from 'node:timers/promises';
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

it('runs the attempts after a deadlock under the lock it is given, the first attempts without it', async () => {
  const key = [0x70737972, 42] as const;
  const held: boolean[] = [];
  const writer = (first: number, second: number) =>
    inTransaction(
      t.db,
      async (trx) => {
        const { rows } = await sql<{ held: boolean }>`
          select exists (select 1 from pg_locks where locktype = 'advisory' and granted and pid = pg_backend_pid()
            and classid = (${key[0]}::int)::oid and objid = (${key[1]}::int)::oid and objsubid = 2) as held`.execute(
          trx,
        );
        held.push(rows[0].held);
        await sql`update counters set n = n + 1 where id = ${first}`.execute(trx);
        await sql`select pg_sleep(0.3)`.execute(trx);
        await sql`update counters set n = n + 1 where id = ${second}`.execute(trx);
      },
      { retriesOneAtATime: key },
    );
  await Promise.all([writer(1, 2), writer(2, 1)]);
  expect(held).toEqual([false, false, true]);
});

it('keeps an attempt after a deadlock waiting while another retry holds the lock, then runs it', async () => {
  const key = [0x70737972, 43] as const;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let taken!: () => void;
  const isTaken = new Promise<void>((resolve) => (taken = resolve));
  // Another transaction that is running again holds the lock.
  const other = t.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${key[0]}::int, ${key[1]}::int)`.execute(trx);
    taken();
    await released;
  });
  await isTaken;
  let attempts = 0;
  const retried = inTransaction(
    t.db,
    async () => {
      attempts += 1;
      if (attempts === 1) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      return 'loaded';
    },
    { retriesOneAtATime: key },
  );
  await sleep(600);
  expect(attempts, 'the second attempt waits for the lock').toBe(1);
  release();
  await other;
  expect(await retried).toBe('loaded');
  expect(attempts).toBe(2);
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
