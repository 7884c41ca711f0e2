import { Writable } from 'node:stream';
import { configSchema, type Config } from '../../src/config/schema.js';
import { createLogger, type Logger } from '../../src/log/logger.js';
import { startSimulator, type Simulator, type AdvanceSummary } from '../../src/simulator/index.js';
import { createSourceClient } from '../../src/source/client.js';
import type { SourceClient } from '../../src/source/types.js';
import { runSync } from '../../src/sync/engine.js';
import type { RunSummary, SyncObserver, SyncRequest } from '../../src/sync/types.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export const SIM_USER = 'propsync-test';
export const SIM_PASSWORD = 'hunter2-Secret!';

/** A simulator, a fresh warehouse and a way to run the engine between them. */
export interface SyncHarness {
  sim: Simulator<AdvanceSummary>;
  warehouse: TestDatabase;
  config: Config;
  /** Every log line of every run, parsed. */
  logs: Record<string, unknown>[];
  /** Runs the engine once with a new client (as a new process would). */
  sync(
    request?: Partial<SyncRequest>,
    overrides?: {
      format?: 'json' | 'xml';
      observer?: SyncObserver;
      pageSize?: number;
      signal?: AbortSignal;
      /** Runs as an account of this id, against the same simulator (a second account's rows). */
      accountId?: string;
    },
  ): Promise<RunSummary>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  scale?: 'small' | 'medium';
  seed?: number;
  today?: string;
  format?: 'json' | 'xml';
  faults?: string;
  /** Configuration overrides (deep-merged into source and streams). */
  source?: Record<string, unknown>;
  streams?: Record<string, unknown>;
}

/** Starts a simulator (rate limits off, no faults unless asked) and a migrated, empty warehouse. */
export async function startSyncHarness(options: HarnessOptions = {}): Promise<SyncHarness> {
  const sim = await startSimulator({
    port: 0,
    scale: options.scale ?? 'small',
    seed: options.seed ?? 11,
    today: options.today ?? '2026-06-15',
    username: SIM_USER,
    password: SIM_PASSWORD,
    rateLimit: 'off',
    faults: options.faults,
  });
  const warehouse = await createTestDatabase();
  const config = configSchema.parse({
    database: { url: warehouse.url },
    source: {
      url: sim.url,
      username: SIM_USER,
      password: SIM_PASSWORD,
      format: options.format ?? 'json',
      // The simulated today is not this machine's: take the simulator's Date whatever it says.
      maxClockSkewHours: 0,
      pageSize: 200,
      concurrency: 3,
      retry: { maxAttempts: 4, baseDelayMs: 20, maxDelayMs: 200, maxTotalWaitMs: 5_000 },
      ...options.source,
    },
    streams: options.streams ?? {},
    logLevel: 'info',
  });
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      callback();
    },
  });
  const logger: Logger = createLogger({ level: 'info', destination: sink });
  return {
    sim,
    warehouse,
    config,
    logs,
    async sync(request = {}, overrides = {}) {
      const [base] = config.accounts;
      const account = {
        ...base,
        id: overrides.accountId ?? base.id,
        source: {
          ...base.source,
          format: overrides.format ?? base.source.format,
          pageSize: overrides.pageSize ?? base.source.pageSize,
        },
      };
      const client: SourceClient = createSourceClient({
        settings: account.source,
        timeZone: account.timeZone,
        logger,
      });
      try {
        return await runSync(
          { kind: 'sync', ...request },
          {
            db: warehouse.db,
            client,
            config,
            account,
            logger,
            observer: overrides.observer,
            signal: overrides.signal,
          },
        );
      } finally {
        await client.close();
      }
    },
    async close() {
      await sim.close();
      await warehouse.drop();
    },
  };
}
