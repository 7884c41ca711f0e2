import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../../app/exit-codes.js';

/** `propsync migrate`: applies pending warehouse migrations; a second run does nothing and says so. */
export function registerMigrate(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('migrate')
    .description('create or upgrade the warehouse tables and reporting views (idempotent)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ propsync migrate\n  $ DATABASE_URL=postgres://postgres@127.0.0.1/warehouse propsync migrate',
    )
    .action(async (_options, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ offlineConfigFor }, { connect }, { migrateWarehouse }, { sessionTimeouts }] =
        await Promise.all([
          import('../context.js'),
          import('../../warehouse/db.js'),
          import('../../app/migrate-warehouse.js'),
          import('../../app/warehouse.js'),
        ]);
      const config = offlineConfigFor(command);
      const db = connect(config.database.url, {
        maxConnections: 1,
        timeouts: sessionTimeouts(config.database),
      });
      try {
        const { applied, reporting } = await migrateWarehouse(db);
        const lines = [
          ...applied.map((name) => `applied ${name}`),
          ...reporting.created.map((name) => `created reporting view ${name}`),
          ...reporting.replaced.map((name) => `replaced reporting view ${name}`),
          ...reporting.dropped.map((name) => `dropped reporting view ${name}`),
        ];
        if (lines.length === 0) process.stdout.write('warehouse is up to date; no migrations to apply\n');
        else for (const line of lines) process.stdout.write(`${line}\n`);
      } finally {
        await db.destroy();
      }
      done(EXIT.ok);
    });
}
