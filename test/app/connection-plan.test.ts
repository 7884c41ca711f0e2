import { describe, expect, it } from 'vitest';
import { connectionPlan, workerNeeds, workerPool } from '../../src/app/connection-plan.js';

describe('connectionPlan', () => {
  it('gives one account a connection per lane, as before', () => {
    expect(connectionPlan(30, [5], 4)).toEqual({ accountsAtOnce: 1, poolSize: 7 });
  });

  it('runs as many accounts at once as their locks and lanes fit, never past the limit', () => {
    const plan = connectionPlan(30, Array(80).fill(5), 4);
    expect(plan).toEqual({ accountsAtOnce: 3, poolSize: 17 });
    expect(plan.accountsAtOnce * 4 + plan.poolSize).toBeLessThanOrEqual(30);
    for (const max of [8, 12, 16, 30, 100]) {
      const { accountsAtOnce, poolSize } = connectionPlan(max, Array(20).fill(3), 4);
      expect(accountsAtOnce).toBeGreaterThanOrEqual(1);
      expect(accountsAtOnce * 4 + poolSize).toBeLessThanOrEqual(max);
    }
  });

  it('runs one account at a time when even one barely fits', () => {
    expect(connectionPlan(8, [5, 5], 4)).toEqual({ accountsAtOnce: 1, poolSize: 4 });
  });
});

describe('workerPool', () => {
  it("gives a worker's pool what its jobs' locks and the queue leave, within the limit", () => {
    expect(workerPool(30, 2)).toBe(10);
    expect(workerPool(30, 6)).toBe(14);
    for (const concurrency of [1, 2, 4, 8]) {
      const pool = workerPool(30, concurrency)!;
      expect(pool).toBeGreaterThanOrEqual(concurrency + 2);
      expect(pool + 2 * concurrency + 4).toBeLessThanOrEqual(30);
    }
  });

  it('refuses a concurrency whose locks and queue leave no room', () => {
    expect(workerPool(30, 9)).toBeUndefined();
    expect(workerNeeds(9)).toBe(33);
    expect(workerPool(33, 9)).toBe(11);
  });
});
