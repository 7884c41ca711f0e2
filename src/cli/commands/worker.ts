import type { Command } from 'commander';
import type { ExitCode } from '../../app/exit-codes.js';
import { ACCOUNT_OPTION_HELP, collectAccount, wholeNumber } from '../options.js';

/** `propsync worker [--account ID]... [--concurrency N]`: runs queued work until stopped. */
export function registerWorker(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('worker')
    .description('run the work units queued by propsync enqueue (or a scheduler in queue mode) until stopped')
    .option('--account <id>', ACCOUNT_OPTION_HELP, collectAccount)
    .option(
      '--concurrency <n>',
      'jobs (lanes of work units) run at once (default: worker.concurrency, PROPSYNC_WORKER_CONCURRENCY)',
      wholeNumber(1, 64),
    )
    .addHelpText(
      'after',
      [
        '',
        'Any number of workers, on any machines, may share one warehouse: each job runs on one of',
        'them at a time, and the pacing and daily budget of each account are shared through the',
        'warehouse. SIGINT/SIGTERM/SIGHUP: no new job; the page in flight ends and its job goes back',
        'to the queue, resumed by another worker from its checkpoint; exits 0 within 30 s. Serves',
        '/healthz and /metrics like propsync schedule. See docs/operating.md#workers.',
        '',
        'Examples:',
        '  $ propsync worker --concurrency 4',
        '  $ PROPSYNC_METRICS_PORT=9465 propsync worker --account north',
        '',
      ].join('\n'),
    )
    .action(async (options: { account?: string[]; concurrency?: number }, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ configFor }, { runWorkerProcess }] = await Promise.all([
        import('../context.js'),
        import('../../worker/run-worker.js'),
      ]);
      done(
        await runWorkerProcess(configFor(command), {
          accounts: options.account,
          concurrency: options.concurrency,
        }),
      );
    });
}
