import type { Command } from 'commander';
import { STREAM_NAMES, type StreamName } from '../../streams/registry.js';
import type { ExitCode } from '../../app/exit-codes.js';
import { ACCOUNT_OPTION_HELP, collectAccount, collectProperty, collectStream } from '../options.js';

/**
 * `propsync enqueue [--account ID]... [--stream S]... [--wait]`: plans a run as `sync` does and queues it
 * for the workers.
 */
export function registerEnqueue(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('enqueue')
    .description('plan one run as sync does and put its work on the queue for propsync worker')
    .option('--account <id>', ACCOUNT_OPTION_HELP, collectAccount)
    .option(
      '--stream <name>',
      `a stream: ${STREAM_NAMES.join(' or ')} (repeatable; default: the enabled ones)`,
      collectStream,
    )
    .option(
      '--property <id>',
      'a property (repeatable, or comma-separated; default: the configured ones, else all)',
      collectProperty,
    )
    .option('--full', 'read the whole selection again instead of the incremental plan')
    .option(
      '--wait',
      'follow the run until the workers end it; print the summary sync prints, with its exit codes',
    )
    .addHelpText(
      'after',
      [
        '',
        'Each lane of the plan (a stream and its scope) becomes one job; a lane already waiting on the',
        'queue is not queued twice. See docs/operating.md#workers.',
        '',
        'Exit codes: 0 queued (with --wait: done); 1 with --wait, some work failed or was stopped;',
        '2 bad usage or configuration; 3 with --wait, done with records quarantined.',
        '',
        'Examples:',
        '  $ propsync enqueue',
        `  $ propsync enqueue --account north --stream ${STREAM_NAMES[0]} --wait`,
        '',
      ].join('\n'),
    )
    .action(
      async (
        options: {
          account?: string[];
          stream?: StreamName[];
          property?: string[];
          full?: boolean;
          wait?: boolean;
        },
        command: Command,
      ) => {
        // Loaded here, not at the top: --help and usage errors stay fast.
        const [{ configFor }, { runEnqueue }] = await Promise.all([
          import('../context.js'),
          import('../../worker/run-enqueue.js'),
        ]);
        const request = {
          kind: 'sync' as const,
          streams: options.stream,
          propertyIds: options.property,
          full: options.full === true,
        };
        done(
          await runEnqueue(configFor(command), request, {
            accounts: options.account,
            wait: options.wait === true,
          }),
        );
      },
    );
}
