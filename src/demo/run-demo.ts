import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { sql } from 'kysely';
import { ExitError, EXIT, type ExitCode } from '../app/exit-codes.js';
import { displayLogger } from '../app/logger.js';
import { createProgress, type Progress } from '../app/progress.js';
import { openPropsync } from '../app/propsync.js';
import { formatDuration, worstExitCode } from '../app/run-summary.js';
import { migrateWarehouse } from '../app/migrate-warehouse.js';
import { configSchema, configSchemaFor, STREAM_NAMES, type Config, type LogLevel } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import { datasetSummary, startSimulator } from '../simulator/index.js';
import { STREAM_MANIFESTS } from '../streams/registry.js';
import { settingsSchemaOf } from '../streams/settings.js';
import { tableCounts } from '../sync/status.js';
import type { SyncRequest } from '../sync/types.js';
import type { Db, Warehouse } from '../catalog/tables.js';
import { connect } from '../warehouse/db.js';
import { asOfDay, DEMO_READER, ensureDemoReader } from './analyst-queries.js';
import {
  analystAnswers,
  biToolLines,
  changesLine,
  EXAMPLE_QUERY,
  runsTable,
  tablesTable,
  type LabelledRun,
} from './report.js';
import {
  dayIn,
  freshDemoState,
  nextStep,
  readDemoState,
  worldDay,
  writeDemoState,
  type DemoState,
} from './state.js';
import { openDemoWarehouse, type DemoWarehouse } from './warehouse.js';
import { messageOf } from '../log/errors.js';

/** The simulated world of every demo: the `medium` data set of seed 1. */
export const DEMO_SEED = 1;
/**
 * The demo's period of the per-scope full refresh, for streams that have one. The demo jumps a week in one
 * step, which would make every scope's weekly refresh due at once; over 28 days, spread from the
 * first load, about a quarter of the scopes come due after one week, as some would on any night
 * in production.
 */
export const DEMO_FULL_REFRESH_DAYS = 28;

export interface DemoOptions {
  /** Keep Postgres up after the summary, until `signal` aborts (Ctrl-C). */
  keep: boolean;
  /** The demo's folder (`.propsync`): the embedded server's data and `demo.json`. */
  stateDir: string;
  /** Used instead of the embedded server when set. */
  databaseUrl?: string;
  /** On a terminal: progress bars and pretty log lines; else periodic JSON lines. */
  terminal: boolean;
  /** Level of the engine's and client's log lines (default warn: the demo's own lines tell the story). */
  logLevel?: LogLevel;
  /** Prints one line of the demo (the caller adds nothing; lines come prefixed). */
  print: (line: string) => void;
  /** Aborted by SIGINT/SIGTERM/SIGHUP: the run in flight stops after its page; with --keep, the demo ends. */
  signal: AbortSignal;
  /** The real today in the demo's time zone (default: the clock's); the simulated world never passes it. */
  today?: () => string;
  /** The north account's data set (default medium; tests take the small one). */
  northScale?: 'medium' | 'small';
}

/** Runs the whole demo and returns its exit code (the worst of its runs'). */
export async function runDemo(options: DemoOptions): Promise<ExitCode> {
  const started = Date.now();
  const say = (line = '') => options.print(`[demo] ${line}`.trimEnd());
  const lines = (texts: string[]) => texts.forEach((text) => options.print(text));
  say(
    'propsync demo: a simulated property-management API synced into a demo warehouse; nothing here is production data.',
  );

  const previous = readDemoState(options.stateDir);
  // The demo reads no configuration file: every setting is the default, the time zone included.
  const timeZone = configSchema.shape.timeZone.parse(undefined);
  const warehouse = await openDemoWarehouse({
    dataDir: join(options.stateDir, 'pgdata'),
    databaseUrl: options.databaseUrl,
  });
  say(
    warehouse.embedded
      ? `embedded Postgres is up (data kept in ${join(options.stateDir, 'pgdata')}): ${warehouse.shown}`
      : `using DATABASE_URL: ${warehouse.shown}`,
  );
  let db = connect<Warehouse>(warehouse.url, { maxConnections: 8, applicationName: 'propsync-demo' });
  try {
    ({ db } = await prepareWarehouse(db, warehouse, previous, say));
    const continuing =
      previous !== null && previous.warehouse === warehouse.fingerprint && (await hasHistory(db));
    const today = (options.today ?? (() => dayIn(timeZone)))();
    const state: DemoState = continuing ? previous : freshDemoState(today, warehouse.fingerprint, DEMO_SEED);
    writeDemoState(options.stateDir, state);

    const runs = await simulateAndSync(db, warehouse, state, continuing, today, options, say);
    const exitCode = runs.length ? worstExitCode(runs.map((run) => run.exitCode)) : EXIT.workFailed;

    say();
    say('runs of this demo');
    lines(runsTable(runs));
    say();
    say('rows per table');
    for (const account of DEMO_ACCOUNTS) {
      say(`  account ${account.id} (${account.name})`);
      lines(tablesTable(await tableCounts(db, account.id)));
    }
    const asOf = await asOfDay(db);
    for (const answer of await analystAnswers(db, asOf)) {
      say();
      say(answer.title);
      lines(answer.lines);
    }
    say();
    try {
      lines(biToolLines(warehouse.url, { role: await ensureDemoReader(db), password: DEMO_READER.password }));
    } catch (error) {
      say(
        `no BI reader role made (${messageOf(error)}); run \`propsync grant-reader ROLE --login\` ` +
          `as a user that may create roles`,
      );
    }
    say();
    say(
      `finished in ${formatDuration(Date.now() - started)}; the simulated world's today is ${worldDay(state)} ` +
        `(it started on ${state.startDay}; it never runs past the real today, ${today})`,
    );

    if (options.keep && !options.signal.aborted) {
      say('the warehouse stays up; query it from another terminal:');
      say(`  ${warehouse.psql}${warehouse.embedded ? '   (a local demo-only password)' : ''}`);
      say(`  e.g. ${EXAMPLE_QUERY}`);
      say('press Ctrl-C to stop');
      await new Promise<void>((resolve) =>
        options.signal.aborted ? resolve() : options.signal.addEventListener('abort', () => resolve()),
      );
    }
    return exitCode;
  } finally {
    await db.destroy();
    await warehouse.stop();
    if (warehouse.embedded) {
      say(
        `stopped the embedded Postgres; its data stays in ${join(options.stateDir, 'pgdata')}: ` +
          `the next \`npm run demo\` continues incrementally (rm -rf ${options.stateDir} to ` +
          `start over)`,
      );
    } else {
      say('the demo data stays in the DATABASE_URL database; the next demo continues incrementally');
    }
  }
}

/**
 * Makes sure the warehouse can take the demo: a warehouse with sync history that this demo's
 * state does not account for is recreated when it is the embedded one, and refused when it
 * comes from DATABASE_URL (it may be a real warehouse). Then migrates it.
 */
async function prepareWarehouse(
  db: Db,
  warehouse: DemoWarehouse,
  previous: DemoState | null,
  say: (line: string) => void,
): Promise<{ db: Db }> {
  const history = await hasHistory(db);
  if (history && previous?.warehouse !== warehouse.fingerprint) {
    if (!warehouse.embedded) {
      throw new ExitError(
        `DATABASE_URL (${warehouse.shown}) holds sync history that no demo wrote; ` +
          `the demo loads simulated data, so point DATABASE_URL at an empty database or unset it to ` +
          `use the embedded one`,
        EXIT.usage,
      );
    }
    say('the embedded warehouse holds data this demo has no record of; recreating it');
    await db.destroy();
    await warehouse.recreate();
    db = connect<Warehouse>(warehouse.url, { maxConnections: 8, applicationName: 'propsync-demo' });
  }
  const { applied } = await migrateWarehouse(db);
  say(applied.length ? `migrated the warehouse: ${applied.join(', ')}` : 'the warehouse is migrated already');
  return { db };
}

/** Whether the warehouse has run history (the bookkeeping table exists and holds a run). */
async function hasHistory(db: Db): Promise<boolean> {
  const { rows } = await sql<{
    exists: boolean;
  }>`select to_regclass('public.sync_runs') is not null as exists`.execute(db);
  if (!rows[0].exists) return false;
  const { rows: runs } = await sql<{ any: boolean }>`select exists (select 1 from sync_runs) as any`.execute(
    db,
  );
  return runs[0].any;
}

/**
 * The demo's two source accounts, one per auth mode: `north` (the medium data set) through Basic
 * auth, `south` (a small one, another seed, its ids overlapping north's) through the API-key
 * gateway. Their secrets are made anew at every start and handed over in environment variables.
 */
const DEMO_ACCOUNTS = [
  { id: 'north', name: 'North portfolio (Basic auth)', scale: 'medium', seedOffset: 0 },
  { id: 'south', name: 'South portfolio (API-key gateway)', scale: 'small', seedOffset: 1 },
] as const;
const DEMO_ORG = 'south-demo';

/** Starts both accounts' simulators at the warehouse's day, runs the first sync, moves a week, runs the second. */
async function simulateAndSync(
  db: Db,
  warehouse: DemoWarehouse,
  state: DemoState,
  continuing: boolean,
  today: string,
  options: DemoOptions,
  say: (line: string) => void,
): Promise<LabelledRun[]> {
  say(
    `generating the simulated worlds: medium and small data sets, seed ${state.seed}, ` +
      `starting on ${state.startDay} (takes a few seconds) ...`,
  );
  const generating = Date.now();
  const secrets = {
    DEMO_NORTH_PASSWORD: randomBytes(12).toString('hex'),
    DEMO_SOUTH_API_KEY: randomBytes(16).toString('hex'),
  };
  const [north, south] = DEMO_ACCOUNTS;
  const simulators = [
    await startSimulator({
      port: 0,
      scale: options.northScale ?? north.scale,
      seed: state.seed + north.seedOffset,
      today: state.startDay,
      username: 'demo',
      password: secrets.DEMO_NORTH_PASSWORD,
      rateLimit: 'default',
    }),
    await startSimulator({
      port: 0,
      scale: south.scale,
      seed: state.seed + south.seedOffset,
      today: state.startDay,
      apiKey: secrets.DEMO_SOUTH_API_KEY,
      org: DEMO_ORG,
      rateLimit: 'default',
    }),
  ];
  try {
    for (const days of state.steps) for (const sim of simulators) sim.advance(days);
    for (const [index, sim] of simulators.entries()) {
      say(
        `account ${DEMO_ACCOUNTS[index].id}: simulator up at ${sim.url} ` +
          `(${index === 0 ? 'Basic auth' : 'API-key gateway'}): ${datasetSummary(sim.dataset)}; ` +
          `its today is ${sim.dataset.today}` +
          (state.steps.length
            ? ` (replayed ${state.steps.length} step(s), where the last demo left the warehouse)`
            : ''),
      );
    }
    say(
      `simulators ready in ${formatDuration(Date.now() - generating)}; rate limits as the real API (150/minute)`,
    );
    const config = demoConfig(
      warehouse.url,
      simulators.map((sim) => sim.url),
      secrets,
      options,
    );
    const display = demoDisplay(options, config.logLevel);
    const propsync = await openPropsync(config, {
      logger: display.engineLogger,
      maxConnections: 12,
      budget: 'whole',
    });
    const runs: LabelledRun[] = [];
    try {
      const run = async (label: string, request: SyncRequest) => {
        say(`${label} ...`);
        const outcomes = await propsync.run(request, {
          signal: options.signal,
          observers: [display.progress.observer],
        });
        display.progress.stop();
        for (const outcome of outcomes) {
          const { summary } = outcome;
          if (!summary) {
            say(`${label}, account ${outcome.account}: not run: ${outcome.error}`);
            continue;
          }
          say(
            `${label}, account ${outcome.account}: ${summary.status}, ${summary.records} records ` +
              `read, ${summary.rowsInserted} rows inserted, ${summary.rowsUpdated} ` +
              `updated, ${summary.calls} calls, ${formatDuration(summary.durationMs)}`,
          );
          for (const error of summary.errors.slice(0, 5)) say(`  error: ${error}`);
          runs.push({ label: `${label} (${outcome.account})`, summary, exitCode: outcome.exitCode });
        }
      };
      if (continuing)
        await run('sync after restarting the simulators (nothing changed since the last demo)', {
          kind: 'sync',
        });
      else await run('first sync (no cursors yet: reads everything)', { kind: 'sync' });
      const step = nextStep(state, today);
      if (!options.signal.aborted && step === 0)
        say(
          `the simulated world has reached the real today (${today}): no newer days to sync; it moves on as ` +
            `real days pass (rm -rf ${options.stateDir} to start over)`,
        );
      else if (!options.signal.aborted) {
        const advances = simulators.map((sim) => sim.advance(step));
        state.steps.push(step);
        writeDemoState(options.stateDir, state);
        for (const [index, advance] of advances.entries())
          say(`account ${DEMO_ACCOUNTS[index].id}: ${changesLine(advance)}`);
        await run(`incremental sync after ${step} simulated day(s)`, { kind: 'sync' });
      }
    } finally {
      display.progress.stop();
      await propsync.close();
    }
    return runs;
  } finally {
    await Promise.all(simulators.map((sim) => sim.close()));
  }
}

/**
 * The demo's configuration: its warehouse and its two accounts (secrets from the environment
 * given, as an operator's configuration would name them), the engine's log level, and a full
 * refresh every `DEMO_FULL_REFRESH_DAYS` for the streams that have one. Everything else is the
 * default, the time zone included.
 */
function demoConfig(
  databaseUrl: string,
  sourceUrls: readonly string[],
  secrets: Record<string, string>,
  options: Pick<DemoOptions, 'logLevel'>,
): Config {
  const refreshed = STREAM_MANIFESTS.filter(
    (manifest) => 'fullRefreshDays' in settingsSchemaOf(manifest).shape,
  ).map((manifest) => manifest.name);
  const [north, south] = DEMO_ACCOUNTS;
  return configSchemaFor(secrets).parse({
    database: { url: databaseUrl },
    // The simulated day is not this machine's: take the simulator's Date whatever it says.
    source: { maxClockSkewHours: 0 },
    accounts: [
      {
        id: north.id,
        name: north.name,
        source: {
          url: sourceUrls[0],
          auth: { type: 'basic', username: 'demo', passwordEnv: 'DEMO_NORTH_PASSWORD' },
        },
      },
      {
        id: south.id,
        name: south.name,
        source: {
          url: sourceUrls[1],
          auth: { type: 'apikey', org: DEMO_ORG, apiKeyEnv: 'DEMO_SOUTH_API_KEY' },
        },
      },
    ],
    logLevel: options.logLevel ?? 'warn',
    streams: Object.fromEntries(
      STREAM_NAMES.filter((name) => refreshed.includes(name)).map((name) => [
        name,
        { fullRefreshDays: DEMO_FULL_REFRESH_DAYS },
      ]),
    ),
  }) as Config;
}

/** The demo's progress display and loggers: every log line carries `demo: true` and starts with `[demo]`. */
function demoDisplay(options: DemoOptions, logLevel: LogLevel): { progress: Progress; engineLogger: Logger } {
  const bars = options.terminal ? createProgress({ mode: 'bars', label: '[demo] ' }) : undefined;
  const base = displayLogger({ logLevel: 'info' }, { sink: bars?.sink, terminal: options.terminal }).child(
    { demo: true },
    { msgPrefix: '[demo] ' },
  );
  const progress = bars ?? createProgress({ mode: 'log', logger: base });
  return { progress, engineLogger: base.child({}, { level: logLevel }) };
}
