#!/usr/bin/env node
// Entry point of the `propsync` command: runs the compiled build in dist/ (made by `npm run build`,
// which `npm ci` runs through the `prepare` script). From a checkout, `npm run dev -- ...` runs the
// TypeScript sources instead.
import { existsSync } from 'node:fs';

const main = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('propsync: the compiled build (dist/) is missing; run `npm run build` (`npm ci` builds it too)\n');
  process.exit(1);
}
await import(main.href);
