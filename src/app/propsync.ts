/**
 * A running propsync built from a configuration, the same for the CLI, the scheduler and the
 * demo: the warehouse pool (checked and migrated), one source client per account with the
 * account's remaining budget, the account's stream locks around every run, and
 * SIGINT/SIGTERM/SIGHUP handling. Accounts run side by side and fail alone.
 */
import type { Account, Config, StreamName } from '../config/schema.js';
import { accountLogger, type Logger } from '../log/logger.js';
import { createSourceClient } from '../source/client.js';
import type { CallEvent, SourceClient } from '../source/types.js';
import { refreshAfterSync } from '../reporting/refresh.js';
import { runSync } from '../sync/engine.js';
import { engineReconnect } from '../sync/reconnect.js';
import { describeHolder, lockName, withStreamLocks, type LockOptions } from '../sync/lock.js';
import { combineObservers } from '../sync/observers.js';
import { streamsOf } from '../sync/plan-run.js';
import { lanesInFlight } from '../sync/run-lanes.js';
import type { RunSummary, SyncObserver, SyncRequest } from '../sync/types.js';
import { BASE_TABLE_NAMES, type Db } from '../catalog/tables.js';
import { analyzeChanged } from '../warehouse/statistics.js';
import { createCallGate } from '../queue/call-gate.js';
import { STREAM_NAMES } from '../streams/registry.js';
import pLimit from 'p-limit';
import { connectionPlan } from './connection-plan.js';
import { budgetToday } from './budget.js';
import { EXIT, ExitError, type ExitCode } from './exit-codes.js';
import { exitCodeFor } from './run-summary.js';
import { abortOnSignals, type SignalStop } from './signals.js';
import { openMigratedWarehouse, sessionTimeouts } from './warehouse.js';
import { alertMonitor, type AlertMonitor } from './alerts/monitor.js';
import type { DeliveryEvent } from './alerts/evaluate.js';
import { freshnessTargets, readFreshness, type StreamFreshness } from '../sync/freshness.js';
import { messageOf } from '../log/errors.js';

/** How to build a running propsync. */
export interface OpenOptions {
  logger: Logger;
  /** The accounts to run (`--account`, repeatable); default: every configured account. */
  accounts?: readonly string[];
  /** Connections of the warehouse pool (default: the accounts' lanes in flight plus two). */
  maxConnections?: number;
  /** Called after every HTTP call to the source (metrics), with the account that made it. */
  onCall?: (event: CallEvent, account: string) => void;
  /**
   * Each client's calls are booked against its account's budget today by the account's call gate.
   * `left` (one-shot commands): an account with nothing left does not run
   * and says so; `whole`: a long-running process opens anyway (it checks before each run).
   */
  budget?: 'left' | 'whole';
  /**
   * Stop on SIGINT/SIGTERM/SIGHUP after the page in flight, naming what stops (`the sync`); absent: the
   * caller handles signals.
   */
  stopOnSignals?: string;
  /** Long-running processes: evaluate the alerts this often besides after each run (`ALERTS_EVERY_MS`). */
  alertsEveryMs?: number;
  /** Called for each alert message sent or given up on (metrics). */
  onAlert?: (event: DeliveryEvent) => void;
}

/** One account of a running propsync: its configuration and its source client. */
export interface AccountRuntime {
  account: Account;
  client: SourceClient;
  /** Why the account cannot run today (its budget is spent), when it cannot. */
  refused?: string;
}

/** How one account's part of a run ended: its run's summary, or why it did not run at all. */
export interface AccountRun {
  account: string;
  summary: RunSummary | null;
  /** Why nothing ran for the account (its stream is locked elsewhere, its budget is spent, ...). */
  error?: string;
  exitCode: ExitCode;
}

/** A running propsync. */
export interface Propsync {
  config: Config;
  logger: Logger;
  db: Db;
  /** The accounts it runs, in the configuration's order. */
  accounts: AccountRuntime[];
  /** Aborted by SIGINT/SIGTERM/SIGHUP when `stopOnSignals` was asked for. */
  signal?: AbortSignal;
  /**
   * Accounts whose runs fit side by side within `database.maxConnections`, each holding a lock connection per
   * stream (`connectionPlan`); `run` and `verify` take the others in turn.
   */
  accountsAtOnce: number;
  /** Runs every account's part of the request side by side, each under its own stream locks (see `runLocked`). */
  run(
    request: SyncRequest,
    options?: {
      observers?: (SyncObserver | undefined)[];
      signal?: AbortSignal;
      accounts?: readonly string[];
    },
  ): Promise<AccountRun[]>;
  /** Alerts of its accounts (docs/alerts.md): evaluated after each run, and on a timer when asked. */
  alerts: AlertMonitor;
  /** The freshness of its accounts' enabled streams, read now (status, /healthz, /metrics). */
  freshness(): Promise<StreamFreshness[]>;
  /** Waits for the alerts in flight, closes the clients and the pool and removes the signal handlers. */
  close(): Promise<void>;
}

/** The streams a request covers: the ones asked for, else the enabled ones (exit 2 when none is). */
export function requestedStreams(config: Config, request: SyncRequest): StreamName[] {
  const streams = streamsOf(request, { config });
  if (streams.length === 0)
    throw new ExitError(
      'no stream is enabled in the configuration (streams.<name>.enabled); name one with --stream',
      EXIT.usage,
    );
  return streams;
}

/** The configured accounts an operator named (all of them when none), or exit 2 naming the unknown one. */
export function selectedAccounts<A extends { id: string }>(
  accounts: readonly A[],
  wanted: readonly string[] | undefined,
): A[] {
  if (!wanted?.length) return [...accounts];
  const unknown = wanted.filter((id) => !accounts.some((account) => account.id === id));
  if (unknown.length)
    throw new ExitError(
      `unknown account ${unknown.map((id) => `'${id}'`).join(', ')}; ` +
        `the configured accounts are ${accounts.map((account) => account.id).join(', ')}`,
      EXIT.usage,
    );
  return accounts.filter((account) => wanted.includes(account.id));
}

/** Builds a running propsync: warehouse (reachable and migrated), and per account its budget and client; signals. */
export async function openPropsync(config: Config, options: OpenOptions): Promise<Propsync> {
  const { logger } = options;
  const chosen = selectedAccounts(config.accounts, options.accounts);
  const plan = connectionPlan(
    config.database.maxConnections,
    chosen.map((account) => lanesInFlight(account.source.concurrency)),
    STREAM_NAMES.length,
  );
  const db = await openMigratedWarehouse(config.database, {
    maxConnections: options.maxConnections ?? plan.poolSize,
  });
  const accounts: AccountRuntime[] = [];
  try {
    for (const account of chosen) {
      // Every call of every process is booked once, by the account's gate in the warehouse.
      const today = await budgetToday(db, account);
      const accountLog = accountLogger(logger, account.id);
      const client = createSourceClient({
        settings: account.source,
        timeZone: account.timeZone,
        logger: accountLog,
        onCall: options.onCall && ((event) => options.onCall!(event, account.id)),
        gate: createCallGate(
          db,
          account,
          engineReconnect(config.database.reconnect, accountLog),
          today.spent,
        ),
      });
      const refused =
        today.spentReason && options.budget !== 'whole'
          ? `${today.spentReason}; run again after midnight or raise source.dailyCallBudget`
          : undefined;
      accounts.push({ account, client, ...(refused ? { refused } : {}) });
    }
    await noteAccounts(db, chosen);
  } catch (error) {
    await Promise.all(accounts.map(({ client }) => client.close()));
    await db.destroy();
    throw error;
  }
  const signals: SignalStop | undefined = options.stopOnSignals
    ? abortOnSignals(logger, options.stopOnSignals)
    : undefined;
  const alerts = alertMonitor(
    db,
    { config, accounts: chosen },
    { logger, everyMs: options.alertsEveryMs, onDelivery: options.onAlert },
  );
  return {
    config,
    logger,
    db,
    accounts,
    signal: signals?.signal,
    accountsAtOnce: plan.accountsAtOnce,
    alerts,
    freshness: () => readFreshness(db, freshnessTargets(config, chosen)),
    async run(request, runOptions = {}) {
      const streams = requestedStreams(config, request);
      const signal = anySignal(signals?.signal, runOptions.signal);
      const running = accounts.filter(
        (runtime) => !runOptions.accounts || runOptions.accounts.includes(runtime.account.id),
      );
      const inTurn = pLimit(plan.accountsAtOnce);
      if (running.length > plan.accountsAtOnce)
        logger.info(
          {
            event: 'accounts_in_turn',
            accounts: running.length,
            atOnce: plan.accountsAtOnce,
            maxConnections: config.database.maxConnections,
          },
          `${running.length} accounts run ${plan.accountsAtOnce} at a time, within ` +
            `database.maxConnections (${config.database.maxConnections})`,
        );
      const runs = await Promise.all(
        running.map((runtime) =>
          inTurn(() =>
            signal?.aborted
              ? notStarted(runtime.account.id, logger)
              : runLocked({
                  db,
                  runtime,
                  config,
                  logger,
                  request: { ...request, streams },
                  observers: runOptions.observers,
                  signal,
                }),
          ),
        ),
      );
      // After the locks are released: a slow refresh never keeps another run of these streams waiting.
      await refreshAfterRun(db, config, logger);
      // Judged from the warehouse, sent beside what follows; close() waits for it, bounded by alerts[].giveUpAfter.
      alerts.afterRun();
      return runs;
    },
    async close() {
      await alerts.stop();
      signals?.dispose();
      await Promise.all(accounts.map(({ client }) => client.close()));
      await db.destroy();
    },
  };
}

/**
 * Refreshes the reporting layer after a run (or a queued run's last lane): first the statistics
 * of the tables the run changed much, then the views side by side on connections of the pool
 * (the run's lanes have given theirs back), each under a statement budget of its own. It logs
 * its failures: never throws.
 */
export async function refreshAfterRun(db: Db, config: Config, logger: Logger): Promise<void> {
  await analyzeAfterRun(db, logger);
  await refreshAfterSync(db, config.timeZone, logger, {
    accounts: config.accounts.map(({ id, timeZone }) => ({ id, timeZone })),
    statementTimeoutMs: config.database.refreshStatementTimeoutMs,
    parallel: true,
  });
}

/** analyzeChanged over the source tables, logged; a failure is logged, not thrown (autovacuum analyzes later). */
async function analyzeAfterRun(db: Db, logger: Logger): Promise<void> {
  const started = Date.now();
  try {
    // The source tables: what the reporting views and the next run's lookups read. Not the seen keys, empty
    // between runs.
    const tables = await analyzeChanged(db, BASE_TABLE_NAMES);
    const durationMs = Date.now() - started;
    if (tables.length)
      logger.info(
        { event: 'statistics_analyzed', tables, durationMs },
        `analyzed ${tables.length} tables the run changed much (${tables.join(', ')}) in ${durationMs} ms`,
      );
  } catch (error) {
    const message = messageOf(error);
    logger.warn(
      { event: 'statistics_analyze_failed', err: message },
      `could not analyze the tables the run changed: ${message}; autovacuum will`,
    );
  }
}

/** Records the accounts about to run and their display names (the reporting views show them). */
async function noteAccounts(db: Db, accounts: readonly Account[]): Promise<void> {
  if (accounts.length === 0) return;
  await db
    .insertInto('accounts')
    .values(accounts.map((account) => ({ account_id: account.id, name: account.name })))
    .onConflict((oc) =>
      oc
        .column('account_id')
        .doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), last_seen_at: new Date() })),
    )
    .execute();
}

/** How a run's stream locks are held: with the configured session limits, taken again after a lost connection. */
export function lockOptions(config: Config, logger: Logger): LockOptions {
  return { timeouts: sessionTimeouts(config.database), reconnect: config.database.reconnect, logger };
}

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  return present.length > 1 ? AbortSignal.any(present) : present[0];
}

/** An account whose turn came after a stop signal: nothing ran for it (exit 1, as for a stopped run). */
function notStarted(account: string, logger: Logger): AccountRun {
  const error = 'stopped before its turn came; the next run syncs it';
  logger.warn({ event: 'account_not_run', account, err: error }, `account ${account}: ${error}`);
  return { account, summary: null, error, exitCode: EXIT.workFailed };
}

/** What `runLocked` needs. */
interface LockedRunOptions {
  db: Db;
  runtime: AccountRuntime;
  config: Config;
  logger: Logger;
  request: SyncRequest & { streams: StreamName[] };
  /** Aborted by SIGINT/SIGTERM: no new page or work unit; the page in flight commits or rolls back. */
  signal?: AbortSignal;
  observers?: (SyncObserver | undefined)[];
}

/**
 * Runs one account's part of a request while holding the advisory locks of its streams, so
 * that it never goes alongside `propsync schedule` (or another command) on the same account
 * and stream. When a lock is held elsewhere, or the account cannot run, nothing runs for it and
 * its outcome says why (exit 1); any other failure of the account stays its own.
 */
async function runLocked(options: LockedRunOptions): Promise<AccountRun> {
  const { config, request, runtime } = options;
  const { account, client } = runtime;
  const logger = options.logger.child({ account: account.id });
  const failed = (error: string, exitCode: ExitCode = EXIT.workFailed): AccountRun => {
    logger.error({ event: 'account_not_run', err: error }, `account ${account.id}: ${error}`);
    return { account: account.id, summary: null, error, exitCode };
  };
  if (runtime.refused) return failed(runtime.refused);
  try {
    const outcome = await withStreamLocks(
      config.database.url,
      request.streams.map((stream) => lockName(account.id, stream)),
      (lock) =>
        runSync(request, {
          db: options.db,
          client,
          config,
          account,
          logger,
          signal: options.signal,
          lock,
          observer: combineObservers(...(options.observers ?? [])),
        }),
      lockOptions(config, logger),
    );
    if (!outcome.acquired)
      return failed(
        `${describeHolder(outcome.stream, outcome.holder)}; nothing was run, try again when that run has ended`,
      );
    return { account: account.id, summary: outcome.value, exitCode: exitCodeFor(outcome.value) };
  } catch (error) {
    return failed(messageOf(error), error instanceof ExitError ? error.exitCode : EXIT.workFailed);
  }
}
