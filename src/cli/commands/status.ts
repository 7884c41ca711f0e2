import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../../app/exit-codes.js';
import { ACCOUNT_OPTION_HELP, collectAccount, wholeNumber } from '../options.js';

/** `propsync status [--json]`: what the warehouse knows of its syncs, read without calling the source. */
export function registerStatus(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('status')
    .description('show cursors, last runs, rows per table, calls spent today and open quarantine entries')
    .option('--account <id>', ACCOUNT_OPTION_HELP, collectAccount)
    .option('--json', 'print one JSON document instead of tables (for scripts and monitoring)')
    .option('--quarantine-limit <n>', 'open quarantine entries listed, newest first', wholeNumber(0), 20)
    .addHelpText(
      'after',
      [
        '',
        'Reads the warehouse only; makes no call to the source. Calls today are counted from the run',
        "history since midnight in each account's time zone, against its source.dailyCallBudget.",
        '',
        'Examples:',
        '  $ propsync status',
        "  $ propsync status --json | jq '.accounts[] | {id: .account, streams: [.streams[] | {stream, lastRun: .lastRun.status}]}'",
        "  $ propsync status --account north --json | jq '.accounts[0].budget'",
        '',
      ].join('\n'),
    )
    .action(
      async (options: { account?: string[]; json?: boolean; quarantineLimit: number }, command: Command) => {
        // Loaded here, not at the top: --help and usage errors stay fast.
        const [
          { escapeControls, redactUrl },
          { readStatus },
          { offlineConfigFor },
          { openMigratedWarehouse },
          { statusText },
          { selectedAccounts },
        ] = await Promise.all([
          import('../../log/redact.js'),
          import('../../sync/status.js'),
          import('../context.js'),
          import('../../app/warehouse.js'),
          import('../status-text.js'),
          import('../../app/propsync.js'),
        ]);
        const { deadLetters } = await import('../../queue/boss.js');
        const config = offlineConfigFor(command);
        const accounts = selectedAccounts(config.accounts, options.account);
        const db = await openMigratedWarehouse(config.database, { maxConnections: 1 });
        try {
          const reports = [];
          for (const account of accounts) {
            const { id, timeZone, source } = account;
            reports.push(
              await readStatus(db, {
                account: id,
                dailyCallBudget: source.dailyCallBudget,
                timeZone,
                quarantineLimit: options.quarantineLimit,
                abandonedAfterMinutes: config.abandonedAfterMinutes,
              }),
            );
          }
          // Jobs of `propsync worker` whose retries ran out (docs/operating.md#workers).
          const letters = await deadLetters(
            db,
            accounts.map((account) => account.id),
          );
          const withLetters = reports.map((report) => ({
            ...report,
            deadLetters: letters.filter((letter) => letter.account === report.account),
          }));
          if (options.json)
            process.stdout.write(
              `${JSON.stringify({ generatedAt: new Date().toISOString(), accounts: withLetters }, null, 2)}\n`,
            );
          else {
            const lines = statusText(reports, redactUrl(config.database.url));
            for (const letter of letters)
              lines.push(
                `dead-letter queue: account ${letter.account}, run #${letter.runId}, lane ${letter.laneKey} since ${letter.at.toISOString()}: ${letter.error.split('\n')[0]}`,
              );
            process.stdout.write(`${lines.map(escapeControls).join('\n')}\n`);
          }
        } finally {
          await db.destroy();
        }
        done(EXIT.ok);
      },
    );
}
