import type { Command } from 'commander';
import type { LogLevel } from '../../config/schema.js';
import { ExitError, EXIT, type ExitCode } from '../../app/exit-codes.js';

/** `propsync demo [--keep]`: the whole product on a simulated API and an embedded Postgres, no configuration. */
export function registerDemo(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('demo')
    .description(
      'sync a simulated API into an embedded Postgres and answer three analyst questions (no configuration needed)',
    )
    .option(
      '--keep',
      'keep the database up after the summary so that you can query it with psql, until Ctrl-C',
    )
    .addHelpText(
      'after',
      [
        '',
        'Starts an embedded Postgres with its data in .propsync/pgdata (or uses DATABASE_URL when set,',
        'refusing a database with sync history that no demo wrote), starts the simulator on the medium',
        'data set in this process, migrates, runs a full sync, moves the simulated business a week on',
        'and runs an incremental sync, then prints rows per table, calls and durations, occupancy by',
        'property, AR balance by aging bucket and vendor spend by month. Ignores config/propsync.yaml.',
        '',
        'A second demo continues: the simulator is rebuilt from the same seed and replayed to the day',
        'the warehouse last saw (kept in .propsync/demo.json), so its first sync changes nothing and its',
        'second brings in one more week. rm -rf .propsync starts over. PROPSYNC_LOG_LEVEL=info shows',
        "the engine's own log lines (default warn).",
        '',
        'Examples:',
        '  $ npm run demo',
        '  $ propsync demo --keep',
        '',
      ].join('\n'),
    )
    .action(async (options: { keep?: boolean }) => {
      // The schema (zod) is loaded here, not at the top: --help and usage errors stay fast.
      const { LOG_LEVELS } = await import('../../config/schema.js');
      const level = process.env.PROPSYNC_LOG_LEVEL;
      if (level !== undefined && level !== '' && !(LOG_LEVELS as readonly string[]).includes(level)) {
        throw new ExitError(
          `PROPSYNC_LOG_LEVEL: "${level}" is not a log level; expected one of ${LOG_LEVELS.join(', ')}`,
          EXIT.usage,
        );
      }
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ runDemo }, { isTerminal, loggerFor }, { abortOnSignals }] = await Promise.all([
        import('../../demo/run-demo.js'),
        import('../../app/logger.js'),
        import('../../app/signals.js'),
      ]);
      const signals = abortOnSignals(loggerFor({ logLevel: 'info' }, { demo: true }), 'the demo');
      try {
        done(
          await runDemo({
            keep: options.keep === true,
            stateDir: '.propsync',
            databaseUrl: process.env.DATABASE_URL || undefined,
            terminal: isTerminal(process.stderr),
            logLevel: (level || undefined) as LogLevel | undefined,
            print: (line) => process.stdout.write(`${line}\n`),
            signal: signals.signal,
          }),
        );
      } finally {
        signals.dispose();
      }
    });
}
