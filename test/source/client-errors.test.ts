import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import type { SourceConfig } from '../../src/config/schema.js';
import {
  AccessError,
  AuthenticationError,
  BadParameterError,
  BudgetExhaustedError,
  MalformedReplyError,
  ServerError,
  SourceError,
  ThrottledError,
  TransportError,
  UnknownMethodError,
} from '../../src/source/errors.js';
import type { SourceRequest } from '../../src/source/types.js';
import { allPages, clientFor, PASSWORD, rejection, sourceConfig, startProxy, startSim } from './support.js';
import { GET_LEASES } from '../../src/streams/leases/manifest.js';

let sim: Awaited<ReturnType<typeof startSim>>;
let propertyId: string;
let leases: SourceRequest;

beforeAll(async () => {
  sim = await startSim();
  propertyId = String(sim.dataset.properties[0].PropertyID);
  leases = { method: GET_LEASES, params: { propertyId } };
});
beforeEach(() => {
  sim.setFaults(undefined);
});
afterAll(async () => {
  await sim.close();
});

/** Reads a request to the end and returns the error it failed with, the events and the calls served. */
async function failure(config: SourceConfig, request: SourceRequest = leases) {
  const before = sim.stats().total;
  const { client, events } = clientFor(config);
  const error = await rejection(allPages(client, request));
  await client.close();
  return { error, events, served: sim.stats().total - before };
}

function expectSite(error: Error, page = 1): void {
  expect(error).toBeInstanceOf(SourceError);
  const sourceError = error as SourceError;
  expect(sourceError.method).toBe('getLeases');
  expect(sourceError.property).toBe(propertyId);
  expect(sourceError.page).toBe(page);
  expect(error.message).toContain(`getLeases, property ${propertyId}, page ${page}`);
  expect(error.message).not.toContain(PASSWORD);
}

describe('typed errors', () => {
  it('authentication: HTTP 401, code 301, never retried', async () => {
    const { error, events, served } = await failure(
      sourceConfig(sim.url, { password: 'wrong-password-123' }),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expectSite(error);
    expect((error as SourceError).status).toBe(401);
    expect((error as SourceError).code).toBe(301);
    expect((error as SourceError).retryable).toBe(false);
    expect((error as SourceError).attempts).toBe(1);
    expect(error.message).not.toContain('wrong-password-123');
    expect(served).toBe(1);
    expect(events.map((e) => [e.attempt, e.status, e.willRetry])).toEqual([[1, 401, false]]);
  });

  it('access: code 302 for a property the credential cannot see', async () => {
    const { error, served } = await failure(sourceConfig(sim.url), {
      method: GET_LEASES,
      params: { propertyId: '999999' },
    });
    expect(error).toBeInstanceOf(AccessError);
    expect((error as SourceError).code).toBe(302);
    expect((error as SourceError).property).toBe('999999');
    expect(served).toBe(1);
  });

  it('bad parameter from the source: code 400, never retried', async () => {
    const { error, events, served } = await failure(sourceConfig(sim.url, { pageSize: 2 }));
    expect(error).toBeInstanceOf(BadParameterError);
    expectSite(error);
    expect((error as SourceError).code).toBe(400);
    expect(error.message).toContain('per_page');
    expect(served).toBe(1);
    expect(events.map((e) => e.willRetry)).toEqual([false]);
  });

  it('bad parameter caught before any call', async () => {
    for (const params of [
      { propertyId: 'abc' },
      { propertyId, moveInDateFrom: '2024-02-30' },
      { propertyId, leaseStatus: '4' },
      {},
    ]) {
      const { error, events, served } = await failure(sourceConfig(sim.url), { method: GET_LEASES, params });
      expect(error).toBeInstanceOf(BadParameterError);
      expect((error as BadParameterError).parameter).toBeDefined();
      expect(served).toBe(0);
      expect(events).toEqual([]);
    }
  });

  it('unknown version, method or area: 404', async () => {
    const config = sourceConfig(sim.url);
    const badVersion = await failure({
      ...config,
      versions: { ...config.versions, getLeases: 'r9' as 'r2' },
    });
    expect(badVersion.error).toBeInstanceOf(UnknownMethodError);
    expect((badVersion.error as SourceError).code).toBe(404);
    expect(badVersion.served).toBe(1);
    const badArea = await failure(sourceConfig(`${sim.url}/elsewhere`));
    expect(badArea.error).toBeInstanceOf(UnknownMethodError);
  });

  it('throttled: 429 with Retry-After, retried until the attempts are spent', async () => {
    sim.setFaults('429:retry=0');
    const { error, events, served } = await failure(
      sourceConfig(sim.url, {
        retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50, maxTotalWaitMs: 5_000 },
      }),
    );
    expect(error).toBeInstanceOf(ThrottledError);
    expectSite(error);
    expect((error as ThrottledError).retryAfterMs).toBe(0);
    expect((error as SourceError).attempts).toBe(3);
    expect(served).toBe(3);
    expect(events.map((e) => [e.status, e.throttled, e.willRetry])).toEqual([
      [429, true, true],
      [429, true, true],
      [429, true, false],
    ]);
  });

  it('server: 5xx, retried until the attempts are spent', async () => {
    sim.setFaults('503');
    const { error, events, served } = await failure(sourceConfig(sim.url));
    expect(error).toBeInstanceOf(ServerError);
    expectSite(error);
    expect((error as SourceError).status).toBe(503);
    expect((error as SourceError).code).toBe(500);
    expect((error as SourceError).attempts).toBe(5);
    expect(served).toBe(5);
    expect(events.map((e) => e.attempt)).toEqual([1, 2, 3, 4, 5]);
  });

  it('malformed: unparseable bodies in both formats, and a requestId that is not ours', async () => {
    sim.setFaults('malformed');
    for (const format of ['json', 'xml'] as const) {
      const { error } = await failure(
        sourceConfig(sim.url, {
          format,
          retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, maxTotalWaitMs: 100 },
        }),
      );
      expect(error).toBeInstanceOf(MalformedReplyError);
      expectSite(error);
    }
    sim.setFaults(undefined);
    const proxy = await startProxy(sim.url, (reply) => ({
      ...reply,
      body: Buffer.from(
        reply.body.toString('utf8').replace(/"requestId":"[^"]*"/, '"requestId":"someone-else"'),
      ),
    }));
    const { error } = await failure(
      sourceConfig(proxy.url, {
        retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, maxTotalWaitMs: 100 },
      }),
    );
    await proxy.close();
    expect(error).toBeInstanceOf(MalformedReplyError);
    expect(error.message).toContain('someone-else');
  });

  it('timeout: no reply within requestTimeoutMs', async () => {
    sim.setFaults('slow:ms=3000');
    const started = Date.now();
    const { error, events } = await failure(
      sourceConfig(sim.url, {
        requestTimeoutMs: 300,
        retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, maxTotalWaitMs: 100 },
      }),
    );
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).failure).toBe('timeout');
    expect(error.message).toContain('300 ms');
    expectSite(error);
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(events.map((e) => [e.status, e.willRetry])).toEqual([
      [undefined, true],
      [undefined, false],
    ]);
  });

  it('connection refused: retried as a connection, never a spent call (issue 36 item 6)', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    const { client, events } = clientFor(
      sourceConfig(`http://127.0.0.1:${port}`, {
        dailyCallBudget: 10,
        retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1, maxTotalWaitMs: 100 },
      }),
    );
    const error = (await rejection(allPages(client, leases))) as TransportError;
    await client.close();
    expect(error).toBeInstanceOf(TransportError);
    expect(error.failure).toBe('connect');
    expect(error.message).toContain('ECONNREFUSED');
    expect(events.map((event) => event.willRetry)).toEqual([true, true, false]);
    // Three connections tried, none reached the source: no call spent, none charged to the page.
    expect(error.attempts).toBe(0);
    expect(client.stats()).toMatchObject({ calls: 0, retries: 2, budgetLeft: 10 });
  });

  it('budget: stops new calls when the daily budget is spent, across concurrent requests', async () => {
    const before = sim.stats().total;
    // The local clock says 18:00 UTC on 15 June: noon in Denver.
    const { client, events } = clientFor(sourceConfig(sim.url, { pageSize: 5, dailyCallBudget: 7 }), {
      now: () => Date.parse('2024-06-15T18:00:00Z'),
    });
    const results = await Promise.allSettled([
      allPages(client, leases),
      allPages(client, {
        method: GET_LEASES,
        params: { propertyId: String(sim.dataset.properties[1].PropertyID) },
      }),
    ]);
    expect(sim.stats().total - before).toBe(7);
    expect(events).toHaveLength(7);
    expect(client.stats().budgetLeft).toBe(0);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      const error = (result as PromiseRejectedResult).reason as BudgetExhaustedError;
      expect(error).toBeInstanceOf(BudgetExhaustedError);
      expect(error.message).toContain(
        'daily call budget (source.dailyCallBudget = 7 calls) is spent for 2024-06-15 (America/Denver)',
      );
      expect(error.message).toMatch(/resets at midnight America\/Denver, 2024-06-16T06:00:00.000Z/);
      expect(error.retryable).toBe(false);
    }
    // Nothing more goes out, not even a retry.
    await expect(allPages(client, leases)).rejects.toBeInstanceOf(BudgetExhaustedError);
    expect(sim.stats().total - before).toBe(7);
    await client.close();
  });
});
