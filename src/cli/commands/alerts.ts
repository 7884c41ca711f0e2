import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../../app/exit-codes.js';

/** `propsync alerts test`: one test message to each alert target, to see that it arrives. */
export function registerAlerts(program: Command, done: (code: ExitCode) => void): void {
  const alerts = program.command('alerts').description('the alert targets (alerts: in the configuration)');
  alerts
    .command('test')
    .description('send a test message to each alert target and say which received it')
    .option('--target <name>', 'only this target (alerts[].name)')
    .addHelpText(
      'after',
      [
        '',
        'Exits 0 when every target answered 2xx, 1 when one did not (after its retries), 2 when no',
        'target is configured. URLs are never printed: targets are named by alerts[].name.',
        '',
        'Examples:',
        '  $ propsync alerts test',
        '  $ propsync alerts test --target ops-slack',
        '',
      ].join('\n'),
    )
    .action(async (options: { target?: string }, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ configFor }, { deliver }, { bodyFor }, { ExitError }] = await Promise.all([
        import('../context.js'),
        import('../../app/alerts/deliver.js'),
        import('../../app/alerts/messages.js'),
        import('../../app/exit-codes.js'),
      ]);
      const config = configFor(command);
      const targets = config.alerts.filter((target) => !options.target || target.name === options.target);
      if (targets.length === 0)
        throw new ExitError(
          options.target
            ? `no alert target is named '${options.target}'; ` +
                `the targets are ${config.alerts.map((t) => t.name).join(', ') || 'none'}`
            : 'no alert target is configured; add one under alerts: (docs/alerts.md)',
          EXIT.usage,
        );
      const at = new Date().toISOString();
      const results = await Promise.all(
        targets.map(async (target) => {
          const result = await deliver(
            target,
            bodyFor(target.format, {
              event: 'test',
              kind: 'test',
              severity: 'warn',
              account: target.accounts?.join(',') ?? 'all accounts',
              alertKey: 'test',
              stream: null,
              summary: `a test message from propsync alerts test to target ${target.name}; nothing is wrong`,
              details: {},
              since: at,
              at,
            }),
          );
          const line = result.delivered
            ? `ok ${target.name} (${target.format}, ${target.url.masked()}): ` +
              `delivered (${result.attempts} attempt${result.attempts > 1 ? 's' : ''})`
            : `FAILED ${target.name} (${target.format}, ${target.url.masked()}): ${result.error}`;
          return { line, delivered: result.delivered };
        }),
      );
      process.stdout.write(`${results.map((result) => result.line).join('\n')}\n`);
      done(results.every((result) => result.delivered) ? EXIT.ok : EXIT.workFailed);
    });
}
