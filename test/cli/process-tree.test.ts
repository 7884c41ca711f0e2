/**
 * The `propsync` command as an operator, a service manager or a container runtime starts and
 * stops it: `bin/propsync.mjs` run itself (its first line starts node) over a dist/ compiled from
 * these sources, in a process group of its own, against the simulator over HTTP and Postgres.
 * One process lives and dies as one: kill -9 of its pid leaves nothing running, and a stop signal
 * to the pid or to the whole group stops it once, after the page in flight.
 */
import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROPSYNC_BIN, scratchFolder } from '../support/cli.js';
import {
  jsonLines,
  startCliWorld,
  startPropsync,
  waitFor,
  type CliWorld,
  type RunningCli,
} from './support.js';

/** Pids of the processes of group `pgid` that still run (zombies, already dead, left out). */
async function groupMembers(pgid: number): Promise<number[]> {
  const { stdout } = await promisify(execFile)('ps', ['-e', '-o', 'pid=,pgid=,stat=']);
  return stdout
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, group, state]) => Number(group) === pgid && !state.startsWith('Z'))
    .map(([pid]) => Number(pid));
}

/** The test run's build of the command, and the folder it was built into (its package.json, node_modules). */
const bin = PROPSYNC_BIN;
const built = dirname(dirname(bin));
let folder: ReturnType<typeof scratchFolder>;
let world: CliWorld;
let started: RunningCli[] = [];

beforeAll(() => {
  folder = scratchFolder({
    'leases.yaml':
      'streams:\n  leases:\n    schedule: "*/2 * * * * *"\n  invoices:\n    enabled: false\n  properties:\n    enabled: false\nmetrics:\n  port: 0\n',
  });
});
afterAll(() => {
  folder?.remove();
});

beforeEach(async () => {
  // A warehouse and simulator per test: each signal lands in a first sync, mid-run.
  world = await startCliWorld();
  // Slow pages of 20 leases, so that a run is in progress when the signal comes.
  world.sim.setFaults('slow:ms=700:method=getLeases');
});
afterEach(async () => {
  for (const cli of started) {
    try {
      process.kill(-cli.child.pid!, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
  }
  started = [];
  await world?.close();
});

/** `propsync ARGS` started as a service manager does: the command itself, in a process group of its own. */
function propsync(args: string[]): RunningCli {
  const cli = startPropsync(args, {
    env: { ...world.env, PROPSYNC_PAGE_SIZE: '20' },
    cwd: folder.dir,
    bin,
    exec: true,
    detached: true,
  });
  started.push(cli);
  return cli;
}

/** Waits for a run in progress with at least one committed page; its id. */
async function runInProgress(): Promise<number> {
  let runId = 0;
  await waitFor(
    async () => {
      const run = await world.database.db
        .selectFrom('sync_runs')
        .select('run_id')
        .where('status', '=', 'running')
        .executeTakeFirst();
      if (!run) return false;
      runId = run.run_id;
      const pages = await world.database.db
        .selectFrom('sync_work_units')
        .select(({ fn }) => fn.sum<number>('pages').as('pages'))
        .where('run_id', '=', runId)
        .executeTakeFirst();
      return Number(pages?.pages ?? 0) >= 1;
    },
    40_000,
    'a run with a committed page',
  );
  return runId;
}

async function runRow(runId: number) {
  return world.database.db
    .selectFrom('sync_runs')
    .select(['status', 'finished_at'])
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
}

const signalLines = (cli: RunningCli) => jsonLines(cli.stderr()).filter((line) => line.event === 'signal');

describe('propsync as one process tree', () => {
  it('kill -9 of its pid leaves no process running, and the next sync takes the stream locks', async () => {
    const sync = propsync(['sync', '--stream', 'leases']);
    const pid = sync.child.pid!;
    await runInProgress();
    process.kill(pid, 'SIGKILL');
    await waitFor(
      async () => (await groupMembers(pid)).length === 0,
      2_000,
      'every process of propsync to end',
    );
    expect((await sync.exited).code).toBeNull();

    world.sim.setFaults(undefined);
    const next = propsync(['sync', '--stream', 'leases']);
    expect((await next.exited).code, next.stderr()).toBe(0);
    expect(next.stdout()).toMatch(/run \d+ \(sync: leases\) succeeded/);
  }, 90_000);

  const stops: { name: string; signal: NodeJS.Signals; to: 'group' | 'pid'; twice?: boolean }[] = [
    { name: 'SIGTERM to the whole group (systemd, timeout, kill -- -PGID)', signal: 'SIGTERM', to: 'group' },
    { name: 'SIGHUP to the whole group (a closed terminal)', signal: 'SIGHUP', to: 'group' },
    { name: 'SIGINT to the whole group (Ctrl-C)', signal: 'SIGINT', to: 'group' },
    { name: 'SIGTERM to the pid (docker stop, kill PID)', signal: 'SIGTERM', to: 'pid' },
    {
      name: 'SIGTERM to the pid twice within a second (a wrapper passing on what the group got)',
      signal: 'SIGTERM',
      to: 'pid',
      twice: true,
    },
  ];
  for (const stop of stops) {
    it(`${stop.name} stops once after the page in flight: run interrupted, exit 1, one log line`, async () => {
      const sync = propsync(['sync', '--stream', 'leases']);
      const pid = sync.child.pid!;
      const runId = await runInProgress();
      const send = () => {
        try {
          process.kill(stop.to === 'group' ? -pid : pid, stop.signal);
        } catch (error) {
          // The second of two signals may find the process already gone: it stopped in time.
          if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
        }
      };
      send();
      if (stop.twice) setTimeout(send, 100);
      const exit = await sync.exited;
      expect(exit.code, sync.stderr()).toBe(1);
      expect(signalLines(sync)).toEqual([
        expect.objectContaining({
          signal: stop.signal,
          msg: expect.stringContaining('after the page in flight'),
        }),
      ]);
      const row = await runRow(runId);
      expect(row.status).toBe('interrupted');
      expect(row.finished_at).not.toBeNull();
      expect(sync.stdout()).toContain(`run ${runId} (sync: leases) interrupted`);
      expect(await groupMembers(pid)).toEqual([]);
    }, 90_000);
  }

  it('a signal sent again more than a second later stops at once', async () => {
    // The leases table locked meanwhile: the sync's work waits in Postgres, and so does a graceful stop.
    world.sim.setFaults(undefined);
    const blocker = new pg.Client({ connectionString: world.database.url });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query('lock table leases in access exclusive mode');
      const sync = propsync(['sync', '--stream', 'leases']);
      const pid = sync.child.pid!;
      // Asked outside the blocker's transaction, whose view of pg_stat_activity stays as first read.
      await waitFor(
        async () => {
          const { rows } =
            await sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(
              world.database.db,
            );
          return rows.length > 0;
        },
        40_000,
        'the sync to wait for the lock',
      );
      process.kill(-pid, 'SIGINT');
      await waitFor(() => signalLines(sync).length === 1, 10_000, 'the first signal to be taken');
      await new Promise((resolveWait) => setTimeout(resolveWait, 1_500));
      process.kill(-pid, 'SIGINT');
      const exit = await sync.exited;
      expect(exit.code).toBe(1);
      expect(signalLines(sync)).toEqual([
        expect.objectContaining({ signal: 'SIGINT' }),
        expect.objectContaining({ signal: 'SIGINT', again: true }),
      ]);
      // No graceful end: no run summary, no run_finished line.
      expect(sync.stdout()).toBe('');
      expect(jsonLines(sync.stderr()).some((line) => line.event === 'run_finished')).toBe(false);
    } finally {
      await blocker.end();
    }
  }, 90_000);

  /** `npm run propsync -- ARGS` from the built folder (its package.json's script), in a process group of its own. */
  function throughNpm(args: string[]): RunningCli {
    const cli = startPropsync(['run', 'propsync', '--', ...args], {
      env: { ...world.env, PROPSYNC_PAGE_SIZE: '20' },
      cwd: built,
      bin: 'npm',
      exec: true,
      detached: true,
    });
    started.push(cli);
    return cli;
  }

  it("Ctrl-C through `npm run propsync -- sync` exits with the documented 1, not npm's 130", async () => {
    const sync = throughNpm(['sync', '--stream', 'leases']);
    const runId = await runInProgress();
    process.kill(-sync.child.pid!, 'SIGINT');
    const exit = await sync.exited;
    expect(exit.code, sync.stderr()).toBe(1);
    expect((await runRow(runId)).status).toBe('interrupted');
    expect(await groupMembers(sync.child.pid!)).toEqual([]);
  }, 90_000);

  it('stopping `npm run propsync -- simulate` (SIGTERM to npm alone) stops the simulator too', async () => {
    const simulate = throughNpm(['simulate', '--port', '0', '--scale', 'small']);
    await waitFor(() => /listening on (\S+)/.test(simulate.stdout()), 60_000, 'the simulator to listen');
    const url = /listening on (\S+)/.exec(simulate.stdout())![1];
    expect((await fetch(`${url}/_sim/stats`)).ok).toBe(true);
    process.kill(simulate.child.pid!, 'SIGTERM');
    const exit = await simulate.exited;
    expect(exit.code, simulate.stderr()).toBe(0);
    await waitFor(
      async () => (await groupMembers(simulate.child.pid!)).length === 0,
      5_000,
      'the simulator to end with npm',
    );
    await expect(fetch(`${url}/_sim/stats`)).rejects.toThrow();
  }, 90_000);

  it('propsync schedule stops gracefully on SIGHUP: the run in flight interrupted, exit 0', async () => {
    const scheduler = propsync(['--config', 'leases.yaml', 'schedule']);
    const pid = scheduler.child.pid!;
    const runId = await runInProgress();
    process.kill(-pid, 'SIGHUP');
    const exit = await scheduler.exited;
    expect(exit.code, scheduler.stderr()).toBe(0);
    const lines = jsonLines(scheduler.stderr());
    expect(lines.find((line) => line.event === 'scheduler_stopping')).toMatchObject({ signal: 'SIGHUP' });
    expect(lines.some((line) => line.event === 'scheduler_stopped')).toBe(true);
    expect((await runRow(runId)).status).toBe('interrupted');
    expect(await groupMembers(pid)).toEqual([]);
  }, 90_000);
});
