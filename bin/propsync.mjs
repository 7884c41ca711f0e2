#!/usr/bin/env node
// Entry point of the `propsync` command: runs the compiled build in dist/ (`npm run build`, run by
// `npm ci`; `npm run dev -- ...` runs the TypeScript sources), restarting node with a heap limit
// unless one is set. Why: docs/benchmark.md#memory
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Old-space limit in MB: a page in flight per work unit fits in it (docs/benchmark.md#memory). */
const HEAP_LIMIT_MB = 160;
/**
 * Semi-space size in MB: the young generation is three of them. V8's default (16) keeps some
 * 48 MB of young objects at the sync's allocation rate; at 4 a full load costs no more CPU
 * (measured side by side) and peaks some 40 MB lower.
 */
const SEMI_SPACE_MB = 4;

const main = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('propsync: the compiled build (dist/) is missing; run `npm run build` (`npm ci` builds it too)\n');
  process.exit(1);
}

const HEAP_FLAG = /--max-old-space-size\b/;
const limited = process.execArgv.some((arg) => HEAP_FLAG.test(arg)) || HEAP_FLAG.test(process.env.NODE_OPTIONS ?? '');
/** Help and version load no data: no second process for them. */
const args = process.argv.slice(2);
const helpOnly = args.length === 0 || args.some((arg) => ['--help', '-h', 'help', '--version', '-V'].includes(arg));
/**
 * The simulator holds its whole data set in memory (about 1 GB at `--scale large`), which is
 * what it is for: it runs without the limit.
 */
const holdsDataSet = args[0] === 'simulate';

if (limited || helpOnly || holdsDataSet) {
  await import(main.href);
} else {
  const child = spawn(process.execPath, [...process.execArgv, `--max-old-space-size=${HEAP_LIMIT_MB}`, `--max-semi-space-size=${SEMI_SPACE_MB}`, fileURLToPath(main), ...args], {
    stdio: 'inherit',
  });
  // Ctrl-C in a terminal reaches the whole foreground process group, the child included: passing
  // SIGINT on as well would count as a second signal ("stop at once"). Elsewhere (a scheduler, a
  // container's PID 1) the signal reaches this process only, and is passed on once.
  const fromTerminal = process.stdin.isTTY || process.stdout.isTTY || process.stderr.isTTY;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (signal === 'SIGINT' && fromTerminal) return;
      child.kill(signal);
    });
  }
  child.once('error', (error) => {
    process.stderr.write(`propsync: cannot start node: ${error.message}\n`);
    process.exit(1);
  });
  child.once('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}
