import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Where test runs build the command, a folder each (named for the run's pid): inside
 * node_modules, so that the packages the bundle leaves out resolve from the checkout's.
 */
const cache = join(root, 'node_modules/.cache');
const PREFIX = 'propsync-test-command-';

/** Whether process `pid` runs (one that belongs to another user counts). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Builds the command from the checkout's sources (`scripts/build.mjs`, about a second) for one
 * test run: bin/, dist/ and package.json laid out as in the package. A test never runs a stale
 * dist/, and each of its commands starts in a quarter of the time the sources take through tsx.
 * Returns the entry the tests run (`node ENTRY ...`) and what removes the build; the builds of
 * runs that ended without removing theirs are removed first.
 */
export function buildTestCommand(): { entry: string; remove(): void } {
  if (existsSync(cache))
    for (const name of readdirSync(cache))
      if (name.startsWith(PREFIX) && !running(Number(name.slice(PREFIX.length))))
        rmSync(join(cache, name), { recursive: true, force: true });
  const folder = join(cache, `${PREFIX}${process.pid}`);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(join(folder, 'bin'), { recursive: true });
  execFileSync(process.execPath, ['scripts/build.mjs', join(folder, 'dist')], {
    cwd: root,
    stdio: 'inherit',
  });
  for (const file of ['bin/propsync.mjs', 'bin/code-cache.mjs', 'package.json'])
    cpSync(join(root, file), join(folder, file));
  return {
    entry: join(folder, 'bin/propsync.mjs'),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}
