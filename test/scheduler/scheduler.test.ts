import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountRuntime } from '../../src/app/propsync.js';
import { configSchema, type Config } from '../../src/config/schema.js';
import { createLogger } from '../../src/log/logger.js';
import { createSyncMetrics } from '../../src/app/metrics.js';
import { startScheduler, type RunEngine } from '../../src/scheduler/scheduler.js';
import type { SourceClient } from '../../src/source/types.js';
import type { RunSummary } from '../../src/sync/types.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(async () => {
  await database?.drop();
});

function logs() {
  const stream = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
  });
  return { logger: createLogger({ destination: stream, level: 'info' }), lines };
}

function config(schedule: string) {
  return configSchema.parse({
    database: { url: database.url },
    source: { url: 'http://127.0.0.1:9', username: 'u', password: 'p' },
    streams: {
      leases: { schedule },
      invoices: { schedule, enabled: false },
      properties: { enabled: false },
      units: { enabled: false },
    },
  });
}

/** Two accounts on the same schedule. */
function twoAccounts(schedule: string) {
  return configSchema.parse({
    database: { url: database.url },
    accounts: [
      {
        id: 'north',
        source: { url: 'http://127.0.0.1:9', auth: { type: 'basic', username: 'u', password: 'p' } },
      },
      { id: 'south', source: { url: 'http://127.0.0.1:9', auth: { type: 'apikey', org: 'o', apiKey: 'k' } } },
    ],
    streams: {
      leases: { schedule },
      invoices: { schedule, enabled: false },
      properties: { enabled: false },
      units: { enabled: false },
    },
  });
}

/** Each configured account with a client the fake engines never call. */
function runtimes(config: Config): AccountRuntime[] {
  return config.accounts.map((account) => ({ account, client: {} as SourceClient }));
}

/** A scheduler of `cfg`'s accounts on the test warehouse, running `run`, with fresh metrics. */
function schedulerOf(
  cfg: Config,
  run: RunEngine,
  options: Partial<Parameters<typeof startScheduler>[0]> = {},
): ReturnType<typeof startScheduler> {
  return startScheduler({
    db: database.db,
    accounts: runtimes(cfg),
    metrics: createSyncMetrics({ defaultMetrics: false }),
    run,
    config: cfg,
    logger: logs().logger,
    ...options,
  });
}

/** A fake engine that records when each run of a stream held it, and honours the abort signal. */
function fakeEngine(
  intervals: { account?: string; stream: string; start: number; end: number }[],
  ms: number,
): RunEngine {
  let runId = 0;
  return async (request, deps) => {
    const start = Date.now();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      deps.signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    intervals.push({ account: deps.account.id, stream: request.streams![0], start, end: Date.now() });
    return { runId: ++runId, status: deps.signal?.aborted ? 'interrupted' : 'succeeded' } as RunSummary;
  };
}

describe('scheduler', () => {
  it('never runs the same stream in two schedulers at once; the loser logs that it skipped', async () => {
    const intervals: { stream: string; start: number; end: number }[] = [];
    const a = logs();
    const b = logs();
    const metrics = createSyncMetrics({ defaultMetrics: false });
    const common = { db: database.db, metrics, run: fakeEngine(intervals, 1500) };
    const first = startScheduler({
      ...common,
      config: config('*/1 * * * * *'),
      accounts: runtimes(config('*/1 * * * * *')),
      logger: a.logger,
    });
    const second = startScheduler({
      ...common,
      config: config('*/1 * * * * *'),
      accounts: runtimes(config('*/1 * * * * *')),
      logger: b.logger,
    });
    expect(first.jobs().map((job) => [job.account, job.stream])).toEqual([['default', 'leases']]);
    await new Promise((resolve) => setTimeout(resolve, 5500));
    expect(await first.stop(5000)).toBe(true);
    expect(await second.stop(5000)).toBe(true);

    expect(intervals.length).toBeGreaterThanOrEqual(2);
    const sorted = [...intervals].sort((x, y) => x.start - y.start);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i].start).toBeGreaterThanOrEqual(sorted[i - 1].end);
    const skipped = [...a.lines, ...b.lines].filter((line) => line.event === 'run_skipped');
    expect(
      skipped.some(
        (line) =>
          line.reason === 'locked' && String(line.msg).includes('being synced by another propsync process'),
      ),
    ).toBe(true);
    expect(await metrics.render()).toMatch(
      /propsync_runs_skipped_total\{account="default",stream="leases"\} [1-9]/,
    );
  }, 30_000);

  it('runs one job per account and stream; accounts never wait for each other', async () => {
    const intervals: { account?: string; stream: string; start: number; end: number }[] = [];
    const { logger } = logs();
    const seen: string[] = [];
    const cfg = twoAccounts('*/1 * * * * *');
    const scheduler = schedulerOf(cfg, fakeEngine(intervals, 1500), {
      logger,
      beforeRun: async (runtime, stream) => {
        seen.push(`${runtime.account.id}/${stream}`);
        return null;
      },
    });
    expect(scheduler.jobs().map((job) => [job.account, job.stream])).toEqual([
      ['north', 'leases'],
      ['south', 'leases'],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect(await scheduler.stop(5000)).toBe(true);
    const north = intervals.filter((run) => run.account === 'north');
    const south = intervals.filter((run) => run.account === 'south');
    expect(north.length).toBeGreaterThanOrEqual(1);
    expect(south.length).toBeGreaterThanOrEqual(1);
    // The two accounts' runs of the same stream overlapped in time: different locks.
    expect(north.some((a) => south.some((b) => a.start < b.end && b.start < a.end))).toBe(true);
    expect(new Set(seen)).toEqual(new Set(['north/leases', 'south/leases']));
  }, 30_000);

  it('holds no more stream locks at once than runsAtOnce allows: the run due meanwhile waits its turn', async () => {
    const intervals: { account?: string; stream: string; start: number; end: number }[] = [];
    const cfg = twoAccounts('*/1 * * * * *');
    const scheduler = schedulerOf(cfg, fakeEngine(intervals, 1200), { runsAtOnce: 1 });
    // What /healthz says meanwhile: never two running, and the run due meanwhile shown waiting, not running.
    const looks: { running: number; waiting: number }[] = [];
    const started = Date.now();
    while (Date.now() - started < 5000) {
      const jobs = scheduler.jobs();
      looks.push({
        running: jobs.filter((job) => job.running).length,
        waiting: jobs.filter((job) => job.waiting && !job.running).length,
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await scheduler.stop(5000)).toBe(true);
    expect(Math.max(...looks.map((look) => look.running))).toBe(1);
    expect(looks.some((look) => look.running === 1 && look.waiting === 1)).toBe(true);
    // Both accounts ran, one after the other: never two at once.
    expect(new Set(intervals.map((run) => run.account))).toEqual(new Set(['north', 'south']));
    const sorted = [...intervals].sort((x, y) => x.start - y.start);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i].start).toBeGreaterThanOrEqual(sorted[i - 1].end);
  }, 30_000);

  it('stop aborts the run in flight and starts nothing afterwards', async () => {
    const intervals: { stream: string; start: number; end: number }[] = [];
    const scheduler = schedulerOf(config('*/1 * * * * *'), fakeEngine(intervals, 60_000));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(scheduler.jobs()[0].running).toBe(true);
    const stopping = Date.now();
    expect(await scheduler.stop(5000)).toBe(true);
    expect(Date.now() - stopping).toBeLessThan(2000);
    expect(scheduler.stopping()).toBe(true);
    expect(scheduler.jobs()[0].nextRun).toBeNull();
    const count = intervals.length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(intervals.length).toBe(count);
  }, 30_000);

  it('stop gives up after its timeout when a run ignores the signal', async () => {
    const stubborn: RunEngine = () =>
      new Promise((resolve) =>
        setTimeout(() => resolve({ runId: 1, status: 'succeeded' } as RunSummary), 4000),
      );
    const scheduler = schedulerOf(config('*/1 * * * * *'), stubborn);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await scheduler.stop(300)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 4000));
  }, 30_000);
});
