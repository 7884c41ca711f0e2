/**
 * Nothing the source sends can stall or exhaust the client: its clock is bounded, a reply's
 * size is bounded while it is read, and the waits it asks for are capped.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { AdvanceSummary, Simulator } from '../../src/simulator/index.js';
import { SourceClock } from '../../src/source/clock.js';
import { ReplyTooLargeError, ThrottledError, UndecodableReplyError } from '../../src/source/errors.js';
import { assertRoomToDecode } from '../../src/source/decode-memory.js';
import { Pacer } from '../../src/source/pacing.js';
import { GET_PROPERTIES } from '../../src/streams/properties/manifest.js';
import { RetrySchedule, timerDelay } from '../../src/source/retry.js';
import { MAX_TIMER_DELAY_MS } from '../../src/source/settings.js';
import {
  allPages,
  captureLogger,
  clientFor,
  rejection,
  sourceConfig,
  startProxy,
  startSim,
  TODAY,
  type Proxy,
} from './support.js';

let sim: Simulator<AdvanceSummary>;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(async () => {
  await sim.close();
});

const PROPERTIES = { method: GET_PROPERTIES, params: {} };

describe("the source's clock is bounded", () => {
  it('a Date header in year 2100 is ignored with a warning: the local day is used', async () => {
    const proxy = await startProxy(sim.url, (reply) => ({
      ...reply,
      headers: { ...reply.headers, date: 'Fri, 01 Jan 2100 12:00:00 GMT' },
    }));
    const capture = captureLogger();
    // 18:00 UTC on 15 June 2026 is noon in Denver.
    const local = Date.parse('2026-06-15T18:00:00Z');
    const { client } = clientFor(sourceConfig(proxy.url, { maxClockSkewHours: 36 }), {
      now: () => local,
      logger: capture.logger,
    });
    try {
      const pages = await allPages(client, PROPERTIES);
      await allPages(client, PROPERTIES);
      expect(client.today()).toBe('2026-06-15');
      expect(pages[0]!.serverDate).toBeUndefined();
      const warnings = capture.lines().filter((line) => line.event === 'source.clock_ignored');
      // One warning for a run of ignored dates, not one per reply.
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 40, date: 'Fri, 01 Jan 2100 12:00:00 GMT' });
      expect(String(warnings[0]!.msg)).toMatch(/ahead of the local clock.*local day is used/);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('a Date within 36 hours is taken; the bound is configurable, 0 trusting any date', () => {
    const local = Date.parse('2026-06-15T18:00:00Z');
    const clock = new SourceClock({ timeZone: 'America/Denver', now: () => local });
    clock.observe('Tue, 16 Jun 2026 20:00:00 GMT', local);
    expect(clock.today()).toBe('2026-06-16');
    clock.observe('Fri, 19 Jun 2026 20:00:00 GMT', local);
    expect(clock.today()).toBe('2026-06-16');
    const trusting = new SourceClock({ timeZone: 'America/Denver', now: () => local, maxSkewMs: 0 });
    trusting.observe('Fri, 01 Jan 2100 12:00:00 GMT', local);
    expect(trusting.today()).toBe('2100-01-01');
    expect(configSchema.shape.source.shape.maxClockSkewHours.parse(undefined)).toBe(36);
  });
});

/** A server that answers every call with `bytes` of body, streamed in 1 MiB chunks as the client reads them. */
async function startHugeServer(
  bytes: number,
  announce: boolean,
): Promise<{ url: string; sent: () => number; close(): Promise<void> }> {
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  let sent = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      ...(announce ? { 'content-length': String(bytes) } : {}),
    });
    let left = bytes;
    const pump = (): void => {
      while (left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        sent += piece.length;
        if (!res.write(piece)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.on('close', () => {
      left = 0;
    });
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sent: () => sent,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('replies are bounded', () => {
  const MiB = 1024 * 1024;
  const CAP = 16 * MiB;

  it('a 100 MiB reply is refused while it is read, without retries, and the process does not grow past the cap', async () => {
    const huge = await startHugeServer(100 * MiB, false);
    const { client, events } = clientFor(sourceConfig(huge.url, { maxReplyBytes: CAP }));
    try {
      const before = process.memoryUsage().rss;
      const error = await rejection(allPages(client, { method: GET_PROPERTIES, params: {} }));
      const grown = process.memoryUsage().rss - before;
      expect(error).toBeInstanceOf(ReplyTooLargeError);
      expect(error.message).toMatch(/^getProperties, page 1: reply too large/);
      expect(error.message).toContain('source.maxReplyBytes');
      expect((error as ReplyTooLargeError).retryable).toBe(false);
      // One call: a reply too large is not tried again.
      expect(events).toHaveLength(1);
      expect(grown).toBeLessThan(CAP + 32 * MiB);
      expect(huge.sent()).toBeLessThan(100 * MiB);
    } finally {
      await client.close();
      await huge.close();
    }
  });

  it('a reply too large for the heap to decode is refused, not decoded: the process lives on and says to lower the page size', async () => {
    const huge = await startHugeServer(12 * MiB, true);
    try {
      // A process with a 48 MB heap: 12 MiB of JSON would need about 60 MB to decode.
      const code = `
        const { allPages, clientFor, rejection, sourceConfig } = await import(${JSON.stringify(new URL('./support.ts', import.meta.url).href)});
        const { GET_PROPERTIES } = await import(${JSON.stringify(new URL('../../src/streams/properties/manifest.ts', import.meta.url).href)});
        const { client, events } = clientFor(sourceConfig(${JSON.stringify(huge.url)}));
        const error = await rejection(allPages(client, { method: GET_PROPERTIES, params: {} }));
        await client.close();
        console.log(JSON.stringify({ name: error.name, message: error.message, retryable: error.retryable, calls: events.length }));`;
      // The child runs beside this process's server, so not synchronously; it exits 0 or rejects.
      const child = await promisify(execFile)(
        process.execPath,
        ['--max-old-space-size=48', '--import', 'tsx', '--input-type=module', '-e', code],
        { encoding: 'utf8' },
      );
      const outcome = JSON.parse(child.stdout.trim().split('\n').pop()!);
      expect(outcome).toMatchObject({ name: 'UndecodableReplyError', retryable: false, calls: 1 });
      expect(outcome.message).toMatch(
        /^getProperties, page 1: the reply \(12582912 characters\) needs about 60 MB to decode.*lower source\.pageSize/,
      );
    } finally {
      await huge.close();
    }
  }, 30_000);

  it('the heap check leaves room for pages many times the size of a real one', () => {
    // 500 leases with their transactions come to about 2 to 9 MB; the default heap limit is 160 MB.
    expect(() => assertRoomToDecode(8 * MiB, 160 * MiB)).not.toThrow();
    expect(() => assertRoomToDecode(17 * MiB, 160 * MiB)).toThrow(UndecodableReplyError);
  });

  it('a Content-Length over the cap is refused before the body is read', async () => {
    const huge = await startHugeServer(100 * MiB, true);
    const { client } = clientFor(sourceConfig(huge.url, { maxReplyBytes: CAP }));
    try {
      const error = await rejection(allPages(client, PROPERTIES));
      expect(error).toBeInstanceOf(ReplyTooLargeError);
      expect(error.message).toContain(`announced ${100 * MiB} bytes`);
      expect(error.message).toMatch(/^getProperties, page 1:/);
    } finally {
      await client.close();
      await huge.close();
    }
  });

  it('has a default of 64 MiB, and requestTimeoutMs a maximum', () => {
    const source = configSchema.shape.source.shape;
    expect(source.maxReplyBytes.parse(undefined)).toBe(64 * MiB);
    expect(source.requestTimeoutMs.safeParse(600_000).success).toBe(true);
    expect(source.requestTimeoutMs.safeParse(600_001).success).toBe(false);
  });
});

describe('waits the source asks for are capped', () => {
  let proxy: Proxy;
  let throttle = 0;
  beforeAll(async () => {
    proxy = await startProxy(sim.url, (reply) => {
      if (throttle <= 0) return reply;
      throttle -= 1;
      return {
        status: 429,
        headers: { ...reply.headers, 'retry-after': '999999' },
        body: Buffer.from('{"response":{"error":{"code":429,"message":"Too many requests"}}}'),
      };
    });
  });
  afterAll(async () => {
    await proxy.close();
  });

  it('Retry-After: 999999 is cut to source.rateLimit.maxWaitMs with a warning, and the call goes on after it', async () => {
    const capture = captureLogger();
    const config = sourceConfig(proxy.url, { rateLimit: { reserve: 2, minIntervalMs: 0, maxWaitMs: 300 } });
    const { client, events } = clientFor(config, { logger: capture.logger });
    throttle = 1;
    try {
      const pages = await allPages(client, PROPERTIES);
      expect(pages[0]!.records.length).toBeGreaterThan(0);
      expect(events.map((event) => event.status)).toEqual([429, 200]);
      const warnings = capture.lines().filter((line) => line.event === 'source.wait_capped');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        level: 40,
        method: 'getProperties',
        what: 'Retry-After',
        askedMs: 999_999_000,
        waitMs: 300,
      });
    } finally {
      await client.close();
    }
  });

  it('the default cap is 15 minutes, for Retry-After and for the reset of a spent window', async () => {
    let now = 0;
    const warnings: unknown[] = [];
    const pacer = new Pacer({
      reserve: 0,
      minIntervalMs: 0,
      concurrency: 1,
      now: () => now,
      logger: { warn: (fields: unknown) => warnings.push(fields) } as never,
    });
    expect(pacer.pause('getLeases', 999_999_000)).toBe(900_000);
    expect(pacer.view('getLeases').pausedUntil).toBe(900_000);
    expect(configSchema.shape.source.shape.rateLimit.parse(undefined).maxWaitMs).toBe(900_000);
    // A spent day window announcing a reset in ten hours: the next call waits 15 minutes (and a second), not ten hours.
    now = 1_000_000;
    const spent = new Pacer({
      reserve: 0,
      minIntervalMs: 0,
      concurrency: 1,
      now: () => now,
      logger: { warn: (fields: unknown) => warnings.push(fields) } as never,
    });
    const first = await spent.acquire('getLeases');
    spent.observe(first, [{ name: 'day', remaining: 0, resetMs: 36_000_000 }], now);
    spent.release(first);
    let started = false;
    const next = spent.acquire('getLeases').then((ticket) => {
      started = true;
      return ticket;
    });
    now += 900_000;
    spent.observe(first, [], now);
    await Promise.resolve();
    expect(started).toBe(false);
    now += 1_000;
    spent.observe(first, [], now);
    const ticket = await next;
    expect(ticket.startedAt).toBe(1_901_000);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatchObject({ what: 'reset of the day window', askedMs: 36_000_000 });
    spent.close(new Error('done'));
    pacer.close(new Error('done'));
  });

  it('a retry waits the capped Retry-After, not the one asked for', () => {
    const schedule = new RetrySchedule(
      { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, maxTotalWaitMs: 10_000 },
      500,
    );
    expect(schedule.next(new ThrottledError('throttled', { retryAfterMs: 999_999_000 }), 1)).toBe(500);
  });

  it('every timer delay stays below 2^31 ms', () => {
    expect(MAX_TIMER_DELAY_MS).toBe(2 ** 31 - 1);
    expect(timerDelay(999_999_000_000)).toBe(2 ** 31 - 1);
    expect(timerDelay(-5)).toBe(0);
    expect(timerDelay(Number.NaN)).toBe(0);
    expect(timerDelay(1.2)).toBe(2);
  });
});

it('the simulator day is taken when the bound is off (the test configuration)', async () => {
  const { client } = clientFor(sourceConfig(sim.url), { now: () => Date.parse('2030-01-02T03:00:00Z') });
  try {
    await allPages(client, PROPERTIES);
    expect(client.today()).toBe(TODAY);
  } finally {
    await client.close();
  }
});
