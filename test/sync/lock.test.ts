import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { describeHolder, streamLockKey, withStreamLock, withStreamLocks } from '../../src/sync/lock.js';
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
    expect(streamLockKey('leases')).toBe(streamLockKey('leases'));
    expect(streamLockKey('leases')).not.toBe(streamLockKey('invoices'));
    expect(Number.isInteger(streamLockKey('invoices'))).toBe(true);
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
    expect(await withStreamLock(database.url, 'leases', async () => 'third')).toEqual({ acquired: true, value: 'third' });
  });

  it('releases the lock when fn throws', async () => {
    await expect(withStreamLock(database.url, 'leases', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect((await withStreamLock(database.url, 'leases', async () => 1)).acquired).toBe(true);
  });

  it('aborts the holder when the lock connection is killed', async () => {
    const outcome = await withStreamLock(database.url, 'leases', async (lock) => {
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name like 'propsync lock leases%' and datname = current_database()`);
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
    expect(await withStreamLocks(database.url, ['leases', 'invoices'], async () => 'ran')).toEqual({ acquired: true, value: 'ran' });
  });
});
