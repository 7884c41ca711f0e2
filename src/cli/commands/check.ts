import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../../app/exit-codes.js';

/** `propsync check`: tests the connections before a first run, one line per thing checked. */
export function registerCheck(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('check')
    .description(
      "test the connections: the warehouse (reachable, TLS, migrations, the role's rights) " +
        "and each account's credentials",
    )
    .addHelpText(
      'after',
      [
        '',
        'Validates the configuration as a sync would, then connects: the warehouse (whether TLS is in',
        "use and the server's certificate verified, whether migrations are current, whether the role",
        "may read and write every table), and each account's source with one call (the first page of",
        'its property listing, no retry; not recorded in the run history). Prints one line per check,',
        '"ok" or "FAIL" with what to fix.',
        '',
        'Exit codes: 0 every check passed; 2 a check failed (or the configuration is invalid).',
        '',
        'Examples:',
        '  $ propsync check',
        '  $ propsync --config accounts.yaml check',
        '',
      ].join('\n'),
    )
    .action(async (_options, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ configFor }, { checkAccount, checkWarehouse }] = await Promise.all([
        import('../context.js'),
        import('../../app/check.js'),
      ]);
      const config = configFor(command);
      const [warehouse, ...accounts] = await Promise.all([
        checkWarehouse(config),
        ...config.accounts.map((account, index) => checkAccount(account, index)),
      ]);
      const lines = [...warehouse, ...accounts];
      for (const line of lines)
        process.stdout.write(`${line.ok ? 'ok  ' : 'FAIL'} ${line.what}: ${line.text}\n`);
      done(lines.every((line) => line.ok) ? EXIT.ok : EXIT.usage);
    });
}
