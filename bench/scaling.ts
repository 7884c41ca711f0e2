/**
 * The scaling bench of issue 23 (`npm run bench -- --scaling`, or `node bin/run-ts.mjs
 * bench/scaling.ts`): the built CLI (`npm run build` first) against in-process simulators and a
 * fresh database per case.
 *
 * 1. medium, no rate limits: one `propsync sync` against two `propsync worker`s (enqueue, then
 *    the workers) on the same data set;
 * 2. twenty small accounts, each limited to 5 calls a second: one, two and four workers.
 *
 * Prints wall time, calls, calls per second and the 429s the simulators sent.
 *
 * `--series` runs the nightly series of issue 41 instead (bench/scaling-series.ts).
 */
import { rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { dropDatabase, withDatabase } from '../src/warehouse/databases.js';
import { PASSWORD, prepare, query, runCli, startCli, throttledOf, TODAY } from './scaling-support.js';

/** Page size of the twenty small accounts: small pages, so that each account has calls enough to meet its limit. */
const SMALL_PAGE_SIZE = 100;
const note = (line: string) => process.stderr.write(`[scaling] ${line}\n`);

interface Case {
  name: string;
  wallMs: number;
  /** Of the workers' cases: how long `propsync enqueue` took (planning every account's run). */
  enqueueMs?: number;
  calls: number;
  throttled: number;
  status: string;
}

/** Sums of the runs of a database: calls, and the statuses. */
async function runTotals(url: string): Promise<{ calls: number; status: string }> {
  const rows = await query<{ calls: number; status: string }>(
    url,
    `select sum(calls)::int as calls, string_agg(distinct status, ',') as status from sync_runs`,
  );
  return { calls: rows[0]?.calls ?? 0, status: rows[0]?.status ?? 'none' };
}

async function syncCase(adminUrl: string, name: string, sims: Simulator[]): Promise<Case> {
  const { url, dir } = await prepare(adminUrl, name, sims);
  const before = throttledOf(sims);
  const started = Date.now();
  const run = await runCli(['sync'], dir);
  const wallMs = Date.now() - started;
  if (run.code !== 0) note(`sync exited ${run.code}`);
  const totals = await runTotals(url);
  rmSync(dir, { recursive: true, force: true });
  await dropDatabase(adminUrl, name);
  const result = { name: 'one sync', wallMs, ...totals, throttled: throttledOf(sims) - before };
  note(JSON.stringify(result));
  return result;
}

async function workersCase(
  adminUrl: string,
  name: string,
  sims: Simulator[],
  workers: number,
  label: string,
  pageSize?: number,
): Promise<Case> {
  const { url, dir } = await prepare(adminUrl, name, sims, pageSize);
  const before = throttledOf(sims);
  const started = Date.now();
  const enqueued = await runCli(['enqueue'], dir);
  if (enqueued.code !== 0) throw new Error(`enqueue exited ${enqueued.code}: ${enqueued.output}`);
  const enqueueMs = Date.now() - started;
  const running = Array.from({ length: workers }, () => startCli(['worker', '--concurrency', '4'], dir));
  let wallMs: number;
  try {
    for (;;) {
      const open = await query<{ n: number }>(
        url,
        `select count(*)::int as n from sync_runs where status = 'running'`,
      );
      if (open[0]!.n === 0) break;
      await sleep(500);
    }
    wallMs = Date.now() - started;
  } finally {
    for (const worker of running) worker.child.kill('SIGTERM');
    await Promise.all(running.map((worker) => worker.done));
  }
  const totals = await runTotals(url);
  rmSync(dir, { recursive: true, force: true });
  await dropDatabase(adminUrl, name);
  const result = { name: label, wallMs, enqueueMs, ...totals, throttled: throttledOf(sims) - before };
  note(JSON.stringify(result));
  return result;
}

function table(title: string, cases: Case[]): string {
  const seconds = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`);
  const lines = cases.map(
    (c) =>
      `| ${c.name} | ${seconds(c.wallMs)} | ${seconds(c.enqueueMs)} | ${c.calls} | ${(c.calls / (c.wallMs / 1000)).toFixed(1)} | ${c.throttled} | ${c.status} |`,
  );
  return [
    `${title}`,
    '',
    '| case | wall | of it, enqueue | calls | calls/s | 429s | run statuses |',
    '|---|---|---|---|---|---|---|',
    ...lines,
    '',
  ].join('\n');
}

/** Runs both parts and prints their tables. */
export async function benchScaling(): Promise<void> {
  const adminUrl = withDatabase(
    process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    'postgres',
  );
  note('medium, no rate limits: one sync, then two workers');
  const medium = await startSimulator({
    port: 0,
    scale: 'medium',
    seed: 1,
    today: TODAY,
    username: 'bench',
    password: PASSWORD,
    rateLimit: 'off',
  });
  const first: Case[] = [];
  try {
    first.push(await syncCase(adminUrl, 'propsync_bench_scaling', [medium]));
    first.push(await workersCase(adminUrl, 'propsync_bench_scaling', [medium], 2, 'two workers'));
  } finally {
    await medium.close();
  }
  process.stdout.write(`${table('medium, no rate limits (one account)', first)}\n`);
  note('twenty small accounts at 5 calls/s each: one, two and four workers');
  const smalls: Simulator[] = [];
  for (let i = 0; i < 20; i++)
    smalls.push(
      await startSimulator({
        port: 0,
        scale: 'small',
        seed: 100 + i,
        today: TODAY,
        username: 'bench',
        password: PASSWORD,
        rateLimit: '5/s',
      }),
    );
  const second: Case[] = [];
  try {
    for (const workers of [1, 2, 4])
      second.push(
        await workersCase(
          adminUrl,
          'propsync_bench_scaling',
          smalls,
          workers,
          `${workers} worker${workers > 1 ? 's' : ''}`,
          SMALL_PAGE_SIZE,
        ),
      );
  } finally {
    await Promise.all(smalls.map((sim) => sim.close()));
  }
  process.stdout.write(
    `${table(`twenty small accounts, 5 calls/s each, pages of ${SMALL_PAGE_SIZE}`, second)}\n`,
  );
  process.stdout.write(
    `${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, node ${process.version}; workers run 4 lanes at once each; wall of the workers' cases from enqueue to the last run's end\n`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  (process.argv.includes('--series')
    ? import('./scaling-series.js').then((series) => series.benchNightlySeries())
    : benchScaling()
  ).catch((error: Error) => {
    process.stderr.write(`scaling bench failed: ${error.stack ?? error.message}\n`);
    process.exit(1);
  });
}
