import type { Command } from 'commander';
import { EXIT, type ExitCode } from '../../app/exit-codes.js';
import type { StreamName } from '../../streams/registry.js';
import { ACCOUNT_OPTION_HELP, collectAccount, collectStream, wholeNumber } from '../options.js';
import { messageOf } from '../../log/errors.js';

interface StatusOptions {
  account?: string[];
  stream?: StreamName[];
  json?: boolean;
  check?: boolean;
  quarantineLimit: number;
}

/** `propsync status [--json] [--check]`: what the warehouse knows of its syncs, read without calling the source. */
export function registerStatus(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('status')
    .description(
      'show freshness, cursors, last runs, rows per table, calls spent today and open quarantine entries',
    )
    .option('--account <id>', ACCOUNT_OPTION_HELP, collectAccount)
    .option('--stream <name>', 'only this stream (repeatable); default: every stream', collectStream)
    .option('--json', 'print one JSON document instead of tables (for scripts and monitoring)')
    .option(
      '--check',
      'judge freshness only: one line per late or stale stream; exit 0 fresh, 5 warn, 6 error, 7 no warehouse',
    )
    .option('--quarantine-limit <n>', 'open quarantine entries listed, newest first', wholeNumber(0), 20)
    .addHelpText(
      'after',
      [
        '',
        'Reads the warehouse only; makes no call to the source. Calls today are counted from the run',
        "history since midnight in each account's time zone, against its source.dailyCallBudget.",
        'Freshness: ok, warn or error by the time since each stream last succeeded, against',
        'streams.<name>.freshness or, by default, its schedule (a daily stream warns after 26h, errors after 50h).',
        '',
        'Exit codes of --check (for cron jobs, monitoring scripts and container probes):',
        '  0  every stream checked is fresh',
        '  5  a stream is late (warn)',
        '  6  a stream is stale or never succeeded (error)',
        '  7  the warehouse cannot be reached or is not migrated',
        '',
        'Examples:',
        '  $ propsync status',
        '  $ propsync status --check --account north --stream STREAM',
        "  $ propsync status --json | jq '.accounts[] | {id: .account, streams: " +
          "[.streams[] | {stream, freshness: .freshness.state}]}'",
        "  $ propsync status --account north --json | jq '.accounts[0].budget'",
        '',
      ].join('\n'),
    )
    .action(async (options: StatusOptions, command: Command) => {
      // Loaded here, not at the top: --help and usage errors stay fast.
      const [{ offlineConfigFor }, { selectedAccounts }, { freshnessTargets }] = await Promise.all([
        import('../context.js'),
        import('../../app/propsync.js'),
        import('../../sync/freshness.js'),
      ]);
      const config = offlineConfigFor(command);
      const accounts = selectedAccounts(config.accounts, options.account);
      // Worked out once the warehouse is open: a warehouse that is away is said first.
      const targets = () => freshnessTargets(config, accounts, options.stream);
      const named = config.accounts.length > 1;
      done(
        options.check
          ? await checkFreshness(config.database, targets, { json: options.json, named })
          : await showStatus(config, accounts, targets, options),
      );
    });
}

type OfflineConfig = import('../../config/schema.js').OfflineConfig;
type FreshnessTarget = import('../../sync/freshness.js').FreshnessTarget;

/** `status --check`: the freshness of each target, one line per problem; the exit code says the worst. */
async function checkFreshness(
  database: OfflineConfig['database'],
  targets: () => readonly FreshnessTarget[],
  options: { json?: boolean; named: boolean },
): Promise<ExitCode> {
  const [{ openMigratedWarehouse }, { readFreshness }, { checkExitCode, checkLines }, { escapeControls }] =
    await Promise.all([
      import('../../app/warehouse.js'),
      import('../../sync/freshness.js'),
      import('../status-check.js'),
      import('../../log/redact.js'),
    ]);
  const print = (lines: string[]) => process.stdout.write(`${lines.map(escapeControls).join('\n')}\n`);
  let db;
  try {
    db = await openMigratedWarehouse(database, { maxConnections: 1 });
  } catch (error) {
    const message = messageOf(error);
    if (options.json) print([JSON.stringify({ exitCode: EXIT.databaseUnreachable, error: message })]);
    else print([`ERROR warehouse: ${message}`]);
    return EXIT.databaseUnreachable;
  }
  try {
    const judged = await readFreshness(db, targets());
    const exitCode = checkExitCode(judged);
    if (options.json)
      print(
        JSON.stringify({ generatedAt: new Date().toISOString(), exitCode, freshness: judged }, null, 2).split(
          '\n',
        ),
      );
    else print(checkLines(judged, options.named));
    return exitCode;
  } finally {
    await db.destroy();
  }
}

/** The whole status: a summary line per account, then each account's details (or one JSON document). */
async function showStatus(
  config: OfflineConfig,
  accounts: OfflineConfig['accounts'],
  targets: () => readonly FreshnessTarget[],
  options: StatusOptions,
): Promise<ExitCode> {
  const [
    { escapeControls, redactUrl },
    { readStatus },
    { openMigratedWarehouse },
    { statusText },
    { deadLetters },
    { privacyOf },
  ] = await Promise.all([
    import('../../log/redact.js'),
    import('../../sync/status.js'),
    import('../../app/warehouse.js'),
    import('../status-text.js'),
    import('../../queue/jobs.js'),
    import('../../config/privacy.js'),
  ]);
  const db = await openMigratedWarehouse(config.database, { maxConnections: 1 });
  try {
    const freshness = targets();
    const reports = [];
    for (const account of accounts) {
      const { id, timeZone, source } = account;
      const report = await readStatus(db, {
        account: id,
        dailyCallBudget: source.dailyCallBudget,
        timeZone,
        quarantineLimit: options.quarantineLimit,
        abandonedAfterMinutes: config.abandonedAfterMinutes,
        freshness,
        privacy: privacyOf(config, account),
      });
      const streams = options.stream;
      reports.push(
        streams ? { ...report, streams: report.streams.filter((s) => streams.includes(s.stream)) } : report,
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
          `dead-letter queue: account ${letter.account}, run #${letter.runId}, lane ${letter.laneKey} ` +
            `since ${letter.at.toISOString()}: ${letter.error.split('\n')[0]}`,
        );
      process.stdout.write(`${lines.map(escapeControls).join('\n')}\n`);
    }
  } finally {
    await db.destroy();
  }
  return EXIT.ok;
}
