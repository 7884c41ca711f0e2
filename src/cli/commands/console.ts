import type { Command } from 'commander';
import type { ExitCode } from '../../app/exit-codes.js';
import { ACCOUNT_OPTION_HELP, collectAccount, wholeNumber } from '../options.js';

/** `propsync console [--host H] [--port N] [--account ID]...`: the read-only web console alone. */
export function registerConsole(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('console')
    .description('serve the read-only web console (runs, units, quarantine, verify, queue) until stopped')
    .option('--account <id>', ACCOUNT_OPTION_HELP, collectAccount)
    .option('--host <address>', 'address to listen on (default: metrics.host, 127.0.0.1)')
    .option('--port <n>', 'port to listen on (default: metrics.port, 9464)', wholeNumber(1, 65535))
    .addHelpText(
      'after',
      [
        '',
        'For syncs run from cron: `propsync schedule` and `propsync worker` serve the same console',
        'beside /healthz and /metrics. Reads the warehouse only, through two connections of its own.',
        'It refuses to listen on an address other than this machine (127.0.0.1, ::1) unless',
        'console.auth is set (Basic with passwordEnv, or a bearer token). See docs/console.md.',
        '',
        'Examples:',
        '  $ propsync console                      # then open http://127.0.0.1:9464/',
        '  $ propsync console --port 8088 --account north',
        '',
      ].join('\n'),
    )
    .action(async (options: { account?: string[]; host?: string; port?: number }, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ offlineConfigFor }, { runConsoleProcess }] = await Promise.all([
        import('../context.js'),
        import('../../console/run-console.js'),
      ]);
      const config = offlineConfigFor(command);
      done(
        await runConsoleProcess(config, {
          host: options.host ?? config.metrics.host,
          port: options.port ?? (config.metrics.port || 9464),
          accounts: options.account,
        }),
      );
    });
}
