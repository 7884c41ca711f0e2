import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../../app/exit-codes.js';

/**
 * `propsync reporting rebuild`: makes every reporting view again from the whole warehouse, for
 * repair; a sync brings up to date only what it wrote (docs/reporting.md, "Refresh").
 */
export function registerReporting(program: Command, done: (code: ExitCode) => void): void {
  const reporting = program.command('reporting').description('maintain the reporting views');
  reporting
    .command('rebuild')
    .description(
      'make every reporting view again from the whole warehouse (repair; syncs refresh what they wrote)',
    )
    .addHelpText('after', '\nExamples:\n  $ propsync reporting rebuild')
    .action(async (_options, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ offlineConfigFor }, { openMigratedWarehouse }, { rebuildReporting }] = await Promise.all([
        import('../context.js'),
        import('../../app/warehouse.js'),
        import('../../reporting/refresh.js'),
      ]);
      const config = offlineConfigFor(command);
      // One connection holds the refresh's lock, another rebuilds.
      const db = await openMigratedWarehouse(config.database, { maxConnections: 2 });
      try {
        const started = Date.now();
        const { refreshed, skipped } = await rebuildReporting(db, {
          timeZone: config.timeZone,
          accounts: config.accounts.map(({ id, timeZone }) => ({ id, timeZone })),
          statementTimeoutMs: config.database.refreshStatementTimeoutMs,
        });
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        process.stdout.write(
          `rebuilt ${refreshed.length} reporting views in ${seconds} s: ${refreshed.join(', ')}\n`,
        );
        if (skipped.length) {
          process.stderr.write(
            `could not rebuild ${skipped.join(', ')}: another session held a lock on them; run it again\n`,
          );
          done(EXIT.workFailed);
          return;
        }
      } finally {
        await db.destroy();
      }
      done(EXIT.ok);
    });
}
