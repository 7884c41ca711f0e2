/**
 * Issue 23: two schedulers in queue mode enqueue each cron time once; a lane whose retries run
 * out lands in the dead-letter queue, shown by `status` (text and --json), and `enqueue --wait`
 * exits 1 for its run.
 */
import { sql } from 'kysely';
import { freePort } from '../../src/warehouse/embedded.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_NAMES } from '../../src/streams/registry.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { lockName, withStreamLock } from '../../src/sync/lock.js';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { configFile, ENV, killAll, PASSWORD, startPropsync, until } from './support.js';

const TODAY = '2026-06-15';
let sim: Simulator;
let broken: Simulator;
let warehouse: TestDatabase;

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    scale: 'small',
    seed: 5,
    today: TODAY,
    username: 'north-user',
    password: PASSWORD,
    rateLimit: 'off',
  });
  // Every call of one stream's method fails: that lane's job fails every attempt.
  broken = await startSimulator({
    port: 0,
    scale: 'small',
    seed: 7,
    today: TODAY,
    username: 'broken-user',
    password: PASSWORD,
    rateLimit: 'off',
    faults: '500:method=getInvoices',
  });
  warehouse = await createTestDatabase();
});

afterAll(async () => {
  killAll();
  await sim?.close();
  await broken?.close();
  await warehouse?.drop();
});

describe('queue mode and dead letters (issue 23)', () => {
  it('two schedulers in queue mode: each cron time of each stream is enqueued once', async () => {
    const streams = Object.fromEntries(STREAM_NAMES.map((name) => [name, { schedule: '*/3 * * * * *' }]));
    const folder = scratchFolder({
      'config/propsync.yaml': configFile(warehouse.url, { north: sim }, { streams }),
    });
    try {
      const schedulers = [0, 1].map(() =>
        startPropsync(['schedule'], folder.dir, { PROPSYNC_SCHEDULE_MODE: 'queue' }),
      );
      // Both started (on a busy machine that takes seconds), then ten seconds of cron times.
      await until('both schedulers are in queue mode', async () =>
        schedulers.every((scheduler) => /queue mode/.test(scheduler.output())),
      );
      await sleep(10_000);
      for (const scheduler of schedulers) scheduler.child.kill('SIGTERM');
      expect(await Promise.all(schedulers.map((scheduler) => scheduler.exited))).toEqual([0, 0]);
      for (const scheduler of schedulers) expect(scheduler.output()).toMatch(/queue mode/);
      const { rows: ticks } = await sql<{ account: string; stream: string; slot: string }>`
        select data->>'account' as account, data->>'stream' as stream, data->>'slot' as slot from propsync_queue.job where name = 'propsync-schedule-ticks'`.execute(
        warehouse.db,
      );
      const { rows: runs } = await sql<{
        stream: string;
        n: number;
      }>`select streams[1] as stream, count(*)::int as n from sync_runs group by 1`.execute(warehouse.db);
      expect(ticks.length).toBeGreaterThanOrEqual(2);
      // Both were there at the same cron times: the one that did not enqueue says why.
      expect(schedulers.map((scheduler) => scheduler.output()).join('')).toMatch(/"event":"run_skipped"/);
      // One run per claimed cron time, per stream: none twice.
      const perStream = new Map<string, number>();
      for (const tick of ticks) perStream.set(tick.stream, (perStream.get(tick.stream) ?? 0) + 1);
      expect(Object.fromEntries(runs.map((run) => [run.stream, run.n]))).toEqual(
        Object.fromEntries(perStream),
      );
      expect(new Set(ticks.map((tick) => `${tick.stream}@${tick.slot}`)).size).toBe(ticks.length);
    } finally {
      folder.remove();
    }
  }, 120_000);

  it('a second enqueue does not queue a lane again while it waits: its run notes the lane skipped', async () => {
    const folder = scratchFolder({ 'config/propsync.yaml': configFile(warehouse.url, { north: sim }) });
    try {
      await runPropsync(['enqueue'], { cwd: folder.dir, env: ENV });
      const again = await runPropsync(['enqueue'], { cwd: folder.dir, env: ENV });
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/run (\d+) queued: 0 lanes \((\d+) already waiting on the queue\)/);
      const runId = Number(/run (\d+) queued/.exec(again.stdout)![1]);
      const { rows: twice } = await sql`
        select singleton_key from propsync_queue.job where name = 'propsync-units-north' and state = 'created' group by 1 having count(*) > 1`.execute(
        warehouse.db,
      );
      expect(twice).toEqual([]);
      const { rows: lanes } = await sql<{
        status: string;
      }>`select distinct status from sync_run_lanes where run_id = ${runId}`.execute(warehouse.db);
      expect(lanes.map((lane) => lane.status)).toEqual(['skipped']);
    } finally {
      folder.remove();
    }
  }, 120_000);

  it('a lane whose retries run out: dead-letter queue, shown by status; enqueue --wait exits 1', async () => {
    const folder = scratchFolder({
      'config/propsync.yaml': configFile(warehouse.url, { north: sim, broken }),
    });
    try {
      const port = await freePort();
      const worker = startPropsync(['worker', '--concurrency', '2'], folder.dir, {
        PROPSYNC_METRICS_PORT: String(port),
      });
      const waited = await runPropsync(['enqueue', '--account', 'broken', '--wait'], {
        cwd: folder.dir,
        env: ENV,
        timeoutMs: 240_000,
      });
      // On a failure, what enqueue and the worker said.
      const said = `${waited.stderr}\n--- worker ---\n${worker.output().slice(-6_000)}`;
      expect(waited.code, said).toBe(1);
      expect(waited.stdout, said).toMatch(/dead-letter queue/);
      const text = await runPropsync(['status'], { cwd: folder.dir, env: ENV });
      expect(text.stdout).toMatch(/dead-letter queue: account broken, run #\d+, lane \S+/);
      const json = await runPropsync(['status', '--json'], { cwd: folder.dir, env: ENV });
      const accounts = JSON.parse(json.stdout).accounts as {
        account: string;
        deadLetters: { laneKey: string }[];
      }[];
      expect(accounts.find((account) => account.account === 'broken')!.deadLetters.length).toBeGreaterThan(0);
      expect(accounts.find((account) => account.account === 'north')!.deadLetters).toEqual([]);
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toMatch(/propsync_dead_letter_jobs\{account="broken"\} [1-9]/);
      expect(metrics).toMatch(/propsync_dead_letter_jobs\{account="north"\} 0/);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true, database: 'ok', jobsInFlight: 0 });
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    } finally {
      folder.remove();
    }
  }, 300_000);
  it('sync and the workers exclude each other on a stream: a worker gives its lane back while sync holds it, sync refuses a stream workers run', async () => {
    const folder = scratchFolder({ 'config/propsync.yaml': configFile(warehouse.url, { north: sim }) });
    try {
      const stream = lockName('north', 'properties');
      // As `propsync sync` does: the account's stream lock, whole.
      const whole = await withStreamLock(warehouse.url, stream, async () => {
        const worker = startPropsync(['worker', '--account', 'north'], folder.dir);
        const queued = await runPropsync(['enqueue', '--account', 'north', '--stream', 'properties'], {
          cwd: folder.dir,
          env: ENV,
        });
        expect(queued.code, queued.stderr).toBe(0);
        await until('the worker to give the lane back', async () =>
          /"event":"job_released".*north\/properties is being synced by another propsync process.*the lane waits for it/.test(
            worker.output(),
          ),
        );
        expect(worker.output()).not.toMatch(/"event":"job_done".*properties/);
        worker.child.kill('SIGTERM');
        return worker.exited;
      });
      expect(whole).toEqual({ acquired: true, value: 0 });
      // As each worker does while it runs a lane: the stream's lock in share mode.
      const shared = await withStreamLock(
        warehouse.url,
        stream,
        () =>
          runPropsync(['sync', '--account', 'north', '--stream', 'properties'], {
            cwd: folder.dir,
            env: ENV,
          }),
        { shared: true },
      );
      expect(shared.acquired).toBe(true);
      if (!shared.acquired) return;
      expect(shared.value.code).toBe(1);
      expect(shared.value.stdout).toContain(
        'stream north/properties is being synced by another propsync process',
      );
    } finally {
      folder.remove();
    }
  }, 120_000);
});
