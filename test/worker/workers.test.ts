/**
 * Issue 23: work units on pg-boss, run by real `propsync worker` processes (the CLI from the
 * sources) against two simulators over HTTP, each limited to 5 calls a second, and one
 * warehouse. One worker is killed with SIGKILL in the middle of a unit: the other takes its
 * job again, and both accounts end exact, with no throttled reply; SIGTERM drains a worker
 * (exit 0, its job given back and resumed by another from its checkpoint).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/catalog/tables.js';
import { startSimulator, type AdvanceSummary, type Simulator } from '../../src/simulator/index.js';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';
import { configFile, ENV, killAll, PASSWORD, startPropsync, throttledBy, until } from './support.js';

const TODAY = '2026-06-15';

let north: Simulator<AdvanceSummary>;
let south: Simulator<AdvanceSummary>;
let warehouse: TestDatabase;
let folder: { dir: string; remove(): void };

const openRuns = async (db: Db): Promise<number> =>
  (
    await db
      .selectFrom('sync_runs')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('status', '=', 'running')
      .executeTakeFirstOrThrow()
  ).n;

/** A unit has committed a page and is not done, and `output` shows a job started: a good moment to stop a worker. */
const midUnit = async (db: Db, output: () => string) => {
  const { rows } = await sql<{
    n: number;
  }>`select count(*)::int as n from sync_work_units where status = 'running' and pages > 0`.execute(db);
  return rows[0]!.n > 0 && /job_started/.test(output());
};

async function expectExact(): Promise<void> {
  for (const [account, sim] of [
    ['north', north],
    ['south', south],
  ] as const) {
    const expected = expectedTotals(sim.dataset);
    expect(await warehouseTotals(warehouse.db, expected, { account }), account).toEqual(expected);
  }
}

beforeAll(async () => {
  north = await startSimulator({
    port: 0,
    scale: 'small',
    seed: 11,
    today: TODAY,
    username: 'north-user',
    password: PASSWORD,
    rateLimit: '5/s',
  });
  south = await startSimulator({
    port: 0,
    scale: 'small',
    seed: 29,
    today: TODAY,
    username: 'south-user',
    password: PASSWORD,
    rateLimit: '5/s',
  });
  warehouse = await createTestDatabase();
  folder = scratchFolder({ 'config/propsync.yaml': configFile(warehouse.url, { north, south }) });
});

afterAll(async () => {
  killAll();
  await north?.close();
  await south?.close();
  await warehouse?.drop();
  folder?.remove();
});

describe('propsync worker (issue 23)', () => {
  it('two workers, one killed in the middle of a unit: both accounts exact, nothing throttled; SIGTERM stops the other with exit 0', async () => {
    const enqueued = await runPropsync(['enqueue'], { cwd: folder.dir, env: ENV });
    expect(enqueued.stdout).toMatch(/account north: run \d+ queued: \d+ lanes/);
    expect(enqueued.code).toBe(0);
    const first = startPropsync(['worker', '--concurrency', '2'], folder.dir);
    const second = startPropsync(['worker', '--concurrency', '2'], folder.dir);
    await until('a page of a unit in flight', () => midUnit(warehouse.db, first.output));
    first.child.kill('SIGKILL');
    await first.exited;
    await until('every run ended', async () => (await openRuns(warehouse.db)) === 0, 240_000);
    await expectExact();
    const runs = await warehouse.db
      .selectFrom('sync_runs')
      .select(['account_id', 'status'])
      .orderBy('run_id')
      .execute();
    expect(runs.map((run) => run.status)).toEqual(['succeeded', 'succeeded']);
    expect(throttledBy(north) + throttledBy(south)).toBe(0);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(second.output()).toMatch(/"event":"worker_stopped"/);
  }, 300_000);

  it('SIGTERM drains: the page in flight ends, the job goes back, another worker resumes it from its checkpoint', async () => {
    // A full refresh: every lane again, with pages to page through.
    const enqueued = await runPropsync(['enqueue', '--full'], { cwd: folder.dir, env: ENV });
    expect(enqueued.code).toBe(0);
    const first = startPropsync(['worker', '--concurrency', '2'], folder.dir);
    await until('a page of a unit in flight', () => midUnit(warehouse.db, first.output));
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.output()).toMatch(/"event":"job_released"/);
    const second = startPropsync(['worker', '--concurrency', '2'], folder.dir);
    await until('every run ended', async () => (await openRuns(warehouse.db)) === 0, 240_000);
    expect(second.output()).toMatch(/"event":"work_unit_resumed"/);
    await expectExact();
    const last = await warehouse.db
      .selectFrom('sync_runs')
      .select('status')
      .orderBy('run_id', 'desc')
      .limit(2)
      .execute();
    expect(last.map((run) => run.status)).toEqual(['succeeded', 'succeeded']);
    expect(throttledBy(north) + throttledBy(south)).toBe(0);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 300_000);

  it('enqueue --wait prints the summary sync prints and exits 0; status shows no dead letter', async () => {
    const worker = startPropsync(['worker'], folder.dir);
    const waited = await runPropsync(['enqueue', '--account', 'north', '--wait'], {
      cwd: folder.dir,
      env: ENV,
    });
    expect(waited.stdout).toMatch(/run \d+ \(sync: [^)]+\) succeeded/);
    expect(waited.code).toBe(0);
    const status = await runPropsync(['status', '--json'], { cwd: folder.dir, env: ENV });
    expect(
      JSON.parse(status.stdout).accounts.map((account: { deadLetters: unknown[] }) => account.deadLetters),
    ).toEqual([[], []]);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 200_000);
});
