import { Command, CommanderError, Option } from 'commander';
import type { ConfigError } from '../config/load.js';
import { scrubSecrets, urlPasswords } from '../log/redact.js';
import { registerBackfill } from './commands/backfill.js';
import { registerCheck } from './commands/check.js';
import { registerConfigCheck } from './commands/config-check.js';
import { registerConsole } from './commands/console.js';
import { registerDemo } from './commands/demo.js';
import { registerGrantReader } from './commands/grant-reader.js';
import { registerMigrate } from './commands/migrate.js';
import { registerPrivacy } from './commands/privacy.js';
import { registerReporting } from './commands/reporting.js';
import { registerReset } from './commands/reset.js';
import { registerSchedule } from './commands/schedule.js';
import { registerSimulate } from './commands/simulate.js';
import { registerStatus } from './commands/status.js';
import { registerSync } from './commands/sync.js';
import { registerEnqueue } from './commands/enqueue.js';
import { registerWorker } from './commands/worker.js';
import { registerVerify } from './commands/verify.js';
import { registerAlerts } from './commands/alerts.js';
import { ExitError, EXIT, type ExitCode } from '../app/exit-codes.js';
import { STREAM_NAMES } from '../streams/registry.js';
import { packageVersion } from './version.js';
import { messageOf } from '../log/errors.js';

/** Each command registers itself here; a command file only parses and prints. */
const COMMANDS = [
  registerMigrate,
  registerConfigCheck,
  registerCheck,
  registerSync,
  registerBackfill,
  registerStatus,
  registerVerify,
  registerReset,
  registerSchedule,
  registerEnqueue,
  registerWorker,
  registerConsole,
  registerSimulate,
  registerDemo,
  registerGrantReader,
  registerReporting,
  registerAlerts,
  registerPrivacy,
];

/** Builds the `propsync` program; `done` receives the exit code the command chose. */
export function buildProgram(done: (code: ExitCode) => void): Command {
  const program = new Command('propsync')
    .description(
      `Keeps a Postgres warehouse in step with the property-management API (streams: ${STREAM_NAMES.join(', ')}).`,
    )
    .version(packageVersion(), '-V, --version', 'print the version of propsync')
    .addOption(
      new Option(
        '-c, --config <path>',
        'configuration file (default: config/propsync.yaml when present)',
      ).env('PROPSYNC_CONFIG'),
    )
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  program.configureHelp({ showGlobalOptions: true });
  for (const register of COMMANDS) register(program, done);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/** Runs the CLI with the given argv and returns the exit code. */
export async function runCli(argv: string[]): Promise<ExitCode> {
  let exitCode: ExitCode = EXIT.ok;
  const program = buildProgram((code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    return reportError(error, argv.slice(2));
  }
}

/** Words that ask for help; help shown without them (a command missing) is bad usage. */
const HELP_WORDS = new Set(['help', '--help', '-h']);

/**
 * A configuration error, told by its name: the configuration loader (YAML, schema) is imported
 * only by the commands that read a configuration, not at every start (`--help` stays fast).
 */
function isConfigError(error: unknown): error is ConfigError {
  return (
    error instanceof Error &&
    error.name === 'ConfigError' &&
    Array.isArray((error as Partial<ConfigError>).problems)
  );
}

/**
 * Values of the environment that may be secrets: the API password, the database URL's, and any
 * variable whose name says password, key, secret or token (an account's `passwordEnv` or
 * `apiKeyEnv` names one of those).
 */
function environmentSecrets(): string[] {
  const named = Object.entries(process.env)
    .filter(([name, value]) => /pass|key|secret|token/i.test(name) && value && value.length >= 6)
    .map(([, value]) => value!);
  return [
    process.env.PROPSYNC_API_PASSWORD ?? '',
    ...urlPasswords(process.env.DATABASE_URL),
    ...named,
  ].filter(Boolean);
}

function reportError(error: unknown, args: readonly string[]): ExitCode {
  const secrets = environmentSecrets();
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT.ok;
    if (error.code === 'commander.help')
      return args.some((arg) => HELP_WORDS.has(arg)) ? EXIT.ok : EXIT.usage;
    return EXIT.usage;
  }
  if (isConfigError(error)) {
    process.stderr.write(
      scrubSecrets(
        `propsync: invalid configuration\n${error.problems.map((p) => `  ${p}\n`).join('')}`,
        secrets,
      ),
    );
    return EXIT.usage;
  }
  if (error instanceof ExitError) {
    process.stderr.write(scrubSecrets(`propsync: ${error.message}\n`, secrets));
    return error.exitCode;
  }
  const message = messageOf(error);
  process.stderr.write(scrubSecrets(`propsync: ${message}\n`, secrets));
  return EXIT.workFailed;
}
