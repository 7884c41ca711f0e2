#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-old-space-size=160 --max-semi-space-size=8 --initial-old-space-size=48
// Entry point of the `propsync` command: runs the bundled build in dist/ (`npm run build`, run by
// `npm ci`; `npm run dev -- ...` runs the TypeScript sources) from V8's code cache. The first line
// sets the heap limits and the allocator's arenas, so this process is the whole of propsync.
// Why: docs/benchmark.md#memory and docs/operating.md#the-code-cache
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runWithCodeCache } from './code-cache.mjs';

const main = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
if (!existsSync(main)) {
  process.stderr.write(
    'propsync: the compiled build (dist/) is missing; run `npm run build` (`npm ci` builds it too)\n',
  );
  process.exit(1);
}

// Flags on node's command line (this file's first line) win over NODE_OPTIONS: say so rather
// than run with another limit than the operator set.
const oldSpace = (text) => /--max-old-space-size[= ](\d+)/.exec(text)?.[1];
const asked = oldSpace(process.env.NODE_OPTIONS ?? '');
const used = oldSpace(process.execArgv.join(' '));
if (asked !== undefined && used !== undefined && asked !== used) {
  process.stderr.write(
    `propsync: NODE_OPTIONS asks for --max-old-space-size=${asked}, but node was started with ${used} (the command's first line), which wins; ` +
      `to choose the limit, start node yourself: node --max-old-space-size=${asked} ${process.argv[1]} ...\n`,
  );
}

// V8 optimizes a function once it has run 8 times its default budget: a run lasts seconds, and
// optimizing every warm function cost more than it gave back. Why: docs/benchmark.md#the-optimizing-compiler
setFlagsFromString('--interrupt-budget=540672');
// undici's HTTP parser is WebAssembly, whose one large function TurboFan would recompile at every
// start (about a tenth of a nightly's CPU); its baseline code parses as fast as replies need.
setFlagsFromString('--liftoff-only');

// The bundle runs as a script, which node 20 lets import nothing: it imports with this module's import().
globalThis[Symbol.for('propsync.importModule')] = (specifier) => import(specifier);
// Each command keeps its own cache, named for its first plain word (an option's value may be taken for it).
runWithCodeCache(main, process.argv.slice(2).find((word) => /^[a-z][a-z-]*$/.test(word)) ?? 'main');
