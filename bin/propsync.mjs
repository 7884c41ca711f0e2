#!/usr/bin/env node
// Entry point of the `propsync` command: loads the TypeScript sources through tsx, so the
// same files run from a checkout (`npm run propsync -- ...`) and once linked or installed.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
