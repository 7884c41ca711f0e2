import { runCli } from './program.js';

const code = await runCli(process.argv);
// Long-running commands have closed their servers and pools by now; exit even if a stray
// timer is left so that scripts and schedulers see the code at once.
process.exit(code);
