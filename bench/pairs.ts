/**
 * Two builds of the command, run by run in turn on the same work (`npm run build` first, and the
 * other build's bin/ and dist/ copied inside this checkout so that it finds node_modules):
 *
 *   node bin/run-ts.mjs bench/pairs.ts --before .before/bin/propsync.mjs [--after FILE]
 *     [--format json|xml] [--run incremental|full] [--pairs 8]
 *
 * (`--after`: this build's entry, `bin/propsync.mjs` unless given. Each build runs through its
 * own entry, with the flags of its own first line, so that a pair counts what the entry does
 * before the build loads.)
 *
 * One medium simulator; `incremental`: a full load by this build at its first day, the simulator
 * moved a day on, then each run a nightly sync into a fresh copy of that warehouse; `full`: each
 * run a first load into a fresh migrated database. Prints each run's wall, CPU (user + system,
 * the command's process) and peak RSS, then the medians. Pairs tell a change from the machine's
 * own drift, which single runs of a shared two-core machine do not (docs/benchmark.md).
 */
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { copyDatabase, dropDatabase, ensureDatabase, withDatabase } from '../src/warehouse/databases.js';
import { advanceOneDay, shebangEnv, shebangFlags, startSimulator, stopSimulator } from './processes.js';
import { watchServerCpu } from './proc-stats.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string' },
    format: { type: 'string', default: 'json' },
    run: { type: 'string', default: 'incremental' },
    pairs: { type: 'string', default: '8' },
  },
});
if (!values.before)
  throw new Error(
    'usage: bench/pairs.ts --before OTHER/bin/propsync.mjs [--after FILE] [--format json|xml] [--run incremental|full] [--pairs N]',
  );
const builds = {
  before: resolve(values.before),
  after: values.after ? resolve(values.after) : join(root, 'bin', 'propsync.mjs'),
};
const format = values.format;
const pairs = Number(values.pairs);
const admin = withDatabase(
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  'postgres',
);
const PASSWORD = 'bench-pairs-pw-41';

interface Measured {
  wallMs: number;
  cpuMs: number;
  /** CPU of the Postgres processes serving the run's database meanwhile. */
  pgCpuMs: number;
  rssMb: number;
}

/** Runs `propsync args` of a build against `database` under /usr/bin/time. */
function runBuild(cli: string, database: string, sim: string, args: string[]): Promise<Measured> {
  const env = {
    PATH: process.env.PATH,
    ...shebangEnv(cli),
    DATABASE_URL: withDatabase(admin, database),
    PROPSYNC_API_URL: sim,
    PROPSYNC_API_USERNAME: 'bench',
    PROPSYNC_API_PASSWORD: PASSWORD,
    PROPSYNC_FORMAT: format,
    PROPSYNC_DAILY_CALL_BUDGET: '1000000',
    PROPSYNC_MAX_CLOCK_SKEW_HOURS: '1000000',
    PROPSYNC_LOG_LEVEL: 'warn',
  };
  const started = performance.now();
  const server = watchServerCpu(database, -1);
  const child = spawn(
    '/usr/bin/time',
    ['-f', 'TIME %U %S %M', process.execPath, ...shebangFlags(cli), cli, ...args],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done, fail) =>
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const pgCpuMs = server.stop();
      const time = /TIME (\S+) (\S+) (\d+)/.exec(stderr);
      if (code !== 0 || !time)
        return fail(new Error(`propsync ${args.join(' ')} exited ${code}:\n${stderr.slice(-2000)}`));
      done({
        wallMs,
        cpuMs: (Number(time[1]) + Number(time[2])) * 1000,
        pgCpuMs,
        rssMb: Number(time[3]) / 1024,
      });
    }),
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const template = `propsync_bench_pairs_${process.pid}`;
const copy = `${template}_run`;
const sim = await startSimulator('medium', PASSWORD);
try {
  await dropDatabase(admin, template);
  await ensureDatabase(admin, template);
  await runBuild(builds.after, template, sim.url, ['migrate']);
  if (values.run === 'incremental') {
    await runBuild(builds.after, template, sim.url, ['sync']);
    await advanceOneDay(sim.url);
  }
  const measured: Record<keyof typeof builds, Measured[]> = { before: [], after: [] };
  for (let pair = 1; pair <= pairs; pair++)
    for (const which of ['before', 'after'] as const) {
      await copyDatabase(admin, template, copy);
      const run = await runBuild(builds[which], copy, sim.url, ['sync']);
      measured[which].push(run);
      process.stdout.write(
        `pair ${pair} ${which.padEnd(6)} wall ${run.wallMs.toFixed(0).padStart(6)} ms  CPU ${run.cpuMs.toFixed(0).padStart(6)} ms  ` +
          `Postgres CPU ${run.pgCpuMs.toFixed(0).padStart(6)} ms  ${run.rssMb.toFixed(0)} MB\n`,
      );
    }
  for (const which of ['before', 'after'] as const) {
    const runs = measured[which];
    process.stdout.write(
      `median ${which.padEnd(6)} wall ${median(runs.map((r) => r.wallMs))
        .toFixed(0)
        .padStart(6)} ms  ` +
        `CPU ${median(runs.map((r) => r.cpuMs))
          .toFixed(0)
          .padStart(6)} ms  ` +
        `Postgres CPU ${median(runs.map((r) => r.pgCpuMs))
          .toFixed(0)
          .padStart(6)} ms  ` +
        `peak ${Math.max(...runs.map((r) => r.rssMb)).toFixed(0)} MB  (${values.run}, medium ${format}, ${pairs} pairs)\n`,
    );
  }
} finally {
  await stopSimulator(sim.child);
  await dropDatabase(admin, copy);
  await dropDatabase(admin, template);
}
