import type { Command } from 'commander';
import { STREAM_NAMES, type StreamName } from '../../streams/registry.js';
import type { ResetCursor } from '../../sync/reset.js';
import { ExitError, EXIT, type ExitCode } from '../../app/exit-codes.js';
import { parseProperty, parseStream } from '../options.js';
import { importModule } from '../../runtime/import-module.js';

interface ResetOptions {
  account?: string;
  stream: StreamName;
  property?: string;
  yes?: boolean;
}

/** `propsync reset --stream S [--property ID] [--yes]`: forgets cursors so that the next sync re-reads. */
export function registerReset(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('reset')
    .description(
      "forget a stream's cursors (all, or one property's) so that the next sync reads them again from the start",
    )
    .option(
      '--account <id>',
      'the account whose cursors to forget (accounts[].id; required when several are configured)',
    )
    .requiredOption('--stream <name>', `the stream: ${STREAM_NAMES.join(' or ')}`, parseStream)
    .option(
      '--property <id>',
      "only the cursors covering this property (for a stream that groups properties: its group's)",
      parseProperty,
    )
    .option('-y, --yes', 'do not ask for confirmation (required when not on a terminal)')
    .addHelpText(
      'after',
      [
        '',
        'The next sync plans the forgotten scopes as on a first run: every record is read again and',
        'upserted (unchanged rows are not rewritten). Rows, run history and backfill chunks are kept.',
        'Cursors of a property group cover the whole group, so --property resets the group it is in.',
        'Waits for nothing: when a run of the stream is in progress, reset refuses (exit 1).',
        '',
        'Examples:',
        `  $ propsync reset --stream ${STREAM_NAMES[0]} --property 100001`,
        `  $ propsync reset --stream ${STREAM_NAMES[STREAM_NAMES.length - 1]} --yes`,
        '',
      ].join('\n'),
    )
    .action(async (options: ResetOptions, command: Command) => {
      const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
      if (!options.yes && !interactive)
        throw new ExitError(
          'reset forgets cursors and asks for confirmation; not on a terminal, pass --yes to confirm',
          EXIT.usage,
        );
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [
        { describeHolder, lockName, withStreamLock },
        { cursorsToReset, resetCursors },
        { offlineConfigFor },
        { openMigratedWarehouse, sessionTimeouts },
        { formatTable },
        { selectedAccounts },
      ] = await Promise.all([
        import('../../sync/lock.js'),
        import('../../sync/reset.js'),
        import('../context.js'),
        import('../../app/warehouse.js'),
        import('../../app/table.js'),
        import('../../app/propsync.js'),
      ]);
      const cursorLines = (cursors: ResetCursor[]) =>
        formatTable(
          ['scope', 'cursor', 'value'],
          cursors.map((cursor) => [cursor.scope, cursor.cursor, cursor.value]),
          '  ',
        );
      const config = offlineConfigFor(command);
      if (!options.account && config.accounts.length > 1)
        throw new ExitError(
          `several accounts are configured ` +
            `(${config.accounts.map((account) => account.id).join(', ')}); name one with --account`,
          EXIT.usage,
        );
      const [account] = selectedAccounts(config.accounts, options.account ? [options.account] : undefined);
      const db = await openMigratedWarehouse(config.database, { maxConnections: 1 });
      try {
        const selection = { account: account.id, stream: options.stream, propertyId: options.property };
        const what = `${options.stream}${options.property ? ` for property ${options.property}` : ''}`;
        const planned = await cursorsToReset(db, selection);
        if (planned.length === 0) {
          process.stdout.write(`no cursors of ${what}; nothing to reset\n`);
          return done(EXIT.ok);
        }
        if (!options.yes) {
          process.stderr.write(`${cursorLines(planned).join('\n')}\n`);
          if (
            !(await confirm(
              `Forget these ${planned.length} cursor(s) of ${what}? The next sync re-reads them from the start. [y/N] `,
            ))
          ) {
            process.stdout.write('nothing reset\n');
            return done(EXIT.ok);
          }
        }
        const outcome = await withStreamLock(
          config.database.url,
          lockName(account.id, options.stream),
          () => resetCursors(db, selection),
          { timeouts: sessionTimeouts(config.database) },
        );
        if (!outcome.acquired)
          throw new ExitError(
            `${describeHolder(options.stream, outcome.holder)}; reset it once that run has ended`,
            EXIT.workFailed,
          );
        process.stdout.write(
          `forgot ${outcome.value.length} cursor(s) of ${what}:\n${cursorLines(outcome.value).join('\n')}\n`,
        );
        process.stdout.write(
          `the next \`propsync sync --stream ${options.stream}\` ` +
            `reads ${options.property ? 'that scope' : 'every scope'} from the start\n`,
        );
        done(EXIT.ok);
      } finally {
        await db.destroy();
      }
    });
}

async function confirm(question: string): Promise<boolean> {
  // Loaded here, not at the top: only a confirmation on a terminal reads a line.
  const { createInterface } = (await importModule(
    'node:readline/promises',
  )) as typeof import('node:readline/promises');
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^(y|yes)$/i.test((await prompt.question(question)).trim());
  } finally {
    prompt.close();
  }
}
