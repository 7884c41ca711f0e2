import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../../app/exit-codes.js';
import type { ConfigError } from '../../config/load.js';
import type { Account, AlertTarget, Config } from '../../config/schema.js';

/**
 * `propsync config check`: validates the whole configuration (file, then environment) as a sync
 * would, and prints one line per account, then the configuration with every default filled in
 * and every secret masked. Problems are grouped per account.
 */
export function registerConfigCheck(program: Command, done: (code: ExitCode) => void): void {
  const config =
    program.commands.find((command) => command.name() === 'config') ??
    program.command('config').description('inspect the configuration');
  config
    .command('check')
    .description(
      'validate the configuration (file, then environment variables) and print its accounts, ' +
        'then the whole of it with defaults filled in, secrets masked',
    )
    .addHelpText(
      'after',
      [
        '',
        'Exits 0 and prints one line per account, then the configuration, when it is valid (warnings',
        'go to stderr); exits 2 with one line per problem, grouped per account, when not.',
        '',
        'Examples:',
        '  $ propsync config check',
        '  $ propsync --config /etc/propsync/propsync.yaml config check',
        '  $ PROPSYNC_FORMAT=xml PROPSYNC_PROPERTY_IDS=100001,100002 propsync config check',
      ].join('\n'),
    )
    .action(async (_options, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [
        { stringify },
        { ConfigError, DEFAULT_CONFIG_PATH, ENVIRONMENT_KEYS },
        { escapeControls, redactUrl },
        { configFor, globalOptions },
        { describeTls, tlsSettingsOf },
        { ALERT_KINDS },
        { workerPool, workerShortfall },
      ] = await Promise.all([
        import('yaml'),
        import('../../config/load.js'),
        import('../../log/redact.js'),
        import('../context.js'),
        import('../../warehouse/tls.js'),
        import('../../config/alerts.js'),
        import('../../app/connection-plan.js'),
      ]);
      let loaded: Config;
      try {
        loaded = configFor(command);
      } catch (error) {
        if (!(error instanceof ConfigError) || error.accountOf.every((account) => account === null))
          throw error;
        process.stderr.write(groupedProblems(error).join(''));
        done(EXIT.usage);
        return;
      }
      // A worker that could not start on this configuration is a problem of it, as the worker would say.
      const { maxConnections } = loaded.database;
      if (workerPool(maxConnections, loaded.worker.concurrency) === undefined) {
        const problem = `worker.concurrency: ${workerShortfall(maxConnections, loaded.worker.concurrency)}`;
        process.stderr.write(groupedProblems({ problems: [problem], accountOf: [null] }).join(''));
        done(EXIT.usage);
        return;
      }
      const file = globalOptions(command).config || DEFAULT_CONFIG_PATH;
      const variables = ENVIRONMENT_KEYS.filter((key) => process.env[key.env]).map((key) => key.env);
      const sources = [
        existsSync(file) ? file : null,
        variables.length ? `environment (${variables.join(', ')})` : null,
      ].filter(Boolean);
      process.stdout.write(
        `# configuration is valid; read from ${sources.length ? sources.join(', then ') : 'defaults only'}\n`,
      );
      for (const account of loaded.accounts)
        process.stdout.write(`# ${escapeControls(accountLine(account, redactUrl))}\n`);
      const tls = describeTls(tlsSettingsOf(loaded.database.url));
      process.stdout.write(`# database: ${tls}; \`propsync check\` connects and says what the session has\n`);
      for (const target of loaded.alerts)
        process.stdout.write(`# ${escapeControls(alertTargetLine(target, ALERT_KINDS))}\n`);
      for (const warning of loaded.warnings)
        process.stderr.write(`propsync: warning: ${escapeControls(warning)}\n`);
      // Secrets masked, URL passwords hidden.
      const { warnings: _, ...shown } = loaded;
      const masked = {
        ...shown,
        database: { ...loaded.database, url: redactUrl(loaded.database.url) },
        source: {
          ...loaded.source,
          ...(loaded.source.url !== undefined && { url: redactUrl(loaded.source.url) }),
          ...(loaded.source.password !== undefined && { password: '***' }),
        },
        accounts: loaded.accounts.map((account) => ({
          ...account,
          source: maskedSource(account.source, redactUrl),
        })),
        // A webhook URL is a secret: its scheme and host only.
        alerts: loaded.alerts.map((target) => ({ ...target, url: target.url.masked() })),
      };
      process.stdout.write(stringify(masked, { aliasDuplicateObjects: false }));
      done(EXIT.ok);
    });
}

/** `account north (North portfolio): auth basic, https://north.example.com, time zone America/Denver`. */
export function accountLine(account: Account, redactUrl: (url: string) => string): string {
  const name = account.name === null ? '' : ` (${account.name})`;
  return (
    `account ${account.id}${name}: ` +
    `auth ${account.source.auth.type}, ${redactUrl(account.source.url)}, ` +
    `time zone ${account.timeZone}`
  );
}

/** `alert target ops: slack to https://hooks.slack.com/***, every kind, warn and worse, every account`. */
export function alertTargetLine(target: AlertTarget, everyKind: readonly string[]): string {
  const kinds = everyKind.every((kind) => target.kinds.includes(kind as AlertTarget['kinds'][number]))
    ? 'every kind'
    : target.kinds.join(', ');
  const severity = target.minSeverity === 'warn' ? 'warn and error' : 'error only';
  const accounts = target.accounts ? `accounts ${target.accounts.join(', ')}` : 'every account';
  return `alert target ${target.name}: ${target.format} to ${target.url.masked()}, ${kinds}, ${severity}, ${accounts}`;
}

/** An account's source with its URL's password and its auth's secret masked. */
function maskedSource(
  source: Account['source'],
  redactUrl: (url: string) => string,
): Record<string, unknown> {
  const auth =
    source.auth.type === 'basic' ? { ...source.auth, password: '***' } : { ...source.auth, apiKey: '***' };
  return { ...source, url: redactUrl(source.url), auth };
}

/** The problems of an invalid configuration, those of each account under a line naming it. */
export function groupedProblems(error: Pick<ConfigError, 'problems' | 'accountOf'>): string[] {
  const lines = ['propsync: invalid configuration\n'];
  const general = error.problems.filter((_, index) => error.accountOf[index] === null);
  lines.push(...general.map((problem) => `  ${problem}\n`));
  const accounts = [...new Set(error.accountOf.filter((account): account is string => account !== null))];
  for (const account of accounts) {
    lines.push(`  ${account}:\n`);
    lines.push(
      ...error.problems
        .filter((_, index) => error.accountOf[index] === account)
        .map((problem) => `    ${problem}\n`),
    );
  }
  return lines;
}
