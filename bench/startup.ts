/**
 * The start-up bench of issue 41 item 3 (`node bin/run-ts.mjs bench/startup.ts [--runs 7]`): how long
 * the built command (`npm run build` first) takes from its spawn to its first call to the source.
 * A server stands in for the source: it notes when the first request arrives, answers 503, and the
 * command is stopped there. Each run gets a fresh copy of a migrated scratch database of
 * `TEST_DATABASE_URL`'s server: on the same database, a run would start by closing the run the last
 * one left behind and wait out the pacing of its call, which is the source's rate, not start-up.
 * `--cli FILE` runs another build's entry (a before and after; its bin/ and dist/ copied inside this
 * checkout). Prints the median and range of `propsync --version` (node and the bundle's entry) and
 * of `propsync sync` to its first request, stopped there by SIGTERM as an operator stops it: from
 * the code cache its first, uncounted run wrote (docs/operating.md#the-code-cache), and as the
 * first run of a new build, with an empty cache each time.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { migrateWarehouse } from '../src/app/migrate-warehouse.js';
import { connect } from '../src/warehouse/db.js';
import { copyDatabase, dropDatabase, ensureDatabase, withDatabase } from '../src/warehouse/databases.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '7' }, cli: { type: 'string' } },
});
/** The command: bin/propsync.mjs, or another build's entry (`--cli OTHER/bin/propsync.mjs`). */
const cli = values.cli ? resolve(values.cli) : join(root, 'bin', 'propsync.mjs');
const runs = Number(values.runs);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const line = (name: string, xs: number[]) =>
  `${name.padEnd(34)} median ${median(xs).toFixed(0).padStart(5)} ms  ` +
  `(${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}, ${xs.length} runs)`;

/** Milliseconds from the spawn of `propsync args` until it exits. */
function untilExit(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: 'ignore' });
    child.on('error', fail);
    child.on('exit', () => done(performance.now() - started));
  });
}

/** Milliseconds from the spawn of `propsync sync` until the source's first request. */
async function untilFirstCall(env: NodeJS.ProcessEnv): Promise<number> {
  await freshCopy();
  let first: number | undefined;
  let arrived!: () => void;
  const called = new Promise<void>((done) => (arrived = done));
  const server = createServer((request, response) => {
    first ??= performance.now();
    arrived();
    response.writeHead(503, { 'retry-after': '60' }).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'sync'], {
    env: { ...env, PROPSYNC_API_URL: `http://127.0.0.1:${port}` },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  await Promise.race([called, exited]);
  // Stopped as an operator stops it, so that it exits as it would (and writes its code cache).
  child.kill('SIGTERM');
  await exited;
  server.close();
  if (first === undefined) throw new Error(`propsync sync ended before any call:\n${stderr}`);
  return first - started;
}

const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = 'propsync_bench_startup';
await dropDatabase(adminUrl, name);
await ensureDatabase(adminUrl, name);
const db = connect(withDatabase(adminUrl, name), { maxConnections: 1 });
await migrateWarehouse(db);
await db.destroy();
/** The database each run syncs into: a copy of the migrated one, made anew before each run. */
const copy = `${name}_run`;
const url = withDatabase(adminUrl, copy);
const freshCopy = () => copyDatabase(adminUrl, name, copy);
const caches = mkdtempSync(join(tmpdir(), 'propsync-bench-code-cache-'));
const env = {
  PROPSYNC_CODE_CACHE: join(caches, 'warm'),
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  DATABASE_URL: url,
  PROPSYNC_API_USERNAME: 'bench',
  PROPSYNC_API_PASSWORD: 'bench-Startup-pw-41',
  PROPSYNC_LOG_LEVEL: 'info',
};
try {
  const version: number[] = [];
  const sync: number[] = [];
  const firstOfBuild: number[] = [];
  // One of each first, not counted: the disk cache warmed, the code cache written.
  await untilExit(['--version'], env);
  await untilFirstCall(env);
  for (let i = 0; i < runs; i++) {
    version.push(await untilExit(['--version'], env));
    sync.push(await untilFirstCall(env));
    const cold = join(caches, `cold-${i}`);
    firstOfBuild.push(await untilFirstCall({ ...env, PROPSYNC_CODE_CACHE: cold }));
  }
  process.stdout.write(`${line('propsync --version (to exit)', version)}\n`);
  process.stdout.write(`${line('propsync sync (to its first call)', sync)}\n`);
  process.stdout.write(`${line("sync, a build's first run", firstOfBuild)}\n`);
} finally {
  rmSync(caches, { recursive: true, force: true });
  await dropDatabase(adminUrl, copy);
  await dropDatabase(adminUrl, name);
}
