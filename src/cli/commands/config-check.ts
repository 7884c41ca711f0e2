import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../../app/exit-codes.js';

/**
 * `propsync config check`: validates the whole configuration (file, then environment) as a sync
 * would, and prints the result with every default filled in and the password masked.
 */
export function registerConfigCheck(program: Command, done: (code: ExitCode) => void): void {
  const config = program.commands.find((command) => command.name() === 'config') ?? program.command('config').description('inspect the configuration');
  config
    .command('check')
    .description('validate the configuration (file, then environment variables) and print it with defaults filled in, password masked')
    .addHelpText(
      'after',
      [
        '',
        'Exits 0 and prints the configuration when it is valid; exits 2 with one line per problem when not.',
        '',
        'Examples:',
        '  $ propsync config check',
        '  $ propsync --config /etc/propsync/propsync.yaml config check',
        '  $ PROPSYNC_FORMAT=xml PROPSYNC_PROPERTY_IDS=100001,100002 propsync config check',
      ].join('\n'),
    )
    .action(async (_options, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ stringify }, { DEFAULT_CONFIG_PATH, ENVIRONMENT_KEYS }, { redactUrl }, { configFor, globalOptions }] = await Promise.all([
        import('yaml'),
        import('../../config/load.js'),
        import('../../log/redact.js'),
        import('../context.js'),
      ]);
      const loaded = configFor(command);
      const file = globalOptions(command).config ?? DEFAULT_CONFIG_PATH;
      const variables = ENVIRONMENT_KEYS.filter((key) => process.env[key.env]).map((key) => key.env);
      const sources = [existsSync(file) ? file : null, variables.length ? `environment (${variables.join(', ')})` : null].filter(Boolean);
      process.stdout.write(`# configuration is valid; read from ${sources.length ? sources.join(', then ') : 'defaults only'}\n`);
      // Secrets masked, URL passwords hidden.
      const masked = {
        ...loaded,
        database: { ...loaded.database, url: redactUrl(loaded.database.url) },
        source: { ...loaded.source, ...(loaded.source.url !== undefined && { url: redactUrl(loaded.source.url) }), password: '***' },
      };
      process.stdout.write(stringify(masked));
      done(EXIT.ok);
    });
}
