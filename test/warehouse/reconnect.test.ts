import { describe, expect, it } from 'vitest';
import { isConnectionLost } from '../../src/warehouse/connection-errors.js';
import { createReconnect } from '../../src/warehouse/reconnect.js';

/** An error as pg reports a terminated session. */
function terminated(): Error {
  return Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
}

const SETTINGS = { maxOutageMs: 300, baseDelayMs: 5, maxDelayMs: 20 };

describe('createReconnect', () => {
  it('runs work again while the connection is lost, and returns what it returns once it is back', async () => {
    const retries: number[] = [];
    const reconnect = createReconnect(SETTINGS, { onRetry: (event) => retries.push(event.attempt) });
    let attempts = 0;
    const value = await reconnect.execute(async () => {
      attempts += 1;
      if (attempts < 4) throw terminated();
      return 'done';
    });
    expect(value).toBe('done');
    expect(retries).toEqual([1, 2, 3]);
  });

  it('does not run again what failed for another reason', async () => {
    const reconnect = createReconnect(SETTINGS);
    let attempts = 0;
    const unique = Object.assign(new Error('duplicate key value violates unique constraint "x"'), {
      code: '23505',
    });
    await expect(
      reconnect.execute(async () => {
        attempts += 1;
        throw unique;
      }),
    ).rejects.toBe(unique);
    expect(attempts).toBe(1);
  });

  it('gives up once the outage has lasted maxOutageMs; other work then fails at its first attempt until one succeeds', async () => {
    const reconnect = createReconnect(SETTINGS);
    let attempts = 0;
    const failing = () => {
      attempts += 1;
      return Promise.reject(terminated());
    };
    await expect(reconnect.execute(failing)).rejects.toThrow('administrator command');
    expect(attempts).toBeGreaterThan(1);
    attempts = 0;
    await expect(reconnect.execute(failing)).rejects.toThrow('administrator command');
    expect(attempts).toBe(1);
    // The database is back: the outage is over for everyone.
    expect(await reconnect.execute(async () => 1)).toBe(1);
    attempts = 0;
    await expect(reconnect.execute(failing)).rejects.toThrow('administrator command');
    expect(attempts).toBeGreaterThan(1);
  });

  it('stops trying once its signal is aborted', async () => {
    const reconnect = createReconnect({ ...SETTINGS, maxOutageMs: 60_000 });
    const stop = new AbortController();
    let attempts = 0;
    await expect(
      reconnect.execute(async () => {
        attempts += 1;
        if (attempts === 2) stop.abort();
        throw terminated();
      }, stop.signal),
    ).rejects.toThrow('administrator command');
    expect(attempts).toBe(2);
  });
});

describe('isConnectionLost', () => {
  it('tells a lost connection from a problem of the statement', () => {
    expect(isConnectionLost(terminated())).toBe(true);
    expect(isConnectionLost(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isConnectionLost(
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      ),
    ).toBe(true);
    expect(
      isConnectionLost(Object.assign(new Error('the database system is starting up'), { code: '57P03' })),
    ).toBe(true);
    expect(
      isConnectionLost(
        Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }),
      ),
    ).toBe(false);
    expect(
      isConnectionLost(Object.assign(new Error('new row violates check constraint "c"'), { code: '23514' })),
    ).toBe(false);
    expect(isConnectionLost('Connection terminated')).toBe(false);
  });
});
