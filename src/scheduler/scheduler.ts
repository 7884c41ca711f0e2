import { createTask, type Logger as CronLogger, type ScheduledTask } from 'node-cron';
import pLimit from 'p-limit';
import type { AccountRuntime } from '../app/propsync.js';
import type { Config, StreamName } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import type { RunSummary, SyncDeps, SyncObserver, SyncRequest } from '../sync/types.js';
import type { Db } from '../catalog/tables.js';
import { describeHolder, lockName, withStreamLock, type HeldLock, type LockOptions } from '../sync/lock.js';
import { combineObservers } from '../sync/observers.js';
import { streamsOf } from '../sync/plan-run.js';
import type { SyncMetrics } from '../app/metrics.js';
import { messageOf } from '../log/errors.js';

/**
 * What a cron time does, passed in so that the scheduler can be tested on its own: the engine's
 * entry point (`runSync`), or in queue mode the enqueueing of the run (null: its lanes went to
 * the workers, or another scheduler took this cron time, `at`).
 */
export type RunEngine = (request: SyncRequest, deps: SyncDeps, at: Date) => Promise<RunSummary | null>;

export interface SchedulerOptions {
  config: Config;
  db: Db;
  /** The accounts to run, each with its own client: one job per account and stream. */
  accounts: readonly AccountRuntime[];
  logger: Logger;
  metrics: SyncMetrics;
  run: RunEngine;
  /** Streams to schedule; default: the enabled ones. */
  streams?: StreamName[];
  /** Extra observer of every run (besides the metrics). */
  observer?: SyncObserver;
  /**
   * Asked under the lock before each run: a reason to skip this run (logged), or null to go on.
   * `propsync schedule` checks there the day's call budget, spent by every process.
   */
  beforeRun?: (runtime: AccountRuntime, stream: StreamName) => Promise<string | null>;
  /** How each run's stream lock is held (session limits, taking it again after a lost connection). */
  lockOptions?: LockOptions;
  /**
   * Runs that may hold their stream lock at once (each a connection of its own), within
   * `database.maxConnections`; a run due meanwhile waits its turn. Default: no bound.
   */
  runsAtOnce?: number;
}

/** What `/healthz` says of one scheduled stream of one account. */
export interface JobState {
  account: string;
  stream: StreamName;
  schedule: string;
  running: boolean;
  /** Due, and waiting for its turn among the runs `runsAtOnce` allows (not yet running). */
  waiting: boolean;
  nextRun: string | null;
  lastRun: { runId: number; status: string; finishedAt: string } | null;
  lastSkipped: string | null;
}

/** A started scheduler. */
export interface Scheduler {
  jobs(): JobState[];
  /** True once `stop` was called. */
  stopping(): boolean;
  /**
   * Stops starting runs, aborts the runs in flight (each commits or rolls back its page in
   * flight and leaves its checkpoints consistent) and waits for them up to `timeoutMs`.
   * Resolves `true` when every run ended in time.
   */
  stop(timeoutMs: number): Promise<boolean>;
}

/** Streams the scheduler runs: the ones asked for, else the enabled ones. */
export function scheduledStreams(config: Config, asked?: readonly StreamName[]): StreamName[] {
  return streamsOf({ kind: 'sync', streams: asked ? [...new Set(asked)] : undefined }, { config });
}

/**
 * Starts one node-cron job per account and stream, on the stream's schedule in the account's
 * time zone. A run never overlaps another run of the same account and stream: node-cron's
 * `noOverlap` within this process, the account's stream lock across processes (the loser logs
 * that it skipped and counts it in `propsync_runs_skipped_total`). Accounts never wait for
 * each other.
 */
export function startScheduler(options: SchedulerOptions): Scheduler {
  const { config, db, metrics, run } = options;
  const shutdown = new AbortController();
  const inFlight = new Set<Promise<void>>();
  const jobs = new Map<string, { state: JobState; task: ScheduledTask }>();
  const inTurn = pLimit(options.runsAtOnce ?? Number.POSITIVE_INFINITY);

  const runJob = async (runtime: AccountRuntime, stream: StreamName, at: Date): Promise<void> => {
    if (shutdown.signal.aborted) return;
    const { account, client } = runtime;
    const state = jobs.get(lockName(account.id, stream))!.state;
    const logger = options.logger.child({ account: account.id, stream });
    state.waiting = true;
    try {
      const locked = async (lock: HeldLock): Promise<RunSummary | null> => {
        const reason = await options.beforeRun?.(runtime, stream);
        if (reason) {
          logger.warn({ event: 'run_skipped', reason }, `skipped this run: ${reason}`);
          state.lastSkipped = new Date().toISOString();
          return null;
        }
        logger.info(
          { event: 'run_starting' },
          `scheduled run of ${stream} for account ${account.id} starting`,
        );
        return run(
          { kind: 'sync', streams: [stream] },
          {
            db,
            client,
            config,
            account,
            logger,
            signal: shutdown.signal,
            lock,
            observer: combineObservers(metrics.observer, options.observer),
          },
          at,
        );
      };
      // A run due after the stop, or whose turn came after it, takes no lock.
      const outcome = await inTurn(() => {
        state.waiting = false;
        if (shutdown.signal.aborted) return undefined;
        state.running = true;
        metrics.setRunning(account.id, stream, true);
        return withStreamLock(config.database.url, lockName(account.id, stream), locked, options.lockOptions);
      });
      if (!outcome) return;
      if (!outcome.acquired) {
        state.lastSkipped = new Date().toISOString();
        metrics.lockSkipped(account.id, stream);
        logger.info(
          { event: 'run_skipped', reason: 'locked', holder: outcome.holder?.applicationName ?? null },
          `skipped this run: ${describeHolder(lockName(account.id, stream), outcome.holder)}`,
        );
        return;
      }
      const summary = outcome.value;
      if (!summary) return;
      state.lastRun = { runId: summary.runId, status: summary.status, finishedAt: new Date().toISOString() };
    } catch (error) {
      logger.error(
        { event: 'run_error', err: messageOf(error) },
        `scheduled run of ${stream} for account ${account.id} failed: ${messageOf(error)}; the next run tries again`,
      );
    } finally {
      state.waiting = false;
      state.running = false;
      metrics.setRunning(account.id, stream, false);
    }
  };

  for (const runtime of options.accounts) {
    const { account } = runtime;
    for (const stream of scheduledStreams(config, options.streams)) {
      const schedule = config.streams[stream].schedule;
      const key = lockName(account.id, stream);
      const state: JobState = {
        account: account.id,
        stream,
        schedule,
        running: false,
        waiting: false,
        nextRun: null,
        lastRun: null,
        lastSkipped: null,
      };
      const logger = options.logger.child({ account: account.id, stream });
      const task = createTask(
        schedule,
        (context) => {
          const job = runJob(runtime, stream, context?.date ?? new Date());
          inFlight.add(job);
          return job.finally(() => inFlight.delete(job));
        },
        {
          name: `propsync-${key}`,
          timezone: account.timeZone,
          noOverlap: true,
          logger: cronLogger(logger.child({ component: 'node-cron' })),
        },
      );
      task.on('execution:overlap', () => {
        state.lastSkipped = new Date().toISOString();
        logger.info(
          { event: 'run_skipped', reason: 'overlap' },
          `skipped this run: the previous run of ${stream} for account ${account.id} in this process is still going`,
        );
      });
      jobs.set(key, { state, task });
      void task.start();
      logger.info(
        {
          event: 'job_scheduled',
          schedule,
          timeZone: account.timeZone,
          nextRun: task.getNextRun()?.toISOString() ?? null,
        },
        `scheduled ${stream} for account ${account.id} at "${schedule}" (${account.timeZone})`,
      );
    }
  }

  return {
    jobs: () =>
      [...jobs.values()].map(({ state, task }) => ({
        ...state,
        nextRun: shutdown.signal.aborted ? null : (task.getNextRun()?.toISOString() ?? null),
      })),
    stopping: () => shutdown.signal.aborted,
    async stop(timeoutMs) {
      if (!shutdown.signal.aborted) {
        for (const { task } of jobs.values()) await task.destroy();
        shutdown.abort(new Error('the scheduler is stopping'));
      }
      if (inFlight.size === 0) return true;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const finished = Promise.allSettled([...inFlight]).then(() => true as const);
      const result = await Promise.race([finished, deadline]);
      clearTimeout(timer);
      return result;
    },
  };
}

/**
 * node-cron's own messages as pino lines. Its warnings (overlap prevented, execution missed)
 * go to debug: the scheduler logs overlaps itself, as `run_skipped` events.
 */
export function cronLogger(logger: Logger): CronLogger {
  const text = (message: string | Error) => (message instanceof Error ? message.message : message);
  return {
    info: (message) => logger.debug(message),
    warn: (message) => logger.debug(message),
    error: (message, error) => logger.error({ err: error?.message }, text(message)),
    debug: (message) => logger.debug(text(message)),
  };
}
