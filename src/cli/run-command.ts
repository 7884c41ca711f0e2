import { displayLogger } from '../app/logger.js';
import { openPropsync, requestedStreams } from '../app/propsync.js';
import { createProgress, progressModeFor } from '../app/progress.js';
import { accountRunLines, worstExitCode } from '../app/run-summary.js';
import type { ExitCode } from '../app/exit-codes.js';
import type { Config } from '../config/schema.js';
import type { SyncRequest } from '../sync/types.js';

/**
 * What `propsync sync` and `propsync backfill` do once their options are checked: show progress
 * (bars on a terminal, log lines elsewhere), run the engine in a running propsync (which stops
 * cleanly on SIGINT/SIGTERM/SIGHUP), print the summary on stdout and return the run's exit code.
 */
export async function runCommand(
  config: Config,
  request: SyncRequest,
  what: string,
  accounts?: readonly string[],
): Promise<ExitCode> {
  requestedStreams(config, request);
  const mode = progressModeFor();
  const bars = mode === 'bars' ? createProgress({ mode: 'bars' }) : undefined;
  const logger = displayLogger(config, { sink: bars?.sink, terminal: mode === 'bars' });
  const progress = bars ?? createProgress({ mode: 'log', logger });
  try {
    const propsync = await openPropsync(config, { logger, accounts, stopOnSignals: what });
    try {
      const runs = await propsync.run(request, { observers: [progress.observer] });
      progress.stop();
      const named = config.accounts.length > 1;
      process.stdout.write(`${runs.flatMap((run) => accountRunLines(run, named)).join('\n')}\n`);
      return worstExitCode(runs.map((run) => run.exitCode));
    } finally {
      await propsync.close();
    }
  } finally {
    progress.stop();
  }
}
