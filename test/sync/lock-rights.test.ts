/**
 * Issue 35 item 3: only propsync's role may take advisory locks in its warehouse (migration 0020),
 * so another login cannot stall an account's sync; and a holder that is not propsync is named as
 * what it is. The lock connection's application name, which any login sees, names no account.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { describeHolder, LOCK_NAMESPACE, lockKey, lockName, withStreamLock } from '../../src/sync/lock.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const suffix = randomBytes(4).toString('hex');
const intruder = `propsync_test_intruder_${suffix}`;
const password = `pw-${randomBytes(8).toString('hex')}`;

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    await admin.query(`create role ${intruder} login password '${password}'`);
  } finally {
    await admin.end();
  }
});

afterAll(async () => {
  await database?.drop();
  const server = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await server.connect();
  try {
    await server.query(`drop role if exists ${intruder}`);
  } finally {
    await server.end();
  }
});

/** A session of the test database as `user`, named `application`. */
async function sessionAs(user: string | undefined, application: string): Promise<pg.Client> {
  const url = new URL(database.url);
  if (user) {
    url.username = user;
    url.password = password;
  }
  const client = new pg.Client({ connectionString: url.toString(), application_name: application });
  await client.connect();
  return client;
}

const SOUTH_LEASES = lockName('south', 'leases');

describe('advisory locks in the warehouse', () => {
  it('another login may take none of them, in any form', async () => {
    const client = await sessionAs(intruder, 'psql');
    try {
      const key = lockKey(SOUTH_LEASES);
      for (const fn of [
        'pg_advisory_lock',
        'pg_try_advisory_lock',
        'pg_advisory_lock_shared',
        'pg_try_advisory_lock_shared',
      ]) {
        await expect(
          client.query(`select ${fn}($1::int, $2::int)`, [LOCK_NAMESPACE, key]),
        ).rejects.toMatchObject({ code: '42501' });
        await expect(client.query(`select ${fn}($1::bigint)`, [key])).rejects.toMatchObject({
          code: '42501',
        });
      }
      await client.query('begin');
      await expect(
        client.query('select pg_advisory_xact_lock($1::int, $2::int)', [LOCK_NAMESPACE, key]),
      ).rejects.toMatchObject({ code: '42501' });
      await client.query('rollback');
    } finally {
      await client.end();
    }
    // propsync's role still takes the lock.
    expect(await withStreamLock(database.url, SOUTH_LEASES, async () => 'synced')).toEqual({
      acquired: true,
      value: 'synced',
    });
  });

  it('a holder that is not propsync is named by its role, application and backend', async () => {
    // A session of propsync's own role (an administrator's psql), not a propsync process.
    const psql = await sessionAs(undefined, 'psql');
    try {
      const { rows } = await psql.query<{ pid: number }>(
        'select pg_advisory_lock($1::int, $2::int), pg_backend_pid() as pid',
        [LOCK_NAMESPACE, lockKey(SOUTH_LEASES)],
      );
      const outcome = await withStreamLock(database.url, SOUTH_LEASES, async () => 'synced');
      expect(outcome.acquired).toBe(false);
      if (outcome.acquired) return;
      const said = describeHolder(SOUTH_LEASES, outcome.holder);
      expect(said).toContain(
        `the lock of stream south/leases is held by a session that is not propsync (role ${new URL(database.url).username}, application 'psql', backend ${rows[0]!.pid})`,
      );
      expect(said).not.toContain('another propsync process');
    } finally {
      await psql.end();
    }
  });

  it("a lock connection's application name, which every login sees, names no account or stream", async () => {
    const seen = await withStreamLock(database.url, SOUTH_LEASES, async () => {
      const client = await sessionAs(intruder, 'psql');
      try {
        const { rows } = await client.query<{ application_name: string }>(
          `select application_name from pg_stat_activity where datname = current_database() and application_name like 'propsync lock %'`,
        );
        return rows.map((row) => row.application_name);
      } finally {
        await client.end();
      }
    });
    expect(seen.acquired && seen.value).toHaveLength(1);
    if (seen.acquired) {
      expect(seen.value[0]).toMatch(/^propsync lock [0-9a-f]{8} pid=\d+ host=/);
      expect(seen.value[0]).not.toMatch(/south|leases/);
    }
  });
});
