// `propsync ARGS` from the sources, as bin/propsync-dev.mjs runs it, that also writes the URL of
// every module it loads, one a line, to the file named in $PROPSYNC_LOADS_FILE: test/cli/start.test.ts
// checks with it what a start (help, usage errors) loads.
import { register } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

registerTsx();
// Registered after tsx, so that it runs first: it sees every import, resolved as tsx resolves it.
register('./record-loads-hook.mjs', import.meta.url, { data: { file: process.env.PROPSYNC_LOADS_FILE } });
await import('../../src/cli/main.ts');
