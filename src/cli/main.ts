import { runCli } from './program.js';

// Long-running commands have closed their servers and pools by the time runCli settles; exit even
// if a stray timer is left so that scripts and schedulers see the code at once.
void runCli(process.argv).then((code) => process.exit(code));
