import { displayLogger } from '../app/logger.js';
import { openPropsync } from '../app/propsync.js';
import { createProgress, progressModeFor } from '../app/progress.js';
import { worstExitCode } from '../app/run-summary.js';
import { runVerify, type VerifyCommand } from '../app/run-verify.js';
import { verifyJson, verifyText } from '../app/verify-report.js';
import type { ExitCode } from '../app/exit-codes.js';
import type { Config } from '../config/schema.js';
import { escapeControls } from '../log/redact.js';

/**
 * What `propsync verify` does once its options are checked: shows progress (bars on a
 * terminal, log lines elsewhere), verifies (and repairs) each account in a running propsync
 * that stops cleanly on a signal, prints the report (text or JSON) on stdout and returns the
 * exit code.
 */
export async function runVerifyCommand(
  config: Config,
  command: VerifyCommand,
  options: { json: boolean; accounts?: readonly string[] },
): Promise<ExitCode> {
  const mode = progressModeFor();
  const bars = mode === 'bars' ? createProgress({ mode: 'bars' }) : undefined;
  const logger = displayLogger(config, { sink: bars?.sink, terminal: mode === 'bars' });
  const progress = bars ?? createProgress({ mode: 'log', logger });
  try {
    const propsync = await openPropsync(config, {
      logger,
      accounts: options.accounts,
      stopOnSignals: 'the verification',
    });
    try {
      const outcomes = await runVerify(propsync, command, [progress.observer]);
      progress.stop();
      if (options.json) process.stdout.write(`${JSON.stringify(verifyJson(outcomes), null, 2)}\n`);
      else
        process.stdout.write(
          `${verifyText(outcomes, config.accounts.length > 1)
            .map(escapeControls)
            .join('\n')}\n`,
        );
      return worstExitCode(outcomes.map((outcome) => outcome.exitCode));
    } finally {
      await propsync.close();
    }
  } finally {
    progress.stop();
  }
}
