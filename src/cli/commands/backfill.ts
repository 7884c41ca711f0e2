import type { Command } from 'commander';
import type { ChunkSize } from '../../dates/calendar.js';
import { STREAM_MANIFESTS, STREAM_NAMES, type StreamName } from '../../streams/registry.js';
import { ExitError, EXIT, type ExitCode } from '../../app/exit-codes.js';
import {
  ACCOUNT_OPTION_HELP,
  collectAccount,
  collectProperty,
  parseChunk,
  parseDay,
  parseStream,
} from '../options.js';

interface BackfillOptions {
  account?: string[];
  stream: StreamName;
  from: string;
  to: string;
  property?: string[];
  chunk?: ChunkSize;
}

/** `propsync backfill --stream S --from D --to D [--property ID]... [--chunk 1m|3m|1y]`: a resumable range. */
export function registerBackfill(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('backfill')
    .description('load a historical date range of one stream, in chunks; rerunning the same command resumes')
    .requiredOption(
      '--stream <name>',
      `the stream: ${STREAM_MANIFESTS.map((manifest) => `${manifest.name} (by ${manifest.backfillBy})`).join(' or ')}`,
      parseStream,
    )
    .requiredOption('--from <date>', 'first day of the range, YYYY-MM-DD (inclusive)', parseDay)
    .requiredOption('--to <date>', 'last day of the range, YYYY-MM-DD (inclusive)', parseDay)
    .option('--account <id>', ACCOUNT_OPTION_HELP, collectAccount)
    .option(
      '--property <id>',
      'a property to backfill (repeatable, or comma-separated; default: the configured ones, else all)',
      collectProperty,
    )
    .option('--chunk <size>', 'chunk size: 1m, 3m or 1y (default: streams.<name>.chunk)', parseChunk)
    .addHelpText(
      'after',
      [
        '',
        'Each chunk (stream, property or property group, date range) is a work unit recorded in',
        'sync_work_units; a chunk already done is skipped, so running the same command again after',
        'a failure, Ctrl-C or a spent daily budget continues where it stopped. Dates are days in',
        'the configured time zone. A chunk costs one call per page: mind source.dailyCallBudget (propsync status).',
        '',
        'Examples:',
        `  $ propsync backfill --stream ${STREAM_NAMES[STREAM_NAMES.length - 1]} --from 2019-01-01 ` +
          `--to 2024-12-31 --chunk 3m`,
        `  $ propsync backfill --stream ${STREAM_NAMES[0]} --from 2015-01-01 --to 2024-12-31 --property 100001`,
        '',
      ].join('\n'),
    )
    .action(async (options: BackfillOptions, command: Command) => {
      if (options.from > options.to)
        throw new ExitError(
          `--from ${options.from} is after --to ${options.to}; expected from <= to`,
          EXIT.usage,
        );
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ configFor }, { runCommand }] = await Promise.all([
        import('../context.js'),
        import('../run-command.js'),
      ]);
      const config = configFor(command);
      const request = {
        kind: 'backfill' as const,
        streams: [options.stream],
        propertyIds: options.property,
        backfill: { from: options.from, to: options.to, chunk: options.chunk },
      };
      done(await runCommand(config, request, 'the backfill', options.account));
    });
}
