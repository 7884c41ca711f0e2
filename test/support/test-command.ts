import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The shipped command, built into `folder` from the checkout's sources (`scripts/build.mjs`, about a
 * second): bin/propsync.mjs (executable) over a fresh dist/, the package.json, and the checkout's
 * node_modules linked for the packages the bundle leaves out. Returns the entry. The test run
 * builds it once (test/support/global-setup.ts): no test runs a stale dist/, and each command
 * starts in a quarter of the time the sources take through tsx.
 */
export function buildCommand(folder: string): string {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), join(folder, 'dist')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  mkdirSync(join(folder, 'bin'));
  const bin = join(folder, 'bin/propsync.mjs');
  copyFileSync(join(ROOT, 'bin/propsync.mjs'), bin);
  copyFileSync(join(ROOT, 'bin/code-cache.mjs'), join(folder, 'bin/code-cache.mjs'));
  chmodSync(bin, 0o755);
  copyFileSync(join(ROOT, 'package.json'), join(folder, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'));
  return bin;
}
