import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../../app/exit-codes.js';

/** `propsync migrate`: applies pending warehouse migrations; a second run does nothing and says so. */
export function registerMigrate(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('migrate')
    .description('create or upgrade the warehouse tables (idempotent)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ propsync migrate\n  $ DATABASE_URL=postgres://postgres@127.0.0.1/warehouse propsync migrate',
    )
    .action(async (_options, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [
        { offlineConfigFor },
        { connect },
        { migrateToLatest },
        { WAREHOUSE_TABLES },
        { sessionTimeouts },
      ] = await Promise.all([
        import('../context.js'),
        import('../../warehouse/db.js'),
        import('../../warehouse/migrate.js'),
        import('../../catalog/tables.js'),
        import('../../app/warehouse.js'),
      ]);
      const config = offlineConfigFor(command);
      const db = connect(config.database.url, {
        maxConnections: 1,
        timeouts: sessionTimeouts(config.database),
      });
      try {
        const { applied } = await migrateToLatest(db, WAREHOUSE_TABLES);
        if (applied.length === 0) process.stdout.write('warehouse is up to date; no migrations to apply\n');
        else for (const name of applied) process.stdout.write(`applied ${name}\n`);
      } finally {
        await db.destroy();
      }
      done(EXIT.ok);
    });
}
