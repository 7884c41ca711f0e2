import { spawn, type ChildProcess } from 'node:child_process';
import { dirname } from 'node:path';
import { startSimulator, type AdvanceSummary, type Simulator } from '../../src/simulator/index.js';
import { PROPSYNC_BIN } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

export const USER = 'cli-test';
export const PASSWORD = 'cli-Secret-pw-42';

/** A simulator (small, rate limits off) and a fresh migrated warehouse, with the env the CLI reads them from. */
export interface CliWorld {
  sim: Simulator<AdvanceSummary>;
  database: TestDatabase;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startCliWorld(options: { migrate?: boolean; today?: string } = {}): Promise<CliWorld> {
  const sim = await startSimulator({
    port: 0,
    scale: 'small',
    seed: 5,
    today: options.today ?? '2026-03-10',
    username: USER,
    password: PASSWORD,
    rateLimit: 'off',
  });
  const database = await createTestDatabase({ migrate: options.migrate });
  const env = {
    DATABASE_URL: database.url,
    PROPSYNC_API_URL: sim.url,
    PROPSYNC_API_USERNAME: USER,
    PROPSYNC_API_PASSWORD: PASSWORD,
    PROPSYNC_CONCURRENCY: '3',
    // The simulated today is not this machine's: take the simulator's Date whatever it says.
    PROPSYNC_MAX_CLOCK_SKEW_HOURS: '0',
  };
  return {
    sim,
    database,
    env,
    async close() {
      await sim.close();
      await database.drop();
    },
  };
}

/** A running `propsync` process (for long-running commands and signals). */
export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited, with its code and when it exited. */
  exited: Promise<{ code: number | null; at: number }>;
}

/** How `startPropsync` starts the command. */
export interface StartOptions {
  env: Record<string, string>;
  cwd: string;
  /** The command's file; default the test run's build of the sources (`PROPSYNC_BIN`). */
  bin?: string;
  /** Run `bin` itself, as an operator does (its first line starts node), rather than `node bin`. */
  exec?: boolean;
  /** In a process group of its own (its pgid is its pid), as a service manager starts it. */
  detached?: boolean;
}

/** Starts `propsync ...args` (from the sources, or `bin`) without waiting for it (clean env plus `env`). */
export function startPropsync(args: string[], options: StartOptions): RunningCli {
  const bin = options.bin ?? PROPSYNC_BIN;
  // `env node` (the file's first line) finds this node first.
  const path = `${options.exec ? `${dirname(process.execPath)}:` : ''}${process.env.PATH ?? '/usr/bin:/bin'}`;
  const child = spawn(options.exec ? bin : process.execPath, options.exec ? args : [bin, ...args], {
    cwd: options.cwd,
    env: { PATH: path, HOME: process.env.HOME ?? '/tmp', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached,
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on('exit', (code) => resolve({ code, at: Date.now() })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Parsed JSON log lines of a process's stderr (other lines skipped). */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Polls `check` every 100 ms until it returns true or `ms` pass. */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  ms: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}
