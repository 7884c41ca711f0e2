/**
 * Issue 35 item 1: a worker spends the whole daily budget, counting each call once. The run is
 * queued by `enqueue` (its row belongs to that process) and run by a real `propsync worker`
 * against the simulator over HTTP; the gate's row, the run's calls, `status` and the calls the
 * simulator saw all agree on the budget.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type AdvanceSummary, type Simulator } from '../../src/simulator/index.js';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { configFile, ENV, killAll, PASSWORD, startPropsync, until } from './support.js';

const BUDGET = 30;

let sim: Simulator<AdvanceSummary>;
let warehouse: TestDatabase;
let folder: { dir: string; remove(): void };

const callsSeen = (): number =>
  Object.values(sim.stats().calls).reduce(
    (sum, byStatus) => sum + Object.values(byStatus).reduce((a, b) => a + b, 0),
    0,
  );

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    scale: 'small',
    seed: 5,
    today: '2026-06-15',
    username: 'north-user',
    password: PASSWORD,
  });
  warehouse = await createTestDatabase();
  const config = JSON.parse(configFile(warehouse.url, { north: sim })) as {
    source: Record<string, unknown>;
  };
  config.source.dailyCallBudget = BUDGET;
  config.source.pageSize = 10;
  folder = scratchFolder({ 'config/propsync.yaml': JSON.stringify(config) });
});

afterAll(async () => {
  killAll();
  await sim?.close();
  await warehouse?.drop();
  folder?.remove();
});

it('a queued full run stops at exactly the daily budget: every call counted once, none refused booked', async () => {
  const enqueued = await runPropsync(['enqueue', '--stream', 'leases', '--full'], {
    cwd: folder.dir,
    env: ENV,
  });
  expect(enqueued.code).toBe(0);
  const worker = startPropsync(['worker', '--concurrency', '2'], folder.dir);
  const run = await until('the run ended', async () => {
    const row = await warehouse.db
      .selectFrom('sync_runs')
      .select(['status', 'calls'])
      .where('status', '!=', 'running')
      .executeTakeFirst();
    return row;
  });
  worker.child.kill('SIGTERM');
  expect(await worker.exited).toBe(0);
  expect(run.status).toBe('budget_exhausted');
  const { rows } = await sql<{ spent: number }>`select spent from source_budget`.execute(warehouse.db);
  expect(rows.map((row) => row.spent)).toEqual([BUDGET]);
  expect(callsSeen()).toBe(BUDGET);
  expect(run.calls).toBe(BUDGET);
  const status = await runPropsync(['status'], { cwd: folder.dir, env: ENV });
  expect(status.stdout).toContain(`calls today: ${BUDGET} of ${BUDGET} (0 left)`);
}, 200_000);
