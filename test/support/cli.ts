import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inject } from 'vitest';

/**
 * The `propsync` command the tests run: built from the checkout's sources when the run starts
 * (test/support/test-command.ts), so that no test depends on a stale `dist/`; test/deploy runs
 * the build from a packed install.
 */
export const PROPSYNC_BIN = inject('testCommand');

/** What a finished `propsync` process showed its operator. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Variables on top of a clean environment (PATH and HOME only: no DATABASE_URL or PROPSYNC_* leaks in). */
  env?: Record<string, string>;
  /** Working directory; default a fresh empty folder, so no config/propsync.yaml is picked up by accident. */
  cwd?: string;
  timeoutMs?: number;
}

/** Runs `propsync ...args` (from the sources) as a child process and collects its exit code and output. */
export function runPropsync(args: string[], options: RunOptions = {}): Promise<CliResult> {
  const scratch = options.cwd ? null : mkdtempSync(join(tmpdir(), 'propsync-cli-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    ...options.env,
  };
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      [PROPSYNC_BIN, ...args],
      { cwd: options.cwd ?? scratch!, env, timeout: options.timeoutMs ?? 150_000, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (scratch) rmSync(scratch, { recursive: true, force: true });
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}

/** A throwaway folder with the given files (path → content); returns its path and a cleanup. */
export function scratchFolder(files: Record<string, string> = {}): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'propsync-test-'));
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
