import type { Config, StreamName } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import { describeHolder, withStreamLocks } from '../scheduler/lock.js';
import { combineObservers } from '../scheduler/observers.js';
import { createSourceClient } from '../source/index.js';
import type { CallEvent, SourceClient } from '../source/types.js';
import { runSync } from '../sync/index.js';
import { streamsOf } from '../sync/plan-run.js';
import { callsToday } from '../sync/status.js';
import type { RunSummary, SyncObserver, SyncRequest } from '../sync/types.js';
import type { Db } from '../warehouse-schema.js';
import { abortOnSignals, commandLogger, openWarehouse, requireMigrated } from './context.js';
import { CliError, EXIT, type ExitCode } from './exit-codes.js';
import { createProgress, progressModeFor } from './progress.js';
import { exitCodeFor, summaryLines } from './run-summary.js';

/** The streams a request covers: the ones asked for, else the enabled ones (the engine's rule). */
export function requestedStreams(config: Config, request: SyncRequest): StreamName[] {
  const enabled = streamsOf(request, { config });
  if (enabled.length === 0) throw new CliError('no stream is enabled in the configuration (streams.<name>.enabled); name one with --stream', EXIT.usage);
  return enabled;
}

/**
 * Calls left in today's budget (America/Denver day) after what the run history says was spent
 * today by every process on this warehouse. Fails with exit 1 when nothing is left.
 */
export async function budgetLeftToday(db: Db, config: Config): Promise<number> {
  const spent = (await callsToday(db)).get('*') ?? 0;
  const left = config.source.dailyCallBudget - spent;
  if (left <= 0) {
    throw new CliError(`today's call budget is spent (${spent} of ${config.source.dailyCallBudget} calls since midnight America/Denver); run again after midnight or raise source.dailyCallBudget`, EXIT.workFailed);
  }
  return left;
}

/**
 * The source client of a command, whose daily budget is what is left of today's (so that
 * several commands on one day share the configured budget), reporting each call to `onCall`.
 */
export function clientFor(config: Config, logger: Logger, budgetLeft: number, onCall?: (event: CallEvent) => void): SourceClient {
  return createSourceClient({ config: { ...config.source, dailyCallBudget: budgetLeft }, timeZone: config.timeZone, logger, onCall });
}

export interface LockedRunOptions {
  db: Db;
  client: SourceClient;
  config: Config;
  logger: Logger;
  request: SyncRequest;
  /** Aborted by SIGINT/SIGTERM: no new page or work unit; the page in flight commits or rolls back. */
  signal?: AbortSignal;
  observers?: (SyncObserver | undefined)[];
}

/**
 * Runs the engine while holding the advisory locks of the request's streams, so that a
 * command never runs alongside `propsync schedule` (or another command) on the same stream.
 * When a lock is held elsewhere, nothing runs and the command ends with exit 1, naming the holder.
 */
export async function runLocked(options: LockedRunOptions): Promise<RunSummary> {
  const { config, request } = options;
  const streams = requestedStreams(config, request);
  const outcome = await withStreamLocks(config.database.url, streams, (lock) =>
    runSync(
      { ...request, streams },
      {
        db: options.db,
        client: options.client,
        config,
        logger: options.logger,
        signal: options.signal ? AbortSignal.any([options.signal, lock.signal]) : lock.signal,
        observer: combineObservers(...(options.observers ?? [])),
      },
    ),
  );
  if (!outcome.acquired) throw new CliError(`${describeHolder(outcome.stream, outcome.holder)}; nothing was run, try again when that run has ended`, EXIT.workFailed);
  return outcome.value;
}

/**
 * What `propsync sync` and `propsync backfill` do once their options are checked: open and
 * check the warehouse, show progress (bars on a terminal, log lines elsewhere), run the
 * engine under the streams' locks, stop cleanly on SIGINT/SIGTERM, print the summary on
 * stdout and return the run's exit code.
 */
export async function runCommand(config: Config, request: SyncRequest, what: string): Promise<ExitCode> {
  requestedStreams(config, request);
  const mode = progressModeFor();
  const bars = mode === 'bars' ? createProgress({ mode: 'bars' }) : undefined;
  const logger = await commandLogger(config, { sink: bars?.sink, terminal: mode === 'bars' });
  const progress = bars ?? createProgress({ mode: 'log', logger });
  const db = await openWarehouse(config.database.url, { maxConnections: config.source.concurrency + 2 });
  let client: SourceClient | undefined;
  const signals = abortOnSignals(logger, what);
  try {
    await requireMigrated(db);
    client = clientFor(config, logger, await budgetLeftToday(db, config));
    const summary = await runLocked({ db, client, config, logger, request, signal: signals.signal, observers: [progress.observer] });
    progress.stop();
    process.stdout.write(`${summaryLines(summary).join('\n')}\n`);
    return exitCodeFor(summary);
  } finally {
    progress.stop();
    signals.dispose();
    await client?.close();
    await db.destroy();
  }
}
