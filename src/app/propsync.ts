/**
 * A running propsync built from a configuration, the same for the CLI, the scheduler and the
 * demo: the warehouse pool (checked and migrated), the source client with the day's remaining
 * budget, the stream locks around every run, and SIGINT/SIGTERM/SIGHUP handling.
 */
import type { Config, StreamName } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import { createSourceClient } from '../source/client.js';
import type { CallEvent, SourceClient } from '../source/types.js';
import { refreshAfterSync } from '../reporting/refresh.js';
import { withStatementTimeout } from '../warehouse/session.js';
import { runSync } from '../sync/engine.js';
import { describeHolder, withStreamLocks, type LockOptions } from '../sync/lock.js';
import { combineObservers } from '../sync/observers.js';
import { streamsOf } from '../sync/plan-run.js';
import type { RunSummary, SyncObserver, SyncRequest } from '../sync/types.js';
import type { Db } from '../catalog/tables.js';
import { budgetToday, spentByOthersToday } from './budget.js';
import { EXIT, ExitError } from './exit-codes.js';
import { abortOnSignals, type SignalStop } from './signals.js';
import { openMigratedWarehouse, sessionTimeouts } from './warehouse.js';

/** How to build a running propsync. */
export interface OpenOptions {
  logger: Logger;
  /** Connections of the warehouse pool (default: the source's concurrency plus two). */
  maxConnections?: number;
  /** Called after every HTTP call to the source (metrics). */
  onCall?: (event: CallEvent) => void;
  /**
   * The client always spends from what the run history leaves of today's budget (read again
   * as it goes). `left` (one-shot commands): opening fails with exit 1 when nothing is left;
   * `whole`: a long-running process opens anyway (it checks the history before each run).
   */
  budget?: 'left' | 'whole';
  /** Stop on SIGINT/SIGTERM/SIGHUP after the page in flight, naming what stops (`the sync`); absent: the caller handles signals. */
  stopOnSignals?: string;
}

/** A running propsync. */
export interface Propsync {
  config: Config;
  logger: Logger;
  db: Db;
  client: SourceClient;
  /** Aborted by SIGINT/SIGTERM/SIGHUP when `stopOnSignals` was asked for. */
  signal?: AbortSignal;
  /** Runs the engine under the locks of the request's streams (see `runLocked`). */
  run(request: SyncRequest, options?: { observers?: (SyncObserver | undefined)[]; signal?: AbortSignal }): Promise<RunSummary>;
  /** Closes the client and the pool and removes the signal handlers. */
  close(): Promise<void>;
}

/** The streams a request covers: the ones asked for, else the enabled ones (exit 2 when none is). */
export function requestedStreams(config: Config, request: SyncRequest): StreamName[] {
  const streams = streamsOf(request, { config });
  if (streams.length === 0) throw new ExitError('no stream is enabled in the configuration (streams.<name>.enabled); name one with --stream', EXIT.usage);
  return streams;
}

/** Builds a running propsync: warehouse (reachable and migrated), budget, client, signals. */
export async function openPropsync(config: Config, options: OpenOptions): Promise<Propsync> {
  const { logger } = options;
  const db = await openMigratedWarehouse(config.database, { maxConnections: options.maxConnections ?? config.source.concurrency + 2 });
  // Every client starts from what the warehouse says is left today and reads it again as it
  // goes, so that calls spent by other processes count against this one's budget too.
  let spentElsewhere: number;
  try {
    const today = await budgetToday(db, config);
    if (today.spentReason && options.budget !== 'whole') throw new ExitError(`${today.spentReason}; run again after midnight or raise source.dailyCallBudget`, EXIT.workFailed);
    spentElsewhere = await spentByOthersToday(db, config);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const client = createSourceClient({
    settings: config.source,
    timeZone: config.timeZone,
    logger,
    onCall: options.onCall,
    sharedBudget: { initial: spentElsewhere, spentElsewhere: () => spentByOthersToday(db, config) },
  });
  const signals: SignalStop | undefined = options.stopOnSignals ? abortOnSignals(logger, options.stopOnSignals) : undefined;
  return {
    config,
    logger,
    db,
    client,
    signal: signals?.signal,
    run: (request, runOptions = {}) =>
      runLocked({ db, client, config, logger, request, observers: runOptions.observers, signal: anySignal(signals?.signal, runOptions.signal) }),
    async close() {
      signals?.dispose();
      await client.close();
      await db.destroy();
    },
  };
}

/** How a run's stream locks are held: with the configured session limits, taken again after a lost connection. */
export function lockOptions(config: Config, logger: Logger): LockOptions {
  return { timeouts: sessionTimeouts(config.database), reconnect: config.database.reconnect, logger };
}

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  return present.length > 1 ? AbortSignal.any(present) : present[0];
}

/** What `runLocked` needs. */
interface LockedRunOptions {
  db: Db;
  client: SourceClient;
  config: Config;
  logger: Logger;
  request: SyncRequest;
  /** Aborted by SIGINT/SIGTERM/SIGHUP: no new page or work unit; the page in flight commits or rolls back. */
  signal?: AbortSignal;
  observers?: (SyncObserver | undefined)[];
}

/**
 * Runs the engine while holding the advisory locks of the request's streams, so that a run
 * never goes alongside `propsync schedule` (or another command) on the same stream. When a
 * lock is held elsewhere, nothing runs and the error (exit 1) names the holder.
 */
async function runLocked(options: LockedRunOptions): Promise<RunSummary> {
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
        signal: options.signal,
        lock,
        observer: combineObservers(...(options.observers ?? [])),
      },
    ),
    lockOptions(config, options.logger),
  );
  if (!outcome.acquired) throw new ExitError(`${describeHolder(outcome.stream, outcome.holder)}; nothing was run, try again when that run has ended`, EXIT.workFailed);
  // After the locks are released: a slow refresh never keeps another run of these streams waiting.
  // The refresh has a statement budget of its own; it logs its own failures, this one the session's.
  await withStatementTimeout(options.db, config.database.refreshStatementTimeoutMs, (session) => refreshAfterSync(session, config.timeZone, options.logger)).catch((error: Error) =>
    options.logger.warn({ event: 'reporting_refresh_failed', err: error.message }, `could not refresh the reporting views: ${error.message}; the next sync tries again`),
  );
  return outcome.value;
}
