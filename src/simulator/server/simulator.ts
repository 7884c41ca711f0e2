import type { AddressInfo } from 'node:net';
import { SCALES, type Scale } from '../data/index.js';
import type { SimDataset } from '../data/model.js';
import { denverToday } from './clock.js';
import type { Credentials } from './auth.js';
import { DatasetIndex } from './dataset-index.js';
import { FaultInjector, parseFaultSpec } from './faults.js';
import { parseRateLimitSpec, RateLimiter } from './rate-limit.js';
import { createSimServer, type ServerState } from './server.js';
import { CallStats, type SimStats } from './stats.js';

/** Scales of the generated data set (the data set's own list). */
export const SIM_SCALES = SCALES;
/** One of `SIM_SCALES`. */
export type SimScale = Scale;

/** Options of `startSimulator`. */
export interface SimulatorOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Size of the generated data set (default small); ignored when `dataset` is given. */
  scale?: SimScale;
  /** Seed of the data set, its quirks and its faults (default 1). */
  seed?: number;
  /** The data set's first "today", `YYYY-MM-DD` (default: today in America/Denver). */
  today?: string;
  /** The Basic credential accepted at `/api/v1/<area>`; without it, Basic auth is not served. */
  username?: string;
  password?: string;
  /**
   * The API key accepted by the gateway at `/ext/orgs/<org>/v1/<area>`, for `org`; without them, the gateway
   * is not served.
   */
  apiKey?: string;
  org?: string;
  /** `default` (150/minute, 1000/hour, 15000/day), `off`, or LIMITS such as `20/2s,500/hour`. */
  rateLimit?: string;
  /** A fault SPEC (see `server/faults.ts`); none by default. */
  faults?: string;
  /** A ready data set to serve instead of generating one. */
  dataset?: SimDataset;
}

/** A running simulator. */
export interface Simulator<Summary = unknown> {
  /** Base URL, `http://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /** The data set served (changed in place by `advance`). */
  dataset: SimDataset;
  /** Moves the clock `days` days forward with their business activity; returns the data set's summary. */
  advance(days: number): Summary;
  /** Calls served by method and HTTP status, and faults injected by kind. */
  stats(): SimStats;
  /** Replaces the faults with a new SPEC (afresh: counts and draws restart), or removes them. */
  setFaults(spec: string | undefined): void;
  /** Replaces the rate limits (`default`, `off` or LIMITS); counters restart. */
  setRateLimit(spec: string): void;
  /** Stops listening, drops open connections and pending slow replies. */
  close(): Promise<void>;
}

/** How a data set is made and moved forward: the data engineer's generator, or a test's own. */
export interface DatasetEngine<Summary> {
  generate(options: { seed: number; scale: SimScale; today: string }): SimDataset;
  advance(dataset: SimDataset, days: number): Summary;
}

/**
 * The credentials served: Basic auth when a user name and password are given, the gateway when
 * an API key and an org are; at least one of the two, each whole.
 */
function credentialsOf(options: SimulatorOptions): Credentials {
  const basic = options.username !== undefined || options.password !== undefined;
  const gateway = options.apiKey !== undefined || options.org !== undefined;
  if (basic && (!options.username || !options.password))
    throw new Error('the simulator needs both a username and a password for Basic auth');
  if (gateway && (!options.apiKey || !options.org))
    throw new Error('the simulator needs both an API key and an org for the gateway');
  if (!basic && !gateway)
    throw new Error(
      'the simulator needs a username and a password (Basic auth), or an API key and an org (the gateway), or both',
    );
  return {
    ...(basic ? { basic: { username: options.username!, password: options.password! } } : {}),
    ...(gateway ? { gateway: { apiKey: options.apiKey!, org: options.org! } } : {}),
  };
}

/** Checks a `YYYY-MM-DD` day. */
function checkDay(day: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) {
    throw new Error(`invalid today '${day}': expected YYYY-MM-DD`);
  }
  return day;
}

/**
 * Starts a simulator with a given data engine: builds (or takes) the data set, listens, and
 * resolves once it accepts requests. `startSimulator` in `src/simulator/index.ts` is this with
 * the seeded generator.
 */
export async function startSimulatorWith<Summary>(
  options: SimulatorOptions,
  engine: DatasetEngine<Summary>,
): Promise<Simulator<Summary>> {
  const credentials = credentialsOf(options);
  const seed = options.dataset?.seed ?? options.seed ?? 1;
  const dataset =
    options.dataset ??
    engine.generate({
      seed,
      scale: options.scale ?? 'small',
      today: checkDay(options.today ?? denverToday()),
    });
  const state: ServerState = {
    dataset,
    index: new DatasetIndex(dataset),
    credentials,
    limiter: new RateLimiter(parseRateLimitSpec(options.rateLimit ?? 'default')),
    faults: options.faults ? new FaultInjector(parseFaultSpec(options.faults), dataset.seed) : undefined,
    stats: new CallStats(),
    advance: (days) => advance(days),
  };
  const advance = (days: number): Summary => {
    if (!Number.isInteger(days) || days < 0)
      throw new Error(`advance: days must be a non-negative integer, got ${days}`);
    const summary = engine.advance(state.dataset, days);
    state.index.refresh();
    return summary;
  };
  const pendingTimers = new Set<NodeJS.Timeout>();
  const server = createSimServer(() => state, { pendingTimers });
  server.keepAliveTimeout = 5_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    dataset,
    advance,
    stats: () => state.stats.snapshot(),
    setFaults(spec) {
      state.faults = spec ? new FaultInjector(parseFaultSpec(spec), state.dataset.seed) : undefined;
    },
    setRateLimit(spec) {
      state.limiter = new RateLimiter(parseRateLimitSpec(spec));
    },
    close() {
      for (const timer of pendingTimers) clearTimeout(timer);
      pendingTimers.clear();
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
