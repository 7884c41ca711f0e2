import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Simulator } from '../../src/simulator/index.js';
import { PROPSYNC_BIN } from '../support/cli.js';

/** The password of every simulated account of the worker tests, read from this variable. */
export const PASSWORD = 'W0rker-pw-5d2e1a';
/** The environment of every propsync process of the worker tests. */
export const ENV = { WORKER_TEST_PASSWORD: PASSWORD, PROPSYNC_API_ALLOW_INSECURE_HTTP: 'true' };

/**
 * A configuration file with one account per simulator (Basic auth, user `<id>-user`), small pages, no HTTP endpoint.
 */
export function configFile(
  databaseUrl: string,
  sims: Record<string, Simulator>,
  extra: Record<string, unknown> = {},
): string {
  const source = {
    format: 'json',
    maxClockSkewHours: 0,
    pageSize: 50,
    concurrency: 3,
    retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 200, maxTotalWaitMs: 2_000 },
  };
  return JSON.stringify({
    database: { url: databaseUrl },
    source,
    accounts: Object.entries(sims).map(([id, sim]) => ({
      id,
      source: {
        url: sim.url,
        auth: { type: 'basic', username: `${id}-user`, passwordEnv: 'WORKER_TEST_PASSWORD' },
      },
    })),
    metrics: { port: 0 },
    logLevel: 'info',
    ...extra,
  });
}

/** A long-running propsync process (worker, schedule), its output kept. */
export interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const started: ChildProcess[] = [];

/** Starts `propsync ...args` in `cwd` as a child process. */
export function startPropsync(args: string[], cwd: string, env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [PROPSYNC_BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let text = '';
  child.stdout!.on('data', (chunk) => (text += String(chunk)));
  child.stderr!.on('data', (chunk) => (text += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => text, exited };
}

/** Kills what `startPropsync` started and is still running. */
export function killAll(): void {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Waits until `probe` gives something truthy; a timeout's error ends with what `said` gives (a process's output). */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 120_000,
  said?: () => string,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}${said ? `; it said:\n${said().slice(-4_000)}` : ''}`);
    await sleep(250);
  }
}

/** Replies 429 a simulator sent. */
export const throttledBy = (sim: Simulator): number =>
  Object.values(sim.stats().calls).reduce((sum, byStatus) => sum + (byStatus['429'] ?? 0), 0);
