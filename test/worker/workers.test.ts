/**
 * Issue 23: work units on pg-boss, run by real `propsync worker` processes (the CLI from the
 * sources) against two simulators over HTTP, each limited to 5 calls a second, and one
 * warehouse. One worker is killed with SIGKILL in the middle of a unit: the other takes its
 * job again, and both accounts end exact, with no throttled reply; SIGTERM drains a worker
 * (exit 0); `enqueue --wait` prints the summary and exits as sync does; status shows dead letters.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/catalog/tables.js';
import { startSimulator, type AdvanceSummary, type Simulator } from '../../src/simulator/index.js';
import { PROPSYNC_BIN, runPropsync, scratchFolder } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';

const TODAY = '2026-06-15';
const PASSWORD = 'W0rker-pw-5d2e1a';

let north: Simulator<AdvanceSummary>;
let south: Simulator<AdvanceSummary>;
let warehouse: TestDatabase;
let folder: { dir: string; remove(): void };
const children: ChildProcess[] = [];

function configFile(databaseUrl: string): string {
  const source = { format: 'json', maxClockSkewHours: 0, pageSize: 50, concurrency: 3, retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 200, maxTotalWaitMs: 2_000 } };
  return JSON.stringify({
    database: { url: databaseUrl },
    source,
    accounts: [
      { id: 'north', source: { url: north.url, auth: { type: 'basic', username: 'north-user', passwordEnv: 'WORKER_TEST_PASSWORD' } } },
      { id: 'south', source: { url: south.url, auth: { type: 'basic', username: 'south-user', passwordEnv: 'WORKER_TEST_PASSWORD' } } },
    ],
    metrics: { port: 0 },
    logLevel: 'info',
  });
}

const ENV = { WORKER_TEST_PASSWORD: PASSWORD, PROPSYNC_API_ALLOW_INSECURE_HTTP: 'true' };

/** A `propsync worker` process, its output kept. */
function startWorker(): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [PROPSYNC_BIN, 'worker', '--concurrency', '2'], {
    cwd: folder.dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let text = '';
  child.stdout!.on('data', (chunk) => (text += String(chunk)));
  child.stderr!.on('data', (chunk) => (text += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => text, exited };
}

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

const throttled = (sim: Simulator) => Object.values(sim.stats().calls).reduce((sum, byStatus) => sum + (byStatus['429'] ?? 0), 0);

async function runsOpen(db: Db): Promise<number> {
  const row = await db.selectFrom('sync_runs').select(sql<number>`count(*)::int`.as('n')).where('status', '=', 'running').executeTakeFirstOrThrow();
  return row.n;
}

beforeAll(async () => {
  north = await startSimulator({ port: 0, scale: 'small', seed: 11, today: TODAY, username: 'north-user', password: PASSWORD, rateLimit: '5/s' });
  south = await startSimulator({ port: 0, scale: 'small', seed: 29, today: TODAY, username: 'south-user', password: PASSWORD, rateLimit: '5/s' });
  warehouse = await createTestDatabase();
  folder = scratchFolder({ 'config/propsync.yaml': configFile(warehouse.url) });
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await north?.close();
  await south?.close();
  await warehouse?.drop();
  folder?.remove();
});

describe('propsync worker (issue 23)', () => {
  it('two workers, one killed in the middle of a unit: both accounts exact, nothing throttled; SIGTERM drains the other', async () => {
    const enqueued = await runPropsync(['enqueue'], { cwd: folder.dir, env: ENV });
    expect(enqueued.stderr + enqueued.stdout).toMatch(/run \d+ queued: \d+ lanes/);
    expect(enqueued.code).toBe(0);
    const first = startWorker();
    const second = startWorker();
    // A unit of the first worker that has committed a page and is not done: kill it there.
    await until('a page of a unit in flight', async () => {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from sync_work_units where status = 'running' and pages > 0`.execute(warehouse.db);
      return rows[0]!.n > 0 && /job_started/.test(first.output());
    });
    first.child.kill('SIGKILL');
    await first.exited;
    await until('every run ended', async () => (await runsOpen(warehouse.db)) === 0, 240_000);
    for (const [account, sim] of [['north', north], ['south', south]] as const) {
      const expected = expectedTotals(sim.dataset);
      expect(await warehouseTotals(warehouse.db, expected, { account }), account).toEqual(expected);
    }
    const runs = await warehouse.db.selectFrom('sync_runs').select(['account_id', 'status']).orderBy('run_id').execute();
    expect(runs.map((run) => run.status)).toEqual(['succeeded', 'succeeded']);
    expect(throttled(north) + throttled(south)).toBe(0);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(second.output()).toMatch(/worker_stopped/);
  }, 300_000);

  it('enqueue --wait prints the summary sync prints and exits 0; status shows no dead letter', async () => {
    const worker = startWorker();
    const waited = await runPropsync(['enqueue', '--account', 'north', '--wait'], { cwd: folder.dir, env: ENV });
    expect(waited.stdout).toMatch(/run \d+ \(sync: [^)]+\) succeeded/);
    expect(waited.code).toBe(0);
    const status = await runPropsync(['status', '--json'], { cwd: folder.dir, env: ENV });
    expect(JSON.parse(status.stdout).accounts.map((account: { deadLetters: unknown[] }) => account.deadLetters)).toEqual([[], []]);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 200_000);
});
