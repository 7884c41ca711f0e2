import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The test run's build of the command: bin/, dist/ and package.json laid out as in the package,
 * inside node_modules so that the packages the bundle leaves out resolve from the checkout's.
 */
const folder = join(root, 'node_modules/.cache/propsync-test-command');

/** The entry the tests run (`node TEST_COMMAND ...`): the command as shipped, built from today's sources. */
export const TEST_COMMAND = join(folder, 'bin/propsync.mjs');

/**
 * Builds the command from the checkout's sources (`scripts/build.mjs`, about a second), once per
 * test run: a test never runs a stale dist/, and each of its commands starts in a quarter of the
 * time the sources take through tsx.
 */
export function buildTestCommand(): void {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(join(folder, 'bin'), { recursive: true });
  execFileSync(process.execPath, ['scripts/build.mjs', join(folder, 'dist')], {
    cwd: root,
    stdio: 'inherit',
  });
  for (const file of ['bin/propsync.mjs', 'bin/code-cache.mjs', 'package.json'])
    cpSync(join(root, file), join(folder, file));
}
