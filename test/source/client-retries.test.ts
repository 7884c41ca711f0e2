import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SourceRequest } from '../../src/source/types.js';
import { allPages, callsByStatus, clientFor, sourceConfig, startSim } from './support.js';
import { GET_LEASES } from '../../src/streams/leases/manifest.js';

let sim: Awaited<ReturnType<typeof startSim>>;
let request: SourceRequest;
let clean: { json: unknown[]; xml: unknown[] };

beforeAll(async () => {
  sim = await startSim();
  request = {
    method: GET_LEASES,
    params: { propertyId: sim.dataset.properties[0].PropertyID, leaseStatusTypeIds: [4, 5, 6] },
  };
  clean = { json: [], xml: [] };
  for (const format of ['json', 'xml'] as const) {
    const { client } = clientFor(sourceConfig(sim.url, { format, pageSize: 20 }));
    clean[format] = (await allPages(client, request)).flatMap((page) => page.records);
    await client.close();
  }
});
beforeEach(() => {
  sim.setFaults(undefined);
});
afterAll(async () => {
  await sim.close();
});

/** Each fault, injected on the next call(s): the page still comes, after visible retries. */
const FAULTS = [
  { spec: '500x2', failed: [500, 500] },
  { spec: '502x1', failed: [502] },
  { spec: '503x1', failed: [503] },
  { spec: '429x1:retry=1', failed: [429] },
  { spec: 'slowx1:ms=3000', failed: [undefined] },
  { spec: 'resetx1', failed: [200] },
  { spec: 'truncatex1', failed: [200] },
  { spec: 'malformedx1', failed: [200] },
] as const;

describe('retries under each injected fault', () => {
  for (const fault of FAULTS) {
    for (const format of ['json', 'xml'] as const) {
      it(`${fault.spec} (${format}): succeeds, attempts visible`, async () => {
        sim.setFaults(fault.spec);
        const { client, events } = clientFor(
          sourceConfig(sim.url, { format, pageSize: 20, requestTimeoutMs: 500 }),
        );
        const started = Date.now();
        const pages = await allPages(client, request);
        const elapsed = Date.now() - started;
        await client.close();
        expect(pages.flatMap((page) => page.records)).toEqual(clean[format]);
        const retries = fault.failed.length;
        expect(pages[0].calls).toBe(retries + 1);
        expect(pages[0].retries).toBe(retries);
        expect(pages[0].throttled).toBe(fault.spec.startsWith('429') ? 1 : 0);
        const firstPage = events.filter((e) => e.page === 1);
        expect(firstPage.map((e) => e.attempt)).toEqual(Array.from({ length: retries + 1 }, (_, i) => i + 1));
        expect(firstPage.map((e) => e.status)).toEqual([...fault.failed, 200]);
        expect(firstPage.map((e) => e.willRetry)).toEqual([...fault.failed.map(() => true), false]);
        for (const failedAttempt of firstPage.slice(0, -1)) expect(failedAttempt.error).toBeTruthy();
        expect(firstPage.at(-1)!.error).toBeUndefined();
        expect(client.stats().retries).toBe(retries);
        if (fault.spec.startsWith('429')) {
          // Retry-After: 1 was honoured.
          expect(elapsed).toBeGreaterThanOrEqual(1_000);
          expect(firstPage[0].throttled).toBe(true);
        }
      });
    }
  }

  it('survives a mix of faults at random over a whole read', async () => {
    sim.setFaults(
      '500@0.15,503@0.05,reset@0.05,truncate@0.05,malformed@0.05,slow@0.03:ms=3000,429@0.03:retry=0:burst=1,seed=5',
    );
    const { client, events } = clientFor(
      sourceConfig(sim.url, {
        pageSize: 10,
        requestTimeoutMs: 500,
        retry: { maxAttempts: 8, baseDelayMs: 10, maxDelayMs: 100, maxTotalWaitMs: 10_000 },
      }),
    );
    const pages = await allPages(client, request);
    await client.close();
    expect(pages.flatMap((page) => page.records)).toEqual(clean.json);
    const failed = events.filter((e) => e.error !== undefined);
    expect(failed.length).toBeGreaterThan(3);
    expect(failed.every((e) => e.willRetry)).toBe(true);
    expect(pages.reduce((sum, page) => sum + page.retries, 0)).toBe(failed.length);
    expect(Object.keys(sim.stats().faults).length).toBeGreaterThan(2);
  });

  it('never retries 401 or 400', async () => {
    for (const config of [
      sourceConfig(sim.url, { password: 'not-the-password' }),
      sourceConfig(sim.url, { pageSize: 1 }),
    ]) {
      const before = callsByStatus(sim);
      const { client, events } = clientFor(config);
      await expect(allPages(client, request)).rejects.toThrow();
      await client.close();
      const after = callsByStatus(sim);
      const served =
        Object.values(after).reduce((a, b) => a + b, 0) - Object.values(before).reduce((a, b) => a + b, 0);
      expect(served).toBe(1);
      expect(events).toHaveLength(1);
      expect(events[0].willRetry).toBe(false);
    }
  });
});
