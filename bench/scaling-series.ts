/**
 * The nightly series of issue 41 item 4 (`node bin/run-ts.mjs bench/scaling.ts --series
 * [--accounts 5,20,80] [--before OTHER/bin/propsync.mjs]`): 5, 20 and 80 small accounts, each its
 * own simulator limited to 5 calls a second, loaded whole by one `propsync sync`; then each
 * simulator moves one day and their nightly incremental runs through two workers (`propsync
 * enqueue`, two `propsync worker`s). Per case: wall (enqueue to the last refresh's end) and warehouse
 * CPU per account, refresh time per run, calls and 429s. `--before` runs the same cases with another
 * build (today's figure, beside).
 *
 * Warehouse CPU: the user and system time of the Postgres backends serving the bench's database,
 * sampled from /proc every 100 ms while the workers run (a backend that lives less than that is
 * missed): Linux, and Postgres on this machine.
 */
import { readFileSync, rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { dropDatabase, withDatabase } from '../src/warehouse/databases.js';
import { PASSWORD, prepare, query, runCli, startCli, throttledOf, TODAY } from './scaling-support.js';

const DATABASE = 'propsync_bench_series';
const note = (line: string) => process.stderr.write(`[series] ${line}\n`);

interface SeriesCase {
  build: string;
  accounts: number;
  wallMs: number;
  cpuMs: number;
  runs: number;
  refreshMs: number[];
  coalesced: number;
  calls: number;
  throttled: number;
  status: string;
  /** The full load before the night: its exit code and the accounts it could not run (`account_not_run`). */
  load: { code: number | null; notRun: number };
}

/** CPU ms (user + system) of process `pid`, or undefined once it is gone. */
function cpuMsOf(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime: fields 14 and 15 of stat, 12 and 13 after the command's name.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** Samples the CPU of the backends of `url`'s database until stopped; returns their sum. */
function sampleWarehouseCpu(url: string): { stop: () => Promise<number> } {
  const seen = new Map<number, { first: number; last: number }>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const rows = await query<{ pid: number }>(
        url,
        `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
      ).catch(() => []);
      for (const { pid } of rows) {
        const ms = cpuMsOf(pid);
        if (ms === undefined) continue;
        const known = seen.get(pid);
        // A backend met for the first time counts from its start: its CPU so far is this case's.
        if (known) known.last = ms;
        else seen.set(pid, { first: 0, last: ms });
      }
      await sleep(100);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return [...seen.values()].reduce((sum, { first, last }) => sum + (last - first), 0);
    },
  };
}

/** The JSON lines of a worker's output that end a refresh, with when they arrived. */
function refreshEvents(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('reporting_refresh'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.event === 'reporting_refreshed' || line.event === 'reporting_refresh_coalesced');
}

async function nightlyCase(adminUrl: string, sims: Simulator[], build: string, command?: string) {
  const { url, dir } = await prepare(adminUrl, DATABASE, sims, undefined, 'info', command);
  try {
    note(`${build}, ${sims.length} accounts: full load`);
    const load = await runCli(['sync'], dir, command);
    const notRun = load.output
      .split('\n')
      .filter((line) => line.includes('"event":"account_not_run"')).length;
    if (load.code !== 0) note(`full load exited ${load.code} (${notRun} accounts not run)`);
    for (const sim of sims) sim.advance(1);
    const [{ last }] = await query<{ last: number }>(
      url,
      'select coalesce(max(run_id), 0)::int as last from sync_runs',
    );
    const throttled = throttledOf(sims);
    note(`${build}, ${sims.length} accounts: nightly incremental through two workers`);
    const cpu = sampleWarehouseCpu(url);
    const started = Date.now();
    const enqueued = await runCli(['enqueue'], dir, command);
    if (enqueued.code !== 0) throw new Error(`enqueue exited ${enqueued.code}: ${enqueued.output}`);
    const workers = [0, 1].map(() => {
      const worker = startCli(['worker', '--concurrency', '4'], dir, command);
      const state = { output: '', lastRefreshAt: 0, events: 0 };
      const listen = (chunk: Buffer) => {
        state.output += String(chunk);
        const events = refreshEvents(state.output).length;
        if (events > state.events) [state.events, state.lastRefreshAt] = [events, Date.now()];
      };
      worker.child.stdout!.on('data', listen);
      worker.child.stderr!.on('data', listen);
      return { ...worker, state };
    });
    let wallMs: number;
    try {
      for (;;) {
        const [{ open }] = await query<{ open: number }>(
          url,
          `select count(*)::int as open from sync_runs where run_id > ${last} and status in ('running', 'queued')`,
        );
        if (open === 0) break;
        await sleep(250);
      }
      // Then the refreshes the last runs asked for: done once none has ended for two seconds.
      const quiet = () => Math.max(...workers.map((worker) => worker.state.lastRefreshAt));
      while (Date.now() - quiet() < 2_000) await sleep(250);
      wallMs = quiet() - started;
    } finally {
      for (const worker of workers) worker.child.kill('SIGTERM');
      await Promise.all(workers.map((worker) => worker.done));
    }
    const cpuMs = await cpu.stop();
    const events = workers.flatMap((worker) => refreshEvents(worker.state.output));
    const [totals] = await query<{ runs: number; calls: number; status: string }>(
      url,
      `select count(*)::int as runs, coalesce(sum(calls), 0)::int as calls, string_agg(distinct status, ',') as status
         from sync_runs where run_id > ${last}`,
    );
    const result: SeriesCase = {
      build,
      accounts: sims.length,
      wallMs,
      cpuMs,
      runs: totals.runs,
      refreshMs: events.filter((e) => e.event === 'reporting_refreshed').map((e) => Number(e.durationMs)),
      coalesced: events.filter((e) => e.event === 'reporting_refresh_coalesced').length,
      calls: totals.calls,
      throttled: throttledOf(sims) - throttled,
      status: totals.status,
      load: { code: load.code, notRun },
    };
    note(JSON.stringify(result));
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await dropDatabase(adminUrl, DATABASE);
  }
}

function table(cases: SeriesCase[]): string {
  const ms = (value: number) => `${Math.round(value)} ms`;
  const lines = cases.map((c) => {
    const refresh = c.refreshMs.reduce((sum, value) => sum + value, 0);
    return (
      `| ${c.build} | ${c.accounts} | ${(c.wallMs / 1000).toFixed(1)} s | ${ms(c.wallMs / c.accounts)} | ` +
      `${ms(c.cpuMs / c.accounts)} | ${c.refreshMs.length} | ${ms(refresh / Math.max(c.runs, 1))} | ${c.coalesced} | ` +
      `${c.calls} | ${c.throttled} | ${c.status} | ${c.load.code === 0 ? 'ok' : `exit ${c.load.code}, ${c.load.notRun} accounts not run`} |`
    );
  });
  return [
    '| build | accounts | wall | wall per account | warehouse CPU per account | refreshes | refresh per run | ' +
      'coalesced | calls | 429s | run statuses | full load before |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...lines,
  ].join('\n');
}

/** Runs the series (and the build before, when given) and prints its table. */
export async function benchNightlySeries(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((arg) => arg !== '--series'),
    options: { accounts: { type: 'string', default: '5,20,80' }, before: { type: 'string' } },
  });
  const adminUrl = withDatabase(
    process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    'postgres',
  );
  const builds: [string, string | undefined][] = [['this build', undefined]];
  if (values.before) builds.push(['before', values.before]);
  const cases: SeriesCase[] = [];
  for (const accounts of values.accounts.split(',').map(Number)) {
    const sims: Simulator[] = [];
    try {
      for (const [build, command] of builds) {
        // Each build from the same day: fresh simulators of the same seeds.
        await Promise.all(sims.splice(0).map((sim) => sim.close()));
        for (let i = 0; i < accounts; i++)
          sims.push(
            await startSimulator({
              port: 0,
              scale: 'small',
              seed: 300 + i,
              today: TODAY,
              username: 'bench',
              password: PASSWORD,
              rateLimit: '5/s',
            }),
          );
        cases.push(await nightlyCase(adminUrl, sims, build, command && resolve(command)));
      }
    } finally {
      await Promise.all(sims.map((sim) => sim.close()));
    }
  }
  process.stdout.write(`${table(cases)}\n`);
  process.stdout.write(
    `${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, node ${process.version}; small accounts at ` +
      '5 calls/s each, one simulated day; two workers of 4 lanes; wall from enqueue to the last refresh\n',
  );
}
