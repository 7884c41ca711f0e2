import type { Command } from 'commander';
import { STREAM_NAMES, type StreamName } from '../../streams/registry.js';
import type { ExitCode } from '../../app/exit-codes.js';
import { ACCOUNT_OPTION_HELP, collectAccount, collectProperty, collectStream } from '../options.js';

interface SyncOptions {
  account?: string[];
  stream?: StreamName[];
  property?: string[];
  full?: boolean;
}

/** `propsync sync [--stream S]... [--property ID]... [--full]`: one incremental run, now. */
export function registerSync(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('sync')
    .description('run one incremental sync now (or a full refresh with --full)')
    .option('--account <id>', ACCOUNT_OPTION_HELP, collectAccount)
    .option(
      '--stream <name>',
      `a stream to sync: ${STREAM_NAMES.join(' or ')} (repeatable; default: the enabled ones)`,
      collectStream,
    )
    .option(
      '--property <id>',
      'a property to sync (repeatable, or comma-separated; default: the configured ones, else all)',
      collectProperty,
    )
    .option('--full', 'read the whole selection again instead of the incremental plan (uses many more calls)')
    .addHelpText(
      'after',
      [
        '',
        'Needs a migrated warehouse (propsync migrate) and the source credentials (PROPSYNC_API_URL,',
        'PROPSYNC_API_USERNAME, PROPSYNC_API_PASSWORD or config/propsync.yaml). Refuses to start a',
        'stream that another propsync process is syncing. Ctrl-C, SIGTERM or SIGHUP stops after the',
        'page in flight (exit 1; again, a second later, stops at once); the next run continues from',
        'the checkpoints.',
        '',
        'Exit codes: 0 done; 1 some work units failed or the run was stopped; 2 bad usage or',
        'configuration; 3 done, with records quarantined (see propsync status).',
        '',
        'Examples:',
        '  $ propsync sync',
        `  $ propsync sync --stream ${STREAM_NAMES[0]} --property 100001 --property 100002`,
        `  $ propsync sync --stream ${STREAM_NAMES[STREAM_NAMES.length - 1]} --full`,
        '',
      ].join('\n'),
    )
    .action(async (options: SyncOptions, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ configFor }, { runCommand }] = await Promise.all([
        import('../context.js'),
        import('../run-command.js'),
      ]);
      const config = configFor(command);
      done(
        await runCommand(
          config,
          {
            kind: 'sync',
            streams: options.stream,
            propertyIds: options.property,
            full: options.full === true,
          },
          'the sync',
          options.account,
        ),
      );
    });
}
