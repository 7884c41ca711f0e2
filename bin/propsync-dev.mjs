#!/usr/bin/env node
// The `propsync` command from the TypeScript sources through tsx, for development and the tests:
// `npm run dev -- <command> ...` behaves as `propsync <command> ...` without a build.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
