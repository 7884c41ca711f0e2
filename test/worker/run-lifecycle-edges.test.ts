/**
 * Issues 35 and 36, from outside: runs of `enqueue` stopped by a signal or killed, a lane queued while its job
 * runs, a full refresh behind a waiting incremental, refused credentials, a job archived by pg-boss, a cron time
 * claimed by a scheduler that died, and `enqueue --wait` with no worker. Real processes, signals, Postgres and
 * simulators over HTTP.
 */
import { sql } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { DISCOVERY } from '../../src/streams/load-stream.js';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { propsyncSessions } from '../support/warehouse-cuts.js';
import { configFile, ENV, killAll, PASSWORD, startPropsync, until } from './support.js';

const TODAY = '2026-06-15';
let sim: Simulator;
const databases: TestDatabase[] = [];

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
});

afterAll(async () => {
  killAll();
  await sim?.close();
  for (const database of databases) await database.drop();
});

/** A fresh warehouse and a folder with a configuration of account north on it. */
async function world(extra: Record<string, unknown> = {}) {
  const warehouse = await createTestDatabase();
  databases.push(warehouse);
  const folder = scratchFolder({ 'config/propsync.yaml': configFile(warehouse.url, { north: sim }, extra) });
  const runs = async () =>
    (
      await sql<{
        run_id: number;
        status: string;
        error: string | null;
      }>`select run_id::int, status, error from sync_runs order by run_id`.execute(warehouse.db)
    ).rows;
  return { warehouse, folder, runs };
}

describe('runs of every kind are closed (issue 35, item 5)', () => {
  it('SIGTERM while enqueue discovers: the run is closed interrupted by its own process, exit 1', async () => {
    const { folder, runs } = await world();
    sim.setFaults(`slow@1:ms=4000:method=${DISCOVERY.method.name}`);
    try {
      const enqueue = startPropsync(['enqueue'], folder.dir);
      await until('the run to open', async () => (await runs()).length === 1);
      await sleep(500);
      enqueue.child.kill('SIGTERM');
      expect(await enqueue.exited, enqueue.output()).toBe(1);
      const [run] = await runs();
      expect(run!.status).toBe('interrupted');
      expect(run!.error).toMatch(/enqueue was stopped by a signal before its lanes were queued/);
    } finally {
      sim.setFaults(undefined);
      folder.remove();
    }
  }, 120_000);

  it('kill -9 while enqueue discovers: once its heartbeat is old, a worker closes the run as abandoned', async () => {
    const { warehouse, folder, runs } = await world();
    sim.setFaults(`slow@1:ms=4000:method=${DISCOVERY.method.name}`);
    try {
      const enqueue = startPropsync(['enqueue'], folder.dir);
      await until('the run to open', async () => (await runs()).length === 1);
      enqueue.child.kill('SIGKILL');
      await enqueue.exited;
      sim.setFaults(undefined);
      // A statement the process sent before it died (a heartbeat) still runs in its backend: wait for those to end.
      await until(
        'the killed process to leave the warehouse',
        async () => (await propsyncSessions(warehouse.db)) === 0,
      );
      expect((await runs())[0]!.status).toBe('running');
      // As if it had died eleven minutes ago (abandonedAfterMinutes is 10).
      await sql`update sync_runs set heartbeat_at = now() - interval '11 minutes'`.execute(warehouse.db);
      // Sweeps every 2 s rather than every 30 s (worker.sweepSeconds).
      const worker = startPropsync(['worker'], folder.dir, {
        PROPSYNC_WORKER_SWEEP_SECONDS: '2',
      });
      await until(
        'the sweep to close it',
        async () => (await runs())[0]!.status !== 'running',
        60_000,
        worker.output,
      );
      expect((await runs())[0]).toMatchObject({ status: 'abandoned' });
      expect(worker.output()).toMatch(/"event":"run_abandoned"/);
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    } finally {
      sim.setFaults(undefined);
      folder.remove();
    }
  }, 150_000);
});

describe('what enqueue queues (issue 35, items 4 and 6)', () => {
  it('a lane whose job runs is not queued again: no second job beside the running one', async () => {
    const { warehouse, folder } = await world();
    sim.setFaults('slow@1:ms=8000:method=getLeases');
    try {
      const worker = startPropsync(['worker', '--concurrency', '1'], folder.dir);
      const first = await runPropsync(['enqueue', '--stream', 'leases'], { cwd: folder.dir, env: ENV });
      expect(first.code, first.stderr).toBe(0);
      const lanes = Number(/queued: (\d+) lanes/.exec(first.stdout)![1]);
      await until('a lane to run', async () => {
        const { rows } =
          await sql`select 1 from propsync_queue.job where name = 'propsync-units-north' and state = 'active'`.execute(
            warehouse.db,
          );
        return rows.length > 0;
      });
      const again = await runPropsync(['enqueue', '--stream', 'leases'], { cwd: folder.dir, env: ENV });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain(`queued: 0 lanes (${lanes} already waiting on the queue)`);
      const { rows: twice } = await sql`
        select singleton_key from propsync_queue.job where name = 'propsync-units-north' and state < 'completed'
         group by 1 having count(*) > 1`.execute(warehouse.db);
      expect(twice).toEqual([]);
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    } finally {
      sim.setFaults(undefined);
      folder.remove();
    }
  }, 150_000);

  it('enqueue --full behind a waiting incremental is refused, saying why, exit 1', async () => {
    const { folder, runs } = await world();
    try {
      const first = await runPropsync(['enqueue', '--stream', 'properties'], { cwd: folder.dir, env: ENV });
      expect(first.code, first.stderr).toBe(0);
      const full = await runPropsync(['enqueue', '--stream', 'properties', '--full'], {
        cwd: folder.dir,
        env: ENV,
      });
      expect(full.code).toBe(1);
      expect(full.stdout).toMatch(/queued: 0 lanes; 1 not queued: a job of another kind holds them/);
      expect(full.stdout).toMatch(
        /run \d+'s sync job of this lane is waiting.*enqueue this full again once run \d+/,
      );
      const [, refused] = await runs();
      expect(refused).toMatchObject({ status: 'failed' });
    } finally {
      folder.remove();
    }
  }, 120_000);
});

describe('enqueue --wait without a worker (issue 36, item 5)', () => {
  it('says no worker has taken its jobs after the notice delay, and keeps saying it', async () => {
    const { folder } = await world();
    try {
      const waiting = startPropsync(['enqueue', '--stream', 'properties', '--wait'], folder.dir, {
        PROPSYNC_WORKER_WAIT_NOTICE_SECONDS: '2',
      });
      await until(
        'two notices',
        async () =>
          (
            waiting.output().match(/no worker has taken run \d+'s jobs for \d+ s; start propsync worker/g) ??
            []
          ).length >= 2,
        60_000,
      );
      waiting.child.kill('SIGTERM');
      expect(await waiting.exited).toBe(1);
    } finally {
      folder.remove();
    }
  }, 120_000);
});

describe('refused credentials (issue 35, item 7)', () => {
  it('the first refusal ends the run: its lanes end without retries, one failed login in all', async () => {
    const { warehouse, folder, runs } = await world();
    try {
      const before = sim.stats().calls;
      const refusals = () =>
        Object.values(sim.stats().calls).reduce((sum, byStatus) => sum + (byStatus['401'] ?? 0), 0) -
        Object.values(before).reduce((sum, byStatus) => sum + (byStatus['401'] ?? 0), 0);
      const queued = await runPropsync(['enqueue', '--stream', 'leases'], { cwd: folder.dir, env: ENV });
      expect(queued.code, queued.stderr).toBe(0);
      expect(Number(/queued: (\d+) lanes/.exec(queued.stdout)![1])).toBeGreaterThan(1);
      // The worker's password is wrong (changed after the run was planned).
      const worker = startPropsync(['worker', '--concurrency', '1'], folder.dir, {
        WORKER_TEST_PASSWORD: 'not-the-password',
      });
      await until('the run to end', async () => (await runs())[0]!.status !== 'running', 90_000);
      await sleep(3_000);
      expect(refusals()).toBe(1);
      const [run] = await runs();
      expect(run!.status).toBe('failed');
      expect(run!.error).toMatch(/refused account north's credentials.*fix them, then run again/);
      const { rows: dead } =
        await sql`select 1 from propsync_queue.job where name = 'propsync-dead-letters'`.execute(
          warehouse.db,
        );
      expect(dead).toEqual([]);
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    } finally {
      folder.remove();
    }
  }, 150_000);
});

describe('jobs that leave the queue (issue 35, also found)', () => {
  it('a waiting job archived by pg-boss after its retention: the sweep ends its lane and the run', async () => {
    const { warehouse, folder, runs } = await world();
    try {
      const queued = await runPropsync(['enqueue', '--stream', 'properties'], { cwd: folder.dir, env: ENV });
      expect(queued.code, queued.stderr).toBe(0);
      // Past its retention (and not yet due, so that no worker takes it first), and its run long quiet.
      await sql`update propsync_queue.job set keep_until = now() - interval '1 second', start_after = now() + interval '1 hour'
                 where name = 'propsync-units-north'`.execute(warehouse.db);
      await sql`update sync_runs set heartbeat_at = now() - interval '1 hour'`.execute(warehouse.db);
      const worker = startPropsync(['worker'], folder.dir, {
        PROPSYNC_WORKER_SWEEP_SECONDS: '2',
      });
      await until('the sweep to end the run', async () => (await runs())[0]!.status !== 'running', 90_000);
      const [run] = await runs();
      expect(run!.status).toBe('failed');
      expect(run!.error).toMatch(/its job left the queue without being run/);
      const { rows: archived } =
        await sql`select 1 from propsync_queue.archive where name = 'propsync-units-north'`.execute(
          warehouse.db,
        );
      expect(archived.length).toBeGreaterThan(0);
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    } finally {
      folder.remove();
    }
  }, 150_000);

  it('a scheduler killed between claiming a cron time and enqueueing its run: another enqueues it late', async () => {
    const { warehouse, folder } = await world({ streams: { properties: { schedule: '*/3 * * * * *' } } });
    try {
      const crashed = startPropsync(['schedule', '--stream', 'properties'], folder.dir, {
        PROPSYNC_SCHEDULE_MODE: 'queue',
        PROPSYNC_CRASH_AT: 'tick-claimed:1',
        // Its claim may be taken by another scheduler 5 s on, not 60 s (schedule.tickGraceSeconds).
        PROPSYNC_SCHEDULE_TICK_GRACE_SECONDS: '5',
      });
      expect(await crashed.exited).toBe(null);
      const { rows: claims } = await sql<{
        slot: string;
      }>`select data->>'slot' as slot from propsync_queue.job where name = 'propsync-schedule-ticks'`.execute(
        warehouse.db,
      );
      expect(claims).toHaveLength(1);
      const other = startPropsync(['schedule', '--stream', 'properties'], folder.dir, {
        PROPSYNC_SCHEDULE_MODE: 'queue',
      });
      const state = async () =>
        (
          await sql<{
            state: string;
          }>`select state from propsync_queue.job where name = 'propsync-schedule-ticks' and data->>'slot' = ${claims[0]!.slot}`.execute(
            warehouse.db,
          )
        ).rows[0]?.state;
      await until('the lost cron time to be enqueued', async () => (await state()) === 'completed', 120_000);
      expect(other.output()).toMatch(new RegExp(`"event":"tick_taken_late".*${claims[0]!.slot}`));
      other.child.kill('SIGTERM');
      expect(await other.exited).toBe(0);
    } finally {
      folder.remove();
    }
  }, 200_000);
});
