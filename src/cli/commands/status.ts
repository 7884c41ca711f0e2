import { InvalidArgumentError, type Command } from 'commander';
import { EXIT, type ExitCode } from '../../app/exit-codes.js';

/** `propsync status [--json]`: what the warehouse knows of its syncs, read without calling the source. */
export function registerStatus(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('status')
    .description('show cursors, last runs, rows per table, calls spent today and open quarantine entries')
    .option('--json', 'print one JSON document instead of tables (for scripts and monitoring)')
    .option('--quarantine-limit <n>', 'open quarantine entries listed, newest first', parseCount, 20)
    .addHelpText(
      'after',
      [
        '',
        'Reads the warehouse only; makes no call to the source. Calls today are counted from the run',
        'history since midnight in the configured time zone (timeZone), against source.dailyCallBudget.',
        '',
        'Examples:',
        '  $ propsync status',
        '  $ propsync status --json | jq \'.streams[] | {stream, lastRun: .lastRun.status}\'',
        '  $ propsync status --json | jq .budget',
        '',
      ].join('\n'),
    )
    .action(async (options: { json?: boolean; quarantineLimit: number }, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ configSchema }, { escapeControls, redactUrl }, { readStatus }, { offlineConfigFor }, { openMigratedWarehouse }, { statusText }] = await Promise.all([
        import('../../config/schema.js'),
        import('../../log/redact.js'),
        import('../../sync/status.js'),
        import('../context.js'),
        import('../../app/warehouse.js'),
        import('../status-text.js'),
      ]);
      const config = offlineConfigFor(command);
      const dailyCallBudget = config.source?.dailyCallBudget ?? configSchema.shape.source.shape.dailyCallBudget.parse(undefined);
      const db = await openMigratedWarehouse(config.database, { maxConnections: 1 });
      try {
        const report = await readStatus(db, { dailyCallBudget, timeZone: config.timeZone, quarantineLimit: options.quarantineLimit, abandonedAfterMinutes: config.abandonedAfterMinutes });
        if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        else process.stdout.write(`${statusText(report, redactUrl(config.database.url)).map(escapeControls).join('\n')}\n`);
      } finally {
        await db.destroy();
      }
      done(EXIT.ok);
    });
}

function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number such as 20');
  return Number(value);
}
