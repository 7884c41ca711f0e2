/**
 * What a start loads. Help and usage errors load commander and the commands' definitions only:
 * not the configuration schema (zod), the simulator, the scheduler, the warehouse or any other
 * package, which the commands load inside their actions. Loading is what is checked, never how
 * long a start takes: the time of `propsync --help` is a benchmark's business, not a test's.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';

/** `propsync ARGS` from the sources, writing the URL of each module it loads to $PROPSYNC_LOADS_FILE. */
const RECORDING_BIN = resolve(dirname(fileURLToPath(import.meta.url)), '../support/record-loads.mjs');

/** The one package a start may load. */
const CLI_PACKAGES = ['commander'];
/** The one simulator module a start may load: what `simulate --help` shows, with no simulator code. */
const SIMULATOR_USAGE = '/src/simulator/usage.ts';

/** Runs `propsync ...args` in a fresh folder with a clean environment; its exit code and the modules it loaded. */
function loadsOf(args: string[]): Promise<{ code: number | null; urls: string[] }> {
  const scratch = mkdtempSync(join(tmpdir(), 'propsync-start-'));
  const file = join(scratch, 'loads.txt');
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    PROPSYNC_LOADS_FILE: file,
  };
  return new Promise((resolvePromise, reject) => {
    execFile(process.execPath, [RECORDING_BIN, ...args], { cwd: scratch, env, timeout: 60_000 }, (error) => {
      try {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolvePromise({ code, urls: readFileSync(file, 'utf8').split('\n').filter(Boolean) });
      } catch (failure) {
        reject(failure);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    });
  });
}

/** The packages modules come from: `zod` for `.../node_modules/zod/v4/core/index.js`, a scoped name whole. */
function packagesOf(urls: readonly string[]): string[] {
  const names = urls
    .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
    .filter((name): name is string => name !== undefined);
  return [...new Set(names)].sort();
}

/** Every command of the program by the words that run it: `sync`, `config`, `config check`... */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => [
    [...prefix, sub.name()],
    ...commandPaths(sub, [...prefix, sub.name()]),
  ]);
}

const HELP: string[][] = [
  ['--help'],
  ['help'],
  ['help', 'simulate'],
  ...commandPaths(buildProgram(() => {})).map((path) => [...path, '--help']),
];

describe('what a start loads', () => {
  it('help, of the program and of every command, loads commander and no simulator code', async () => {
    const results = await Promise.all(HELP.map((args) => loadsOf(args)));
    results.forEach(({ code, urls }, index) => {
      const what = `propsync ${HELP[index].join(' ')}`;
      expect(code, what).toBe(0);
      expect(packagesOf(urls), what).toEqual(CLI_PACKAGES);
      expect(
        urls.filter((url) => url.includes('/src/simulator/') && !url.endsWith(SIMULATOR_USAGE)),
        what,
      ).toEqual([]);
    });
  });

  it('a usage error (an unknown stream) loads commander only', async () => {
    const { code, urls } = await loadsOf(['sync', '--stream', 'payments']);
    expect(code).toBe(2);
    expect(packagesOf(urls)).toEqual(CLI_PACKAGES);
  });

  it('the record sees what an action loads (the configuration schema)', async () => {
    const { code, urls } = await loadsOf(['config', 'check']);
    expect(code).toBe(2);
    expect(packagesOf(urls)).toContain('zod');
  });
});
