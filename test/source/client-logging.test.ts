import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceError } from '../../src/source/errors.js';
import {
  allPages,
  captureLogger,
  clientFor,
  errorTexts,
  FAIL_FAST,
  PASSWORD,
  readUnderFaults,
  rejection,
  sourceConfig,
  startSim,
  startTattler,
  TODAY,
  USER,
} from './support.js';
import { GET_PROPERTIES } from '../../src/streams/properties/manifest.js';
import { GET_LEASES } from '../../src/streams/leases/manifest.js';

let sim: Awaited<ReturnType<typeof startSim>>;
beforeAll(async () => {
  sim = await startSim({ rateLimit: '15000/day;1000/hour;150/minute' });
});
afterAll(async () => {
  await sim.close();
});

const basic = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
const secrets = [PASSWORD, basic, Buffer.from(PASSWORD).toString('base64')];

describe('logging', () => {
  it('logs one event per call with what an operator needs', async () => {
    const capture = captureLogger();
    const { client } = clientFor(sourceConfig(sim.url, { pageSize: 50 }), { logger: capture.logger });
    const request = {
      method: GET_LEASES,
      params: { propertyId: sim.dataset.properties[0].PropertyID },
      context: { stream: 'leases', workUnit: 'leases:100001' },
    };
    const pages = await allPages(client, request);
    await client.close();
    const lines = capture.lines().filter((line) => line.event === 'source.call');
    expect(lines).toHaveLength(pages.length);
    lines.forEach((line, i) => {
      expect(line).toMatchObject({
        level: 30,
        component: 'source',
        method: 'getLeases',
        property: String(sim.dataset.properties[0].PropertyID),
        stream: 'leases',
        workUnit: 'leases:100001',
        page: i + 1,
        attempt: 1,
        status: 200,
        bytes: pages[i].bytes,
        willRetry: false,
        throttled: false,
      });
      expect(typeof line.ms).toBe('number');
      expect(line.remaining).toBe(149 - i);
      expect(line.budgetLeft).toBe(10_000 - i - 1);
    });
  });

  it('never writes the password or the Basic header, in logs or in errors', async () => {
    const capture = captureLogger();
    const { texts: messages, collect } = errorTexts();
    const { retry } = FAIL_FAST;
    const request = { method: GET_LEASES, params: { propertyId: sim.dataset.properties[0].PropertyID } };

    // Successes, injected faults of every kind, bad credentials, a bad parameter.
    const faults = [undefined, '500', 'malformed', 'truncate', 'reset', 'slow:ms=2000', '429:retry=0'];
    await readUnderFaults(
      sim,
      faults,
      (settings) => clientFor(sourceConfig(sim.url, settings), { logger: capture.logger }).client,
      request,
      collect,
    );
    for (const config of [
      sourceConfig(sim.url, { password: `${PASSWORD}-wrong` }),
      sourceConfig(sim.url, { pageSize: 1 }),
    ]) {
      const { client } = clientFor(config, { logger: capture.logger });
      collect(await rejection(allPages(client, request)));
      await client.close();
    }
    // A source that quotes the credentials back in its error message.
    const tattler = await startTattler(
      (req) => `upstream refused ${req.headers.authorization} for ${USER}:${PASSWORD}`,
    );
    const { client } = clientFor(sourceConfig(tattler.url, { retry }), { logger: capture.logger });
    const quoted = await rejection(allPages(client, request));
    await client.close();
    tattler.server.close();
    expect(quoted).toBeInstanceOf(SourceError);
    expect(quoted.message).toContain('upstream refused Basic ***');
    collect(quoted);

    const text = capture.text();
    expect(capture.lines().length).toBeGreaterThan(10);
    expect(messages.length).toBeGreaterThan(10);
    for (const secret of secrets) {
      expect(text).not.toContain(secret);
      for (const message of messages) expect(message).not.toContain(secret);
    }
  });
});

describe("the source's today", () => {
  it("comes from the reply's Date header in America/Denver, and follows the simulator's clock", async () => {
    // The local clock says 03:00 UTC on 2 January 2030: 1 January in Denver.
    const local = Date.parse('2030-01-02T03:00:00Z');
    const { client } = clientFor(sourceConfig(sim.url), { now: () => local });
    expect(client.today()).toBe('2030-01-01');
    await allPages(client, { method: GET_PROPERTIES, params: {} });
    expect(client.today()).toBe(TODAY);
    sim.advance(1);
    await allPages(client, { method: GET_PROPERTIES, params: {} });
    expect(client.today()).toBe('2024-06-16');
    await client.close();
  });
});
