import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceError } from '../../src/source/errors.js';
import { allPages, captureLogger, clientFor, PASSWORD, rejection, sourceConfig, startSim, TODAY, USER } from './support.js';
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

/** A server that answers every call with an error quoting the request's Authorization header. */
async function startTattler(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    const body = JSON.stringify({ response: { error: { code: 500, message: `upstream refused ${req.headers.authorization} for ${USER}:${PASSWORD}` } } });
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('logging', () => {
  it('logs one event per call with what an operator needs', async () => {
    const capture = captureLogger();
    const { client } = clientFor(sourceConfig(sim.url, { pageSize: 50 }), { logger: capture.logger });
    const request = { method: GET_LEASES, params: { propertyId: sim.dataset.properties[0].PropertyID }, context: { stream: 'leases', workUnit: 'leases:100001' } };
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
    const messages: string[] = [];
    const collect = (error: Error) => {
      for (let e: unknown = error; e instanceof Error; e = (e as { cause?: unknown }).cause) messages.push(e.message, e.stack ?? '');
    };
    const retry = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, maxTotalWaitMs: 100 };
    const request = { method: GET_LEASES, params: { propertyId: sim.dataset.properties[0].PropertyID } };

    // Successes, injected faults of every kind, bad credentials, a bad parameter.
    for (const faults of [undefined, '500', 'malformed', 'truncate', 'reset', 'slow:ms=2000', '429:retry=0']) {
      sim.setFaults(faults);
      const { client } = clientFor(sourceConfig(sim.url, { retry, requestTimeoutMs: 300, pageSize: 100 }), { logger: capture.logger });
      try {
        await allPages(client, request);
      } catch (error) {
        collect(error as Error);
      }
      await client.close();
    }
    sim.setFaults(undefined);
    for (const config of [sourceConfig(sim.url, { password: `${PASSWORD}-wrong` }), sourceConfig(sim.url, { pageSize: 1 })]) {
      const { client } = clientFor(config, { logger: capture.logger });
      collect(await rejection(allPages(client, request)));
      await client.close();
    }
    // A source that quotes the credentials back in its error message.
    const tattler = await startTattler();
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
