import type { Command } from 'commander';
import { ExitError, EXIT, type ExitCode } from '../../app/exit-codes.js';

interface ApplyOptions {
  account?: string[];
}

/** `propsync privacy apply [--account ID...]`: rewrites the rows of the warehouse to the configured privacy policy. */
export function registerPrivacy(program: Command, done: (code: ExitCode) => void): void {
  const privacy = program
    .command('privacy')
    .description("the residents' personal-data policy (privacy: of the configuration; docs/privacy.md)");
  privacy
    .command('apply')
    .description(
      'rewrite the rows already in the warehouse to the configured privacy policy, without calling the source',
    )
    .option('--account <id...>', 'only these accounts (accounts[].id); default every configured one')
    .addHelpText(
      'after',
      [
        '',
        'Needed after privacy: changes on a warehouse with data: until it has run, a sync refuses to write.',
        'Works table by table in batches, each committed with how far it got: run it again after an',
        'interruption and it goes on from there. Prints the rows it changed per table. Takes the',
        "account's stream locks, so it waits for no sync and refuses while one runs (exit 1). Kept",
        'values can be hashed or dropped, hashed ones dropped; hashed or dropped values cannot come back.',
        '',
        'Example:',
        '  $ PROPSYNC_PRIVACY_KEY=... propsync privacy apply',
        '',
      ].join('\n'),
    )
    .action(async (options: ApplyOptions, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [
        { offlineConfigFor },
        { openMigratedWarehouse, sessionTimeouts },
        { selectedAccounts },
        { describeHolder, lockName, withStreamLocks },
        { applyPrivacy, PrivacyChangeError },
        { describePolicy, privacyPolicy },
        { STREAM_NAMES },
        { formatTable },
        { hashKeyProblem, privacyOf },
      ] = await Promise.all([
        import('../context.js'),
        import('../../app/warehouse.js'),
        import('../../app/propsync.js'),
        import('../../sync/lock.js'),
        import('../../sync/privacy/apply.js'),
        import('../../sync/privacy/policy.js'),
        import('../../streams/registry.js'),
        import('../../app/table.js'),
        import('../../config/privacy.js'),
      ]);
      const config = offlineConfigFor(command);
      const accounts = selectedAccounts(config.accounts, options.account);
      // Every selected account's policy and key are checked before any row is rewritten (the
      // configuration of a command that calls no source leaves the key unchecked).
      const policies = accounts.map((account) => {
        const settings = privacyOf(config, account);
        const at = account.privacy ? `accounts[${config.accounts.indexOf(account)}].privacy` : 'privacy';
        const problem = hashKeyProblem(settings);
        if (problem) throw new ExitError(`${at}.hashKeyEnv: ${problem.message}`, EXIT.usage);
        return privacyPolicy(settings);
      });
      const db = await openMigratedWarehouse(config.database, { maxConnections: 2 });
      try {
        for (const [index, account] of accounts.entries()) {
          const policy = policies[index];
          const outcome = await withStreamLocks(
            config.database.url,
            STREAM_NAMES.map((stream) => lockName(account.id, stream)),
            () => applyPrivacy(db, account.id, policy),
            { timeouts: sessionTimeouts(config.database) },
          ).catch((error: unknown) => {
            if (error instanceof PrivacyChangeError)
              throw new ExitError(`account ${account.id}: ${error.message}`, EXIT.usage);
            throw error;
          });
          if (!outcome.acquired)
            throw new ExitError(
              `${describeHolder(outcome.stream, outcome.holder)}; run privacy apply once that run has ended`,
              EXIT.workFailed,
            );
          const { from, to, tables } = outcome.value;
          const changed = tables.reduce((sum, table) => sum + table.changed, 0);
          process.stdout.write(
            `account ${account.id}: privacy policy "${describePolicy(to)}" in force` +
              (from ? ` (rows were written under "${describePolicy(from)}")` : ' (no rows yet)') +
              `; ${changed} row(s) rewritten\n`,
          );
          if (tables.length)
            process.stdout.write(
              `${formatTable(
                ['table', 'rows changed'],
                tables.map((table) => [table.table, String(table.changed)]),
                '  ',
              ).join('\n')}\n`,
            );
        }
        done(EXIT.ok);
      } finally {
        await db.destroy();
      }
    });
}
