/**
 * The client on the API-key gateway, over real HTTP against the simulator: the same pages, errors, pacing
 * and secrecy as Basic auth.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuthenticationError, SourceError } from '../../src/source/errors.js';
import { createSourceClient } from '../../src/source/client.js';
import type { SourceRequest } from '../../src/source/types.js';
import { GET_INVOICES } from '../../src/streams/invoices/manifest.js';
import { GET_LEASES } from '../../src/streams/leases/manifest.js';
import { GET_PROPERTIES } from '../../src/streams/properties/manifest.js';
import {
  allPages,
  API_KEY,
  callsByStatus,
  captureLogger,
  clientFor,
  errorTexts,
  FAIL_FAST,
  gatewaySettings,
  ORG,
  readUnderFaults,
  rejection,
  sourceConfig,
  startSim,
  startTattler,
  ZONE,
} from './support.js';

let sim: Awaited<ReturnType<typeof startSim>>;
let leases: SourceRequest;
beforeAll(async () => {
  sim = await startSim({ apiKey: API_KEY, org: ORG });
  leases = {
    method: GET_LEASES,
    params: {
      propertyId: String(sim.dataset.properties[0].PropertyID),
      leaseStatusTypeIds: [1, 2, 3, 4, 5, 6],
    },
  };
});
beforeEach(() => {
  sim.setFaults(undefined);
  sim.setRateLimit('off');
});
afterAll(async () => {
  await sim.close();
});

const invoices: SourceRequest = {
  method: GET_INVOICES,
  params: { includeExported: true, customerRefunds: true },
};
const properties: SourceRequest = { method: GET_PROPERTIES, params: {} };

/** Every record of a request, read in pages by a client of these settings. */
async function recordsOf(
  settings: Parameters<typeof clientFor>[0],
  request: SourceRequest,
): Promise<{ records: unknown[]; pages: number; calls: number }> {
  const { client, events } = clientFor(settings);
  const pages = await allPages(client, request);
  await client.close();
  return { records: pages.flatMap((page) => page.records), pages: pages.length, calls: events.length };
}

describe('the API-key gateway', () => {
  it('reads the same leases, invoices and properties, page by page, as Basic auth', async () => {
    for (const request of [leases, invoices, properties]) {
      const basic = await recordsOf(sourceConfig(sim.url), request);
      const gateway = await recordsOf(gatewaySettings(sim.url), request);
      expect(gateway.records.length).toBeGreaterThan(0);
      expect(gateway).toEqual(basic);
    }
    // Several pages were read: the gateway pages as the Basic path does.
    expect((await recordsOf(gatewaySettings(sim.url, { pageSize: 5 }), leases)).pages).toBeGreaterThan(1);
  });

  it('fails a wrong key or a wrong org with an AuthenticationError, once, without retrying', async () => {
    for (const auth of [
      { type: 'apikey', org: ORG, apiKey: `${API_KEY}-wrong` },
      { type: 'apikey', org: 'someone-else', apiKey: API_KEY },
    ] as const) {
      const before = sim.stats().total;
      const { client, events } = clientFor(gatewaySettings(sim.url, { auth }));
      const error = await rejection(allPages(client, leases));
      await client.close();
      expect(error).toBeInstanceOf(AuthenticationError);
      expect((error as SourceError).status).toBe(401);
      expect((error as SourceError).code).toBe(301);
      expect(error.message).toContain(`check the API key and the org ('${auth.org}')`);
      expect(events).toHaveLength(1);
      expect(sim.stats().total - before).toBe(1);
    }
  });

  it('refuses format xml with an API key when the client is made, saying why', () => {
    expect(() =>
      createSourceClient({ settings: gatewaySettings(sim.url, { format: 'xml' }), timeZone: ZONE }),
    ).toThrow(
      'source settings: format xml cannot be used with an API key: the gateway takes the envelope as a JSON body and answers in JSON; use format json',
    );
  });

  it('reads the same rate-limit headers: remaining counts down on every call', async () => {
    sim.setRateLimit('15000/day;1000/hour');
    const { client, events } = clientFor(gatewaySettings(sim.url, { pageSize: 10 }));
    const pages = await allPages(client, leases);
    await client.close();
    expect(pages.length).toBeGreaterThan(2);
    expect(events.map((event) => event.remaining)).toEqual(pages.map((_, i) => 999 - i));
  });

  it(
    'stays under tight limits without a 429, and pauses for Retry-After after one',
    { timeout: 60_000 },
    async () => {
      sim.setRateLimit('8/1s');
      const before = callsByStatus(sim);
      const { client, events } = clientFor(gatewaySettings(sim.url, { pageSize: 5, concurrency: 2 }));
      const other = {
        method: GET_LEASES,
        params: { propertyId: String(sim.dataset.properties[1].PropertyID) },
      };
      await Promise.all([allPages(client, leases), allPages(client, other)]);
      expect(events.length).toBeGreaterThan(16);
      expect(events.every((event) => !event.throttled)).toBe(true);
      expect((callsByStatus(sim)['429'] ?? 0) - (before['429'] ?? 0)).toBe(0);

      sim.setFaults('429x1:retry=1');
      const startedAt = Date.now();
      const pages = await allPages(client, properties);
      await client.close();
      expect(pages.length).toBeGreaterThan(0);
      expect(events.filter((event) => event.throttled)).toHaveLength(1);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(950);
    },
  );
});

describe('the API key', () => {
  it('never shows in a log line or an error, whatever the reply', async () => {
    const capture = captureLogger();
    const { texts: messages, collect } = errorTexts();
    const { retry } = FAIL_FAST;
    const faults = [undefined, '500', 'malformed', 'truncate', 'reset', 'slow:ms=2000'];
    await readUnderFaults(
      sim,
      faults,
      (settings) => clientFor(gatewaySettings(sim.url, settings), { logger: capture.logger }).client,
      leases,
      collect,
    );
    const wrong = clientFor(
      gatewaySettings(sim.url, { auth: { type: 'apikey', org: 'nobody', apiKey: API_KEY } }),
      { logger: capture.logger },
    );
    collect(await rejection(allPages(wrong.client, leases)));
    await wrong.client.close();
    // A source that quotes the key back in its error message.
    const tattler = await startTattler((req) => `upstream refused key ${String(req.headers['x-api-key'])}`);
    const { client } = clientFor(gatewaySettings(tattler.url, { retry }), { logger: capture.logger });
    const quoted = await rejection(allPages(client, leases));
    await client.close();
    tattler.server.close();
    expect(quoted.message).toContain('upstream refused key ***');
    collect(quoted);

    expect(capture.lines().length).toBeGreaterThan(5);
    expect(messages.length).toBeGreaterThan(5);
    for (const secret of [API_KEY, Buffer.from(API_KEY).toString('base64')]) {
      expect(capture.text()).not.toContain(secret);
      for (const message of messages) expect(message).not.toContain(secret);
    }
  });
});
