/**
 * Helpers of the source client's integration tests: a simulator over real HTTP, a client
 * configuration pointing at it, a captured logger, and a tiny proxy that can strip headers.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { configSchema, type SourceConfig } from '../../src/config/schema.js';
import { createLogger, type Logger } from '../../src/log/logger.js';
import {
  startSimulator,
  type AdvanceSummary,
  type Simulator,
  type SimulatorOptions,
} from '../../src/simulator/index.js';
import { createSourceClient, type SourceClientOptions } from '../../src/source/client.js';
import type { RetrySettings, SourceSettings } from '../../src/source/settings.js';
import type { CallEvent, SourceClient, SourcePage, SourceRequest } from '../../src/source/types.js';

export const USER = 'propsync-test';
/** A password that must never show up in a log line or an error message. */
export const PASSWORD = 'pw-Sekr1t-9f3a7c';
/** The gateway's org and an API key that must never show up in a log line or an error message. */
export const ORG = 'acme-prop';
export const API_KEY = 'key-Sekr1t-77d0b9e4';
/** The zone the tests' clients read days in (the configuration's default, the simulator's zone). */
export const ZONE = 'America/Denver';
/** The simulator's "today" in every test. */
export const TODAY = '2024-06-15';

/** Starts a small seeded simulator (rate limits off unless asked for). */
export function startSim(options: Partial<SimulatorOptions> = {}): Promise<Simulator<AdvanceSummary>> {
  return startSimulator({
    port: 0,
    scale: 'small',
    seed: 11,
    today: TODAY,
    username: USER,
    password: PASSWORD,
    rateLimit: 'off',
    ...options,
  });
}

/** The client's settings of a one-account `source` block: its username and password as Basic auth. */
export function sourceSettingsOf(source: SourceConfig): SourceSettings {
  const { username, password, ...rest } = source;
  return { ...rest, auth: { type: 'basic', username, password } };
}

/** The `source` configuration of a client of `url`, with fast retries for tests. */
export function sourceConfig(url: string, overrides: Partial<SourceConfig> = {}): SourceConfig {
  const base = configSchema.parse({
    database: { url: 'postgres://test@localhost/test' },
    // The simulated today is not this machine's: take the simulator's Date whatever it says.
    source: {
      url,
      username: USER,
      password: PASSWORD,
      pageSize: 25,
      requestTimeoutMs: 5_000,
      maxClockSkewHours: 0,
    },
  }).source;
  return {
    ...base,
    url,
    username: USER,
    password: PASSWORD,
    retry: { maxAttempts: 5, baseDelayMs: 20, maxDelayMs: 200, maxTotalWaitMs: 10_000 },
    ...overrides,
  };
}

/**
 * The settings of a client of the simulator's API-key gateway at `url` (the same defaults as
 * `sourceConfig`, the credential `ORG`/`API_KEY` unless overridden).
 */
export function gatewaySettings(url: string, overrides: Partial<SourceSettings> = {}): SourceSettings {
  return {
    ...sourceSettingsOf(sourceConfig(url)),
    auth: { type: 'apikey', org: ORG, apiKey: API_KEY },
    ...overrides,
  };
}

/** A pino logger writing into memory; `text()` is everything logged so far. */
export function captureLogger(): {
  logger: Logger;
  lines: () => Record<string, unknown>[];
  text: () => string;
} {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ level: 'trace', destination, pretty: false });
  return {
    logger,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/** A client with its call events recorded, from a `source` configuration (Basic auth) or the client's own settings. */
export function clientFor(
  config: SourceConfig | SourceSettings,
  options: Partial<SourceClientOptions> = {},
): { client: SourceClient; events: CallEvent[] } {
  const events: CallEvent[] = [];
  const client = createSourceClient({
    settings: 'auth' in config ? config : sourceSettingsOf(config),
    timeZone: ZONE,
    ...options,
    onCall: (event) => {
      events.push(event);
      options.onCall?.(event);
    },
  });
  return { client, events };
}

/** Every page of a request. */
export async function allPages(
  client: SourceClient,
  request: SourceRequest,
  startPage?: number,
): Promise<SourcePage[]> {
  const pages: SourcePage[] = [];
  for await (const page of client.pages(request, { startPage })) pages.push(page);
  return pages;
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/** Calls the simulator served, by status, over all methods. */
export function callsByStatus(sim: Simulator<AdvanceSummary>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const byStatus of Object.values(sim.stats().calls)) {
    for (const [status, count] of Object.entries(byStatus)) out[status] = (out[status] ?? 0) + count;
  }
  return out;
}

/** A proxy in front of `target` that can rewrite replies; `url` is its base. */
export interface Proxy {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts a proxy to `target` that passes requests through and lets `rewrite` change each
 * reply's headers and body before it goes back.
 */
export async function startProxy(
  target: string,
  rewrite: (reply: { status: number; headers: IncomingHttpHeaders; body: Buffer }) => {
    status: number;
    headers: IncomingHttpHeaders;
    body: Buffer;
  },
): Promise<Proxy> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (reply) => {
        const chunks: Buffer[] = [];
        reply.on('data', (chunk: Buffer) => chunks.push(chunk));
        reply.on('end', () => {
          const out = rewrite({
            status: reply.statusCode ?? 500,
            headers: { ...reply.headers },
            body: Buffer.concat(chunks),
          });
          const headers = { ...out.headers, 'content-length': String(out.body.length) };
          delete headers['transfer-encoding'];
          res.writeHead(out.status, headers);
          res.end(out.body);
        });
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A server that answers every call with HTTP 500 and an error envelope whose message is `quote(request)`: a
 * source that quotes credentials back.
 */
export async function startTattler(
  quote: (req: IncomingMessage) => string,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    const body = JSON.stringify({ response: { error: { code: 500, message: quote(req) } } });
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/**
 * Every message and stack of the errors `collect` is given, their causes' included: for checks that no secret shows.
 */
export function errorTexts(): { texts: string[]; collect: (error: unknown) => void } {
  const texts: string[] = [];
  return {
    texts,
    collect(error) {
      for (let e: unknown = error; e instanceof Error; e = (e as { cause?: unknown }).cause)
        texts.push(e.message, e.stack ?? '');
    },
  };
}

/** What a client that must fail fast is made with: two attempts, no real backoff, a 300 ms timeout. */
export const FAIL_FAST: { retry: RetrySettings; requestTimeoutMs: number; pageSize: number } = {
  retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, maxTotalWaitMs: 100 },
  requestTimeoutMs: 300,
  pageSize: 100,
};

/**
 * Reads a request once under each fault SPEC (`undefined`: none), each time with a fresh client
 * from `clientOf(FAIL_FAST)`, and hands every failure to `collect`; the faults are off after.
 */
export async function readUnderFaults(
  sim: Simulator<AdvanceSummary>,
  faults: (string | undefined)[],
  clientOf: (settings: typeof FAIL_FAST) => SourceClient,
  request: SourceRequest,
  collect: (error: unknown) => void,
): Promise<void> {
  for (const spec of faults) {
    sim.setFaults(spec);
    const client = clientOf(FAIL_FAST);
    try {
      await allPages(client, request);
    } catch (error) {
      collect(error);
    }
    await client.close();
  }
  sim.setFaults(undefined);
}
