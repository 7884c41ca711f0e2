import { InvalidArgumentError, type Command } from 'commander';
import { STREAM_NAMES, type StreamName } from '../../streams/registry.js';
import { EXIT, ExitError, type ExitCode } from '../../app/exit-codes.js';
import { ACCOUNT_OPTION_HELP, collectAccount, collectProperty, collectStream } from '../options.js';

interface VerifyOptions {
  account?: string[];
  stream?: StreamName[];
  property?: string[];
  all?: boolean;
  sample?: number;
  json?: boolean;
  repair?: boolean;
}

/** The share of properties verified by default. */
const DEFAULT_SAMPLE = 5;

/** `--sample PERCENT`: a share of the properties, more than 0 and at most 100. */
function parsePercent(value: string): number {
  const percent = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || percent <= 0 || percent > 100)
    throw new InvalidArgumentError(
      `'${value}' is not a percentage; expected a number above 0, at most 100, such as 5`,
    );
  return percent;
}

/** `propsync verify`: reads properties' whole scopes again and compares the warehouse with them, row by row. */
export function registerVerify(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('verify')
    .description(
      'compare the warehouse with the source row by row (re-reading whole properties) ' +
        'and name every drifted row; --repair heals them',
    )
    .option('--account <id>', ACCOUNT_OPTION_HELP, collectAccount)
    .option(
      '--stream <name>',
      `a stream to verify: ${STREAM_NAMES.join(' or ')} (repeatable; default: the enabled ones)`,
      collectStream,
    )
    .option('--property <id>', 'a property to verify (repeatable, or comma-separated)', collectProperty)
    .option('--all', 'verify every property')
    .option(
      '--sample <percent>',
      `verify this share of the properties, least recently verified first ` +
        `(default ${DEFAULT_SAMPLE}, at least one property)`,
      parsePercent,
    )
    .option('--json', 'print one JSON document instead of tables')
    .option(
      '--repair',
      'make the drifted properties equal to the source (a full refresh of them), then verify them again',
    )
    .addHelpText(
      'after',
      [
        '',
        "Spends calls of the daily budget (each property's whole scope of every stream verified) at the",
        "account's pace. Without --repair it changes no data row. Each pass is recorded; propsync",
        'status shows the last one.',
        '',
        'Exit codes: 0 no row drifted; 4 rows drifted (after --repair: still); 1 the verification',
        'or the repair did not finish (budget spent, stopped, failed); 2 bad usage or configuration.',
        '',
        'Examples:',
        '  $ propsync verify',
        '  $ propsync verify --all --json',
        '  $ propsync verify --property 100001 --repair',
        '',
      ].join('\n'),
    )
    .action(async (options: VerifyOptions, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ configFor }, { runVerifyCommand }] = await Promise.all([
        import('../context.js'),
        import('../verify-run.js'),
      ]);
      const chosen = [options.all, options.sample !== undefined, options.property !== undefined].filter(
        Boolean,
      ).length;
      if (chosen > 1) throw new ExitError('choose one of --all, --sample and --property', EXIT.usage);
      const selection = options.property
        ? { kind: 'property' as const, propertyIds: options.property }
        : options.all
          ? { kind: 'all' as const }
          : { kind: 'sample' as const, percent: options.sample ?? DEFAULT_SAMPLE };
      const config = configFor(command);
      done(
        await runVerifyCommand(
          config,
          { streams: options.stream, selection, repair: options.repair === true },
          { json: options.json === true, accounts: options.account },
        ),
      );
    });
}
