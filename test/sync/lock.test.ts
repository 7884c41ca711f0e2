import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import {
  lockTag,
  describeHolder,
  LOCK_NAMESPACE,
  LockNotHeldError,
  lockKey,
  withStreamLock,
  withStreamLocks,
  type HeldLock,
} from '../../src/sync/lock.js';
import type { Logger } from '../../src/log/logger.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(async () => {
  await database?.drop();
});

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('withStreamLock', () => {
  it('gives stable, distinct keys per stream', () => {
    expect(lockKey('leases')).toBe(lockKey('leases'));
    expect(lockKey('leases')).not.toBe(lockKey('invoices'));
    expect(Number.isInteger(lockKey('invoices'))).toBe(true);
  });

  it('runs fn under the lock and lets a second holder of the same stream skip, naming the holder', async () => {
    const release = deferred();
    const entered = deferred();
    const first = withStreamLock(database.url, 'leases', async () => {
      entered.resolve();
      await release.promise;
      return 'first';
    });
    await entered.promise;
    const second = await withStreamLock(database.url, 'leases', async () => 'second');
    expect(second.acquired).toBe(false);
    if (second.acquired) return;
    expect(second.holder?.applicationName).toContain(`pid=${process.pid}`);
    expect(describeHolder('leases', second.holder)).toContain(`pid=${process.pid}`);
    // another stream is not blocked
    const other = await withStreamLock(database.url, 'invoices', async () => 'other');
    expect(other).toEqual({ acquired: true, value: 'other' });
    release.resolve();
    expect(await first).toEqual({ acquired: true, value: 'first' });
    // released: the next one gets it
    expect(await withStreamLock(database.url, 'leases', async () => 'third')).toEqual({
      acquired: true,
      value: 'third',
    });
  });

  it('in share mode, is held by many sharers at once and by no exclusive holder beside them', async () => {
    const release = deferred();
    const entered = [deferred(), deferred()];
    const sharers = entered.map((gate) =>
      withStreamLock(
        database.url,
        'north/leases',
        async () => {
          gate.resolve();
          await release.promise;
          return 'shared';
        },
        { shared: true },
      ),
    );
    await Promise.all(entered.map((gate) => gate.promise));
    const exclusive = await withStreamLock(database.url, 'north/leases', async () => 'sync');
    expect(exclusive.acquired).toBe(false);
    if (!exclusive.acquired)
      expect(describeHolder('north/leases', exclusive.holder)).toMatch(
        /^stream north\/leases is being synced by another propsync process \(pid=\d+/,
      );
    release.resolve();
    expect(await Promise.all(sharers)).toEqual([
      { acquired: true, value: 'shared' },
      { acquired: true, value: 'shared' },
    ]);
    // Released by every sharer: the exclusive holder gets it, and then no sharer does.
    const again = deferred();
    const inside = deferred();
    const held = withStreamLock(database.url, 'north/leases', async () => {
      inside.resolve();
      await again.promise;
      return 'sync';
    });
    await inside.promise;
    expect(
      (await withStreamLock(database.url, 'north/leases', async () => 'shared', { shared: true })).acquired,
    ).toBe(false);
    again.resolve();
    expect(await held).toEqual({ acquired: true, value: 'sync' });
  });

  it('in share mode, verifies inside a transaction that this session holds it', async () => {
    const db = database.db;
    const outcome = await withStreamLock(
      database.url,
      'south/invoices',
      async (lock: HeldLock) => {
        await db.transaction().execute((trx) => lock.verify(trx, 'south/invoices'));
        return 'verified';
      },
      { shared: true },
    );
    expect(outcome).toEqual({ acquired: true, value: 'verified' });
  });

  it('releases the lock when fn throws', async () => {
    await expect(
      withStreamLock(database.url, 'leases', async () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    expect((await withStreamLock(database.url, 'leases', async () => 1)).acquired).toBe(true);
  });

  it('aborts the holder when the lock connection is killed', async () => {
    const outcome = await withStreamLock(database.url, 'leases', async (lock) => {
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where application_name like 'propsync lock ${lockTag('leases')}%' and datname = current_database()`,
      );
      await admin.end();
      await new Promise<void>((resolve) => {
        if (lock.signal.aborted) resolve();
        else lock.signal.addEventListener('abort', () => resolve());
      });
      return lock.signal.aborted;
    });
    expect(outcome).toEqual({ acquired: true, value: true });
  });

  it('takes several streams at once, or none when one is held', async () => {
    const release = deferred();
    const entered = deferred();
    const holder = withStreamLock(database.url, 'invoices', async () => {
      entered.resolve();
      await release.promise;
    });
    await entered.promise;
    const both = await withStreamLocks(database.url, ['leases', 'invoices'], async () => 'ran');
    expect(both.acquired).toBe(false);
    if (!both.acquired) expect(both.stream).toBe('invoices');
    // leases was released again when invoices could not be taken
    expect((await withStreamLock(database.url, 'leases', async () => 1)).acquired).toBe(true);
    release.resolve();
    await holder;
    expect(await withStreamLocks(database.url, ['leases', 'invoices'], async () => 'ran')).toEqual({
      acquired: true,
      value: 'ran',
    });
  });
});

/** Terminates this process's lock connections of `stream` (as a cut network or a failover would). */
async function cutLockConnection(stream: string): Promise<void> {
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(
    `select pg_terminate_backend(pid) from pg_stat_activity where application_name like $1 and datname = current_database()`,
    [`propsync lock ${lockTag(stream)} pid=${process.pid} %`],
  );
  await admin.end();
}

/** Records the log lines of a lock. */
function recordingLogger() {
  const lines: { event?: unknown; msg: string }[] = [];
  const log = ((obj: object, msg: string) => {
    lines.push({ ...(obj as { event?: unknown }), msg });
  }) as Logger['info'];
  return { lines, logger: { info: log, warn: log } };
}

/** Resolves once `check` is true (polled every 20 ms). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

const RECONNECT = { maxOutageMs: 10_000, baseDelayMs: 20, maxDelayMs: 200 };

describe('a lock whose connection is lost', () => {
  it('is taken again on a new connection, which a transaction then finds holding it', async () => {
    const { lines, logger } = recordingLogger();
    const outcome = await withStreamLock(
      database.url,
      'leases',
      async (lock: HeldLock) => {
        await lock.verify(database.db, 'leases');
        await cutLockConnection('leases');
        await until(() => lines.some((line) => line.event === 'stream_lock_retaken'));
        await database.db.transaction().execute((trx) => lock.verify(trx, 'leases'));
        return lock.signal.aborted;
      },
      { reconnect: RECONNECT, logger },
    );
    expect(outcome).toEqual({ acquired: true, value: false });
    expect(lines.map((line) => line.event)).toEqual(['stream_lock_lost', 'stream_lock_retaken']);
    // Released at the end: another holder gets it.
    expect((await withStreamLock(database.url, 'leases', async () => 1)).acquired).toBe(true);
  });

  it('stops its holder, saying who took it, when another process took it meanwhile', async () => {
    const other = new pg.Client({
      connectionString: database.url,
      application_name: `propsync lock ${lockTag('leases')} pid=4242 host=elsewhere`,
    });
    await other.connect();
    try {
      const outcome = await withStreamLock(
        database.url,
        'leases',
        async (lock) => {
          // The other process waits for the lock; it gets it the moment this connection dies.
          const waiting = other.query('select pg_advisory_lock($1::int, $2::int)', [
            LOCK_NAMESPACE,
            lockKey('leases'),
          ]);
          for (let waits = false; !waits;) {
            const { rows } = await sql<{
              n: number;
            }>`select count(*)::int as n from pg_stat_activity where application_name like '%pid=4242 host=elsewhere' and wait_event_type = 'Lock'`.execute(
              database.db,
            );
            waits = rows[0].n === 1;
          }
          await cutLockConnection('leases');
          await waiting;
          await until(() => lock.signal.aborted);
          await expect(
            database.db.transaction().execute((trx) => lock.verify(trx, 'leases')),
          ).rejects.toThrow(LockNotHeldError);
          return (lock.signal.reason as Error).message;
        },
        { reconnect: RECONNECT },
      );
      expect(outcome.acquired).toBe(true);
      if (outcome.acquired)
        expect(outcome.value).toMatch(/stream leases .*another propsync process \(pid=4242 host=elsewhere\)/);
    } finally {
      await other.end();
    }
  });
});
