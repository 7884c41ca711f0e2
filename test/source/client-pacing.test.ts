import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPages, callsByStatus, clientFor, sourceConfig, startSim } from './support.js';
import { GET_LEASES } from '../../src/streams/leases/manifest.js';

let sim: Awaited<ReturnType<typeof startSim>>;
beforeAll(async () => {
  sim = await startSim({ rateLimit: '20/2s' });
});
afterAll(async () => {
  await sim.close();
});

describe('pacing against tight limits', () => {
  it(
    'makes 120 calls from 4 parallel pagers under 20 calls per 2 s without a single 429',
    { timeout: 180_000 },
    async () => {
      const properties = sim.dataset.properties.map((p) => String(p.PropertyID));
      const { client, events } = clientFor(sourceConfig(sim.url, { pageSize: 5, concurrency: 4 }));
      const target = 120;
      let started = 0;
      const startedAt = Date.now();
      const worker = async (index: number) => {
        while (started < target) {
          started += 1;
          // One call: the first page of a request, then the pager is left.
          for await (const page of client.pages({
            method: GET_LEASES,
            params: { propertyId: properties[(started + index) % properties.length] },
          })) {
            expect(page.records.length).toBeGreaterThan(0);
            break;
          }
        }
      };
      await Promise.all([0, 1, 2, 3].map(worker));
      const seconds = (Date.now() - startedAt) / 1000;
      await client.close();
      const byStatus = callsByStatus(sim);
      console.info(
        `pacing: ${events.length} calls in ${seconds.toFixed(1)} s (${(events.length / seconds).toFixed(2)} calls/s), by status ${JSON.stringify(byStatus)}`,
      );
      expect(events).toHaveLength(target);
      expect(byStatus).toEqual({ 200: target });
      expect(client.stats().throttled).toBe(0);
      expect(events.every((e) => e.attempt === 1 && !e.throttled)).toBe(true);
      // 20 per 2 s cannot go faster than this; pacing aims at 18 per window (reserve 2) and must
      // not crawl (the bound leaves room for a loaded machine).
      expect(seconds).toBeGreaterThan((target / 20 - 1) * 2);
      expect(seconds).toBeLessThan((target / 10) * 2);
      // The tightest window's remaining calls were reported on every call, and never below the reserve.
      expect(events.every((e) => e.remaining !== undefined && e.remaining >= 0)).toBe(true);
    },
  );

  it('recovers from a 429 burst by pausing for Retry-After', async () => {
    sim.setRateLimit('off');
    sim.setFaults('429x3:retry=1');
    const { client, events } = clientFor(
      sourceConfig(sim.url, {
        pageSize: 50,
        retry: { maxAttempts: 6, baseDelayMs: 10, maxDelayMs: 50, maxTotalWaitMs: 10_000 },
      }),
    );
    const startedAt = Date.now();
    const pages = await allPages(client, {
      method: GET_LEASES,
      params: { propertyId: sim.dataset.properties[0].PropertyID },
    });
    await client.close();
    sim.setFaults(undefined);
    expect(pages.length).toBeGreaterThan(0);
    expect(events.filter((e) => e.throttled)).toHaveLength(3);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(3_000);
  });
});
