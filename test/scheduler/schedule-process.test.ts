import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/warehouse/embedded.js';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { jsonLines, startCliWorld, startPropsync, waitFor, type CliWorld } from '../cli/support.js';

let world: CliWorld;
let folder: ReturnType<typeof scratchFolder>;
beforeAll(async () => {
  world = await startCliWorld();
  folder = scratchFolder({
    'both.yaml':
      'streams:\n  leases:\n    schedule: "*/2 * * * * *"\n  invoices:\n    schedule: "*/3 * * * * *"\n  properties:\n    enabled: false\n  units:\n    enabled: false\n',
    'leases.yaml':
      'streams:\n  leases:\n    schedule: "*/2 * * * * *"\n  invoices:\n    enabled: false\n  properties:\n    enabled: false\n  units:\n    enabled: false\nmetrics:\n  port: 0\n',
  });
});
afterAll(async () => {
  await world?.close();
  folder?.remove();
});

interface RunRow {
  run_id: number;
  streams: string[];
  status: string;
  started_at: Date;
  finished_at: Date | null;
}

async function runs(): Promise<RunRow[]> {
  return world.database.db
    .selectFrom('sync_runs')
    .select(['run_id', 'streams', 'status', 'started_at', 'finished_at'])
    .orderBy('run_id')
    .execute();
}

describe('propsync schedule, as child processes', () => {
  it('two schedulers never run the same stream at once; the loser skips; SIGTERM stops both cleanly', async () => {
    const port = await freePort();
    const a = startPropsync(['--config', 'both.yaml', 'schedule'], {
      env: { ...world.env, PROPSYNC_METRICS_PORT: String(port) },
      cwd: folder.dir,
    });
    const b = startPropsync(['--config', 'both.yaml', 'schedule'], {
      env: { ...world.env, PROPSYNC_METRICS_PORT: '0' },
      cwd: folder.dir,
    });
    try {
      await waitFor(
        async () => {
          const finished = (await runs()).filter((run) => run.finished_at);
          return ['leases', 'invoices'].every(
            (stream) => finished.filter((run) => run.streams.includes(stream)).length >= 3,
          );
        },
        45_000,
        'three finished runs of each stream',
      );
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      const body = (await health.json()) as {
        ok: boolean;
        jobs: { account: string; stream: string; schedule: string }[];
      };
      expect(body.ok).toBe(true);
      expect(body.jobs.map((job) => [job.account, job.stream])).toEqual([
        ['default', 'leases'],
        ['default', 'invoices'],
      ]);
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      // A either ran leases or skipped it for the other scheduler: one of the two counters is there.
      expect(metrics).toMatch(/propsync_runs_(total|skipped_total)\{account="default",stream="leases"/);
      expect(metrics).toContain('propsync_call_budget_left{account="default"}');
    } finally {
      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
    }
    const stopped = Date.now();
    const [exitA, exitB] = await Promise.all([a.exited, b.exited]);
    expect(exitA.code, a.stderr()).toBe(0);
    expect(exitB.code, b.stderr()).toBe(0);
    expect(Math.max(exitA.at, exitB.at) - stopped).toBeLessThan(30_000);

    const all = await runs();
    expect(all.every((run) => run.finished_at !== null && run.status !== 'running')).toBe(true);
    for (const stream of ['leases', 'invoices']) {
      const mine = all
        .filter((run) => run.streams.includes(stream))
        .sort((x, y) => x.started_at.getTime() - y.started_at.getTime());
      for (let i = 1; i < mine.length; i++)
        expect(mine[i].started_at.getTime(), `${stream} run ${mine[i].run_id}`).toBeGreaterThanOrEqual(
          mine[i - 1].finished_at!.getTime(),
        );
    }
    const lines = [...jsonLines(a.stderr()), ...jsonLines(b.stderr())];
    expect(lines.some((line) => line.event === 'run_skipped' && line.reason === 'locked')).toBe(true);
    expect(lines.filter((line) => line.event === 'scheduler_stopped')).toHaveLength(2);
    expect(a.stderr() + b.stderr()).not.toContain(world.env.PROPSYNC_API_PASSWORD);
  }, 90_000);

  it('SIGTERM during a run exits within 30 s, and the next run completes the work with nothing lost', async () => {
    // A warehouse and simulator of its own: the first sync of the stream is the one interrupted.
    await world.close();
    world = await startCliWorld();
    // Slow pages of 20 leases: a run takes a while, so the signal lands mid-run.
    world.sim.setFaults('slow:ms=700:method=getLeases');
    const scheduler = startPropsync(['--config', 'leases.yaml', 'schedule'], {
      env: { ...world.env, PROPSYNC_PAGE_SIZE: '20' },
      cwd: folder.dir,
    });
    let runId = 0;
    try {
      await waitFor(
        async () => {
          const running = (await runs()).find((run) => run.status === 'running');
          if (!running) return false;
          runId = running.run_id;
          const pages = await world.database.db
            .selectFrom('sync_work_units')
            .select(({ fn }) => fn.sum<number>('pages').as('pages'))
            .where('run_id', '=', runId)
            .executeTakeFirst();
          return Number(pages?.pages ?? 0) >= 2;
        },
        40_000,
        'a scheduled run with committed pages',
      );
    } finally {
      scheduler.child.kill('SIGTERM');
    }
    const stopped = Date.now();
    const exit = await scheduler.exited;
    expect(exit.code, scheduler.stderr()).toBe(0);
    expect(exit.at - stopped).toBeLessThan(30_000);
    const interrupted = (await runs()).find((run) => run.run_id === runId)!;
    expect(interrupted.status).toBe('interrupted');
    expect(
      await world.database.db
        .selectFrom('leases')
        .select('lease_id')
        .execute()
        .then((rows) => rows.length),
    ).toBeLessThan(world.sim.dataset.leases.length);

    world.sim.setFaults(undefined);
    // The next run of the same deployment (same configuration, page size included).
    const next = await runPropsync(['sync', '--stream', 'leases'], {
      env: { ...world.env, PROPSYNC_PAGE_SIZE: '20' },
    });
    expect(next.code, next.stderr).toBe(0);
    const leases = await world.database.db
      .selectFrom('leases')
      .select('lease_id')
      .where('deleted_at', 'is', null)
      .orderBy('lease_id')
      .execute();
    expect(leases.map((row) => row.lease_id)).toEqual(
      world.sim.dataset.leases.map((lease) => lease._id).sort((x, y) => x - y),
    );
  }, 90_000);
});
