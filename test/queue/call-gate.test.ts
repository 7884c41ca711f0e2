/**
 * The call gate (issue 23, part 4): each account's daily budget and each method's pacing are
 * reserved in the warehouse, so that every process sees what the others spend.
 */
import type { Reconnect } from '../../src/warehouse/reconnect.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCallGate, intervalOf } from '../../src/queue/call-gate.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/** Each statement once: these tests cut no connection. */
const once: Reconnect = { execute: (work) => work(0) };

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

const account = (id: string, dailyCallBudget = 1000, reserve = 2) => ({
  id,
  timeZone: 'America/Denver',
  source: { dailyCallBudget, rateLimit: { reserve, minIntervalMs: 0 } },
});

describe('call gate', () => {
  it('refuses a call once the day is reserved, across gates (processes) of the same account, not of another', async () => {
    const first = createCallGate(t.db, account('a', 3), once);
    const second = createCallGate(t.db, account('a', 3), once);
    const other = createCallGate(t.db, account('b', 3), once);
    const waits = await Promise.all([
      first.reserve('m1'),
      second.reserve('m2'),
      first.reserve('m2'),
      second.reserve('m1'),
    ]);
    expect(waits.filter((wait) => wait === null)).toHaveLength(1);
    expect(await first.reserve('m1')).toBeNull();
    expect(await other.reserve('m1')).not.toBeNull();
  });

  it('spaces the starts of every process by the short windows less the reserve', async () => {
    const one = createCallGate(t.db, account('c'), once);
    const two = createCallGate(t.db, account('c'), once);
    expect(await one.reserve('m')).toBe(0);
    await one.observe('m', [{ name: 'second', limit: 5, lengthMs: 1000, remaining: 4, resetMs: 1000 }]);
    const waits = [await two.reserve('m'), await one.reserve('m'), await two.reserve('m')] as number[];
    // 1000 ms / (5 - 2) calls: a start every 334 ms, whichever process asks.
    expect(waits[1]! - waits[0]!).toBeGreaterThan(300);
    expect(waits[2]! - waits[1]!).toBeGreaterThan(300);
    expect(waits[2]!).toBeLessThan(3 * 334 + 200);
  });

  it('holds calls until the reset once a long window is down to the reserve', async () => {
    const gate = createCallGate(t.db, account('d'), once);
    await gate.reserve('m');
    await gate.observe('m', [
      { name: 'hour', limit: 1000, lengthMs: 3_600_000, remaining: 2, resetMs: 5_000 },
    ]);
    expect(await gate.reserve('m')).toBeGreaterThan(5_000);
  });

  it('derives the interval from windows up to ten minutes', () => {
    expect(intervalOf([{ name: 'minute', limit: 150, lengthMs: 60_000, remaining: 10 }], 2, 0)).toBe(406);
    expect(intervalOf([{ name: 'day', limit: 15_000, lengthMs: 86_400_000, remaining: 10 }], 2, 50)).toBe(50);
  });
});
