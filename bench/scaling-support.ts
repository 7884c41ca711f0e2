/**
 * What the scaling benches (bench/scaling.ts, bench/scaling-series.ts) share: a fresh database
 * and configuration per case, and the built CLI run as an operator runs it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Simulator } from '../src/simulator/index.js';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/warehouse/databases.js';

export const TODAY = '2026-06-15';
export const PASSWORD = 'bench-scaling-pw';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'propsync.mjs');
export async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database and a folder whose config names the simulators as accounts. */
export async function prepare(
  adminUrl: string,
  name: string,
  sims: Simulator[],
  pageSize?: number,
  logLevel = 'warn',
  command: string = cli,
): Promise<{ url: string; dir: string }> {
  await dropDatabase(adminUrl, name);
  await ensureDatabase(adminUrl, name);
  const url = withDatabase(adminUrl, name);
  const dir = mkdtempSync(join(tmpdir(), 'propsync-scaling-'));
  mkdirSync(join(dir, 'config'));
  const config = {
    database: { url },
    source: {
      format: 'json',
      maxClockSkewHours: 0,
      allowInsecureHttp: true,
      concurrency: 4,
      ...(pageSize ? { pageSize } : {}),
    },
    accounts: sims.map((sim, i) => ({
      id: `a${String(i + 1).padStart(2, '0')}`,
      source: { url: sim.url, auth: { type: 'basic', username: 'bench', passwordEnv: 'BENCH_PASSWORD' } },
    })),
    metrics: { port: 0 },
    logLevel,
  };
  writeFileSync(join(dir, 'config', 'propsync.yaml'), JSON.stringify(config));
  const migrated = await runCli(['migrate'], dir, command);
  if (migrated.code !== 0) throw new Error(`migrate exited ${migrated.code}: ${migrated.output}`);
  return { url, dir };
}

export function startCli(
  args: string[],
  dir: string,
  command = cli,
): { child: ChildProcess; done: Promise<{ code: number | null; output: string }> } {
  // As an operator runs it: the command's first line starts node with its heap limits.
  // The config's database, not the bench's DATABASE_URL (the server's admin database), which would win.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'DATABASE_URL'));
  const child = spawn(command, args, {
    cwd: dir,
    env: { ...env, BENCH_PASSWORD: PASSWORD },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const done = new Promise<{ code: number | null; output: string }>((resolveDone) =>
    child.on('exit', (code) => resolveDone({ code, output })),
  );
  return { child, done };
}

export const runCli = (args: string[], dir: string, command = cli) => startCli(args, dir, command).done;

export const throttledOf = (sims: Simulator[]) =>
  sims.reduce(
    (sum, sim) =>
      sum + Object.values(sim.stats().calls).reduce((s, byStatus) => s + (byStatus['429'] ?? 0), 0),
    0,
  );
