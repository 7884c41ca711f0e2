import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchFolder } from '../support/cli.js';
import { cutMidTransaction, pagesCommitted, slowCheckpoints } from '../support/warehouse-cuts.js';
import { jsonLines, startCliWorld, startPropsync, waitFor, type CliWorld } from '../cli/support.js';

let world: CliWorld;
let folder: ReturnType<typeof scratchFolder>;
beforeAll(async () => {
  world = await startCliWorld();
  folder = scratchFolder({
    'leases.yaml':
      'streams:\n  leases:\n    schedule: "*/2 * * * * *"\n  invoices:\n    enabled: false\n  properties:\n    enabled: false\nmetrics:\n  port: 0\n',
  });
  await slowCheckpoints(world.database.db);
});
afterAll(async () => {
  await world?.close();
  folder?.remove();
});

async function runs() {
  return world.database.db
    .selectFrom('sync_runs')
    .select(['run_id', 'status', 'started_at', 'finished_at'])
    .orderBy('run_id')
    .execute();
}

describe('propsync schedule while its warehouse connections are cut', () => {
  it('stays up, rides through the cuts, and the next runs succeed; SIGTERM still stops it cleanly', async () => {
    const scheduler = startPropsync(['--config', 'leases.yaml', 'schedule'], {
      env: { ...world.env, PROPSYNC_PAGE_SIZE: '20' },
      cwd: folder.dir,
    });
    let lastCut = new Date();
    try {
      for (let cut = 0; cut < 3; cut++) {
        const before = await pagesCommitted(world.database.db);
        await waitFor(
          async () => (await pagesCommitted(world.database.db)) > before,
          40_000,
          'a page committed by a scheduled run',
        );
        expect(await cutMidTransaction(world.database.db, scheduler)).toBeGreaterThan(0);
        lastCut = new Date();
      }
      // A run that started after the last cut succeeds: the next ticks run.
      await waitFor(
        async () => (await runs()).some((run) => run.status === 'succeeded' && run.started_at > lastCut),
        60_000,
        'a run after the cuts that succeeded',
      );
      expect(scheduler.child.exitCode, scheduler.stderr().slice(-2000)).toBeNull();
    } finally {
      scheduler.child.kill('SIGTERM');
    }
    const exit = await scheduler.exited;
    expect(exit.code, scheduler.stderr().slice(-2000)).toBe(0);
    const lines = jsonLines(scheduler.stderr());
    expect(lines.filter((line) => line.event === 'stream_lock_lost').length).toBeGreaterThanOrEqual(1);
    expect(lines.some((line) => line.level === 60)).toBe(false);
    expect((await runs()).every((run) => run.status !== 'running' && run.status !== 'failed')).toBe(true);
  }, 150_000);
});
