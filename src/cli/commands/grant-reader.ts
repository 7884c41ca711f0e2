import type { Command } from 'commander';
import { ExitError, EXIT, type ExitCode } from '../../app/exit-codes.js';
import { collectAccount } from '../options.js';
import { messageOf } from '../../log/errors.js';

interface GrantReaderCliOptions {
  login?: boolean;
  baseTables?: boolean;
  account?: string[];
  personal?: boolean;
}

/**
 * `propsync grant-reader ROLE [--login] [--base-tables] [--account ID]...`: makes ROLE a read-only
 * reader of the reporting views for BI tools (creating it when missing), of every account or of
 * the accounts named only; idempotent.
 */
export function registerGrantReader(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('grant-reader')
    .description('create or update a read-only role for BI tools: select on the reporting views (idempotent)')
    .argument('<role>', 'the role to create when missing, then grant')
    .option(
      '--login',
      'the role may log in, with the password in $PROPSYNC_READER_PASSWORD (default: NOLOGIN)',
    )
    .option('--base-tables', 'also grant select on the synced source tables in schema public')
    .option(
      '--account <id>',
      "the role sees this account's rows only (repeatable, or comma-separated; " +
        'default: every account, lifting an earlier limit)',
      collectAccount,
    )
    .option(
      '--personal',
      "the role may read the columns holding residents' personal data (default: every other column only)",
    )
    .addHelpText(
      'after',
      [
        '',
        'Grants usage on schema reporting and select on its views, and sets default privileges so that',
        'views added by later migrations are readable too. Needs a connecting user that may create roles',
        '(CREATEROLE) when the role is missing, and that owns schema reporting (the user that ran migrate).',
        '',
        'With --account the role, and every role or person that uses its privileges, sees the rows of those',
        'accounts only, in every reporting view and (row-level security) every base table; run it again',
        'without --account to let it see every account.',
        '',
        "Without --personal the role may not read the columns holding residents' personal data (names,",
        'e-mail addresses: docs/reporting.md marks them), whatever the privacy policy; select them by name.',
        'Run it again with --personal to grant them, or without to take them back.',
        '',
        'To give a person a login in the role (run in psql as a user with CREATEROLE):',
        "  create role alice login password 'a-strong-password';",
        '  grant bi_reader to alice;',
        '',
        'Examples:',
        '  $ propsync grant-reader bi_reader',
        '  $ PROPSYNC_READER_PASSWORD=... propsync grant-reader metabase --login',
        '  $ propsync grant-reader analysts --base-tables',
        '  $ propsync grant-reader north_bi --account north',
        '  $ propsync grant-reader collections --personal',
      ].join('\n'),
    )
    .action(async (roleName: string, options: GrantReaderCliOptions, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ offlineConfigFor }, { openWarehouse }, { scrubSecrets }, reader] = await Promise.all([
        import('../context.js'),
        import('../../app/warehouse.js'),
        import('../../log/redact.js'),
        import('../../reporting/reader-role.js'),
      ]);
      const problem = reader.readerRoleProblem(roleName);
      if (problem) throw new ExitError(problem, EXIT.usage);
      const password = options.login ? process.env[reader.READER_PASSWORD_ENV] : undefined;
      if (options.login && !password)
        throw new ExitError(
          `--login needs the role's password in $${reader.READER_PASSWORD_ENV}`,
          EXIT.usage,
        );
      const config = offlineConfigFor(command);
      const db = await openWarehouse(config.database, { maxConnections: 1 });
      let outcome;
      try {
        // No migration check here: the reader-to-be may not read the migrator's table; the grant
        // itself says "run propsync migrate" when schema reporting is missing.
        outcome = await reader.grantReader(db, {
          role: roleName,
          login: options.login,
          password,
          baseTables: options.baseTables,
          accounts: options.account,
          personal: options.personal,
        });
      } catch (error) {
        if (error instanceof reader.ReaderRoleError)
          throw new ExitError(scrubSecrets(error.message, [password]), EXIT.usage);
        if (error instanceof ExitError) throw error;
        // No cause: the original error's text may hold the password.
        // eslint-disable-next-line preserve-caught-error
        throw new Error(scrubSecrets(messageOf(error), [password]));
      } finally {
        await db.destroy();
      }
      const out = (line: string) => process.stdout.write(`${line}\n`);
      const passwordEnv = reader.READER_PASSWORD_ENV;
      out(
        outcome.created
          ? `created role ${roleName} (${outcome.loginSet ? 'login; password from $' + passwordEnv : 'nologin'})`
          : `role ${roleName} exists${outcome.loginSet ? '; login allowed, password set from $' + passwordEnv : ''}`,
      );
      out(
        `${roleName} may read schema reporting: ${outcome.views} views, and views created later ` +
          `by ${outcome.defaultPrivilegesFor}`,
      );
      if (outcome.baseTables)
        out(`${roleName} may read the ${outcome.baseTables} source tables of schema public`);
      out(
        outcome.accounts
          ? `${roleName} sees the rows of account${outcome.accounts.length > 1 ? 's' : ''} ` +
              `${outcome.accounts.join(', ')} only`
          : `${roleName} sees every account`,
      );
      out(
        outcome.personal
          ? `${roleName} may read the columns holding personal data`
          : `${roleName} may not read the columns holding personal data: ${outcome.personalColumnsWithheld.join(', ')}`,
      );
      for (const id of outcome.unknownAccounts)
        process.stderr.write(
          `warning: no run has synced account ${id} yet; ${roleName} sees its rows once one does\n`,
        );
      if (!outcome.loginSet) {
        out('to give a person a login in this role:');
        for (const line of reader.personLoginSql(roleName)) out(`  ${line}`);
      }
      done(EXIT.ok);
    });
}
