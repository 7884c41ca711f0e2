import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROPSYNC_BIN } from '../support/cli.js';
import { SIM_PASSWORD, SIM_USER, startSyncHarness, type SyncHarness } from '../support/sync-harness.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';

const CLI = PROPSYNC_BIN;

/** Runs `propsync sync` as a child process; kills it at a crash point or after `killAfterMs`. */
function runSyncProcess(
  h: SyncHarness,
  options: { crashAt?: string; killAfterMs?: number } = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, 'sync'], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: h.warehouse.url,
        PROPSYNC_API_URL: h.sim.url,
        PROPSYNC_API_USERNAME: SIM_USER,
        PROPSYNC_API_PASSWORD: SIM_PASSWORD,
        PROPSYNC_MAX_CLOCK_SKEW_HOURS: '0',
        // Small pages: many transactions, so the kills land at many different places.
        PROPSYNC_PAGE_SIZE: '25',
        PROPSYNC_CONCURRENCY: '2',
        PROPSYNC_LOG_LEVEL: 'warn',
        ...(options.crashAt ? { PROPSYNC_CRASH_AT: options.crashAt } : {}),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer =
      options.killAfterMs === undefined
        ? undefined
        : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stderr });
    });
  });
}

/** A small seeded generator, so that a failing run of this test can be replayed. */
function* seededDraws(seed: number): Generator<number> {
  let state = seed;
  for (;;) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    yield state >>> 8;
  }
}

describe('a sync killed with SIGKILL at any point, then run again', () => {
  let h: SyncHarness;
  beforeAll(async () => {
    h = await startSyncHarness({ scale: 'small', seed: 33, today: '2026-04-14' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('ends with the warehouse equal to the source: nothing lost, nothing doubled', async () => {
    const kills: string[] = [];
    // Crash points drawn from a seeded sequence: inside a page's transaction (rows written, not
    // committed), right after a commit, mid-page (fetched, not loaded), right after a work unit
    // was recorded; each the n-th time the process reaches it.
    const draws = seededDraws(20261120);
    const kinds = ['mid-commit', 'after-commit', 'page-fetched', 'unit-started'];
    for (let attempt = 0; attempt < 16 && kills.length < 12; attempt++) {
      // The k-th use of a kind stops at its (2k+1)-th or (2k+2)-th passage: no two kills alike.
      const crashAt = `${kinds[attempt % kinds.length]}:${2 * Math.floor(attempt / kinds.length) + 1 + ((draws.next().value as number) % 2)}`;
      const run = await runSyncProcess(h, { crashAt });
      if (run.signal === 'SIGKILL') kills.push(crashAt);
      else expect(run.code, run.stderr).toBe(0); // the run finished before reaching the point
    }
    expect(new Set(kills).size).toBeGreaterThanOrEqual(10);
    // And wherever a few seeded instants fall (during start-up, a call, a commit, or after the end).
    for (let i = 0; i < 3; i++)
      await runSyncProcess(h, { killAfterMs: 1500 + ((draws.next().value as number) % 3000) });
    const last = await runSyncProcess(h);
    expect(last.code, last.stderr).toBe(0);

    const expected = expectedTotals(h.sim.dataset);
    expect(await warehouseTotals(h.warehouse.db, expected)).toEqual(expected);
    // Each killed run was closed as abandoned by the next run (those killed before recording a run left none).
    const { rows } = await sql<{ running: number; abandoned: number }>`
      select count(*) filter (where status = 'running')::int as running, count(*) filter (where status = 'abandoned')::int as abandoned from sync_runs`.execute(
      h.warehouse.db,
    );
    expect(rows[0].running).toBe(0);
    expect(rows[0].abandoned).toBeGreaterThanOrEqual(kills.length);
    expect(rows[0].abandoned).toBeLessThanOrEqual(kills.length + 3);

    // The source moves on; kills during the incremental runs lose nothing either.
    h.sim.advance(3);
    for (const crashAt of ['mid-commit:2', 'after-commit:2']) await runSyncProcess(h, { crashAt });
    const again = await runSyncProcess(h);
    expect(again.code, again.stderr).toBe(0);
    const after = expectedTotals(h.sim.dataset);
    expect(await warehouseTotals(h.warehouse.db, after)).toEqual(after);
  }, 600_000);
});
