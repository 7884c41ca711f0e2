import type { Command } from 'commander';
import { STREAM_NAMES, type StreamName } from '../../streams/registry.js';
import type { ExitCode } from '../../app/exit-codes.js';
import { ACCOUNT_OPTION_HELP, collectAccount, collectStream } from '../options.js';

/** `propsync schedule [--stream S]...`: the long-running scheduler with /healthz and /metrics. */
export function registerSchedule(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('schedule')
    .description('run each stream on its cron schedule until stopped, serving /healthz and /metrics')
    .option('--account <id>', ACCOUNT_OPTION_HELP, collectAccount)
    .option(
      '--stream <name>',
      'schedule only this stream (repeatable; default: the enabled ones)',
      collectStream,
    )
    .addHelpText(
      'after',
      [
        '',
        'Schedules come from streams.<name>.schedule (cron, five fields or six with seconds) in',
        "each account's time zone. A run never overlaps another run of the same account and stream, " +
          'in this process or in any',
        'other propsync on the same warehouse (a Postgres advisory lock; the loser logs run_skipped).',
        "Runs are also skipped once the day's call budget is spent by all processes together.",
        'SIGINT/SIGTERM/SIGHUP: no new work; runs in flight stop after their page in flight; exits within',
        '30 s (0 when every run stopped in time, 1 otherwise). /healthz and /metrics listen on',
        'metrics.host:metrics.port (PROPSYNC_METRICS_HOST, default 127.0.0.1; PROPSYNC_METRICS_PORT, 0 turns',
        'them off).',
        '',
        'Examples:',
        '  $ propsync schedule',
        `  $ PROPSYNC_METRICS_PORT=9464 propsync schedule --stream ${STREAM_NAMES[STREAM_NAMES.length - 1]}`,
        '  $ curl -s localhost:9464/metrics | grep propsync_last_success',
        '',
      ].join('\n'),
    )
    .action(async (options: { account?: string[]; stream?: StreamName[] }, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ configFor }, { runSchedulerProcess }] = await Promise.all([
        import('../context.js'),
        import('../../scheduler/run-scheduler.js'),
      ]);
      done(await runSchedulerProcess(configFor(command), options.stream, options.account));
    });
}
