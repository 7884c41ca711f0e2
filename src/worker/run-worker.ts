/**
 * The `propsync worker` process: takes lanes from the accounts' queues and runs them with the
 * engine, serves /healthz and /metrics, and on SIGINT/SIGTERM/SIGHUP lets each page in flight
 * end, gives its job back to the queue (another worker resumes it from its checkpoints) and
 * exits. How a job flows: docs/operating.md#workers.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type PgBoss from 'pg-boss';
import type { LaneJobData } from '../queue/lane-job.js';
import { runDelivery, type DeliveryContext } from './lane-delivery.js';
import { startSweeps } from './sweeps.js';
import { sharedLook, takeJobs } from './take-jobs.js';
import { EXIT, ExitError, type ExitCode } from '../app/exit-codes.js';
import { QUEUE_CONNECTIONS, workerPool, workerShortfall } from '../app/connection-plan.js';
import { serveHealthAndMetrics } from '../app/http-server.js';
import { loggerFor } from '../app/logger.js';
import { createSyncMetrics } from '../app/metrics.js';
import { openPropsync, refreshAfterRun, selectedAccounts, type AccountRuntime } from '../app/propsync.js';
import { nextSignal } from '../app/signals.js';
import type { Config } from '../config/schema.js';
import { redactUrl } from '../log/redact.js';
import { ensureQueues, openBoss } from '../queue/boss.js';
import { deadLetters, readyQueues } from '../queue/jobs.js';
import { countOpenQuarantine } from '../sync/quarantine.js';
import { ALERTS_EVERY_MS } from '../app/alerts/monitor.js';
import type { StreamFreshness } from '../sync/freshness.js';
import { openConsole } from '../console/open-console.js';

/** Longest wait for the jobs in flight after a stop signal, leaving time to close within 30 s. */
export const STOP_TIMEOUT_MS = 25_000;

/** `propsync worker`: see the module comment. Exit 0 when every job stopped in time, 1 otherwise. */
export async function runWorkerProcess(
  config: Config,
  options: { accounts?: readonly string[]; concurrency?: number },
): Promise<ExitCode> {
  const logger = loggerFor(config);
  const chosen = selectedAccounts(config.accounts, options.accounts);
  const concurrency = options.concurrency ?? config.worker.concurrency;
  const pool = workerPool(config.database.maxConnections, concurrency);
  if (pool === undefined)
    throw new ExitError(workerShortfall(config.database.maxConnections, concurrency), EXIT.usage);
  // Checked before anything opens: a console that would be served openly stops the start (exit 2).
  const web =
    config.metrics.port > 0 ? openConsole(config, { host: config.metrics.host, logger }) : undefined;
  let ids = chosen.map((account) => account.id);
  const propsyncRef: {
    db?: import('../catalog/tables.js').Db;
    freshness?: () => Promise<StreamFreshness[]>;
  } = {};
  const metrics = createSyncMetrics({
    accounts: chosen.map((account) => ({ id: account.id, dailyCallBudget: account.source.dailyCallBudget })),
    openQuarantine: () =>
      propsyncRef.db ? countOpenQuarantine(propsyncRef.db, ids) : Promise.resolve(new Map()),
    deadLetters: async () => {
      const counts = new Map<string, number>();
      for (const letter of propsyncRef.db ? await deadLetters(propsyncRef.db, ids) : [])
        counts.set(letter.account, (counts.get(letter.account) ?? 0) + 1);
      return counts;
    },
    freshness: () => propsyncRef.freshness?.() ?? Promise.resolve([]),
  });
  const propsync = await openPropsync(config, {
    logger,
    accounts: options.accounts,
    budget: 'whole',
    maxConnections: pool,
    onCall: metrics.onCall,
    alertsEveryMs: ALERTS_EVERY_MS,
    onAlert: metrics.alertDelivered,
  });
  const { db } = propsync;
  propsyncRef.db = db;
  propsyncRef.freshness = propsync.freshness;
  ids = propsync.accounts.map((runtime) => runtime.account.id);
  let boss: PgBoss;
  try {
    boss = await openBoss(config.database.url, logger, { maxConnections: QUEUE_CONNECTIONS });
  } catch (error) {
    await propsync.close();
    throw error;
  }
  const queues = new Map<string, AccountRuntime>();
  const names = await ensureQueues(
    db,
    boss,
    propsync.accounts.map((runtime) => runtime.account.id),
  );
  propsync.accounts.forEach((runtime, i) => queues.set(names[i]!, runtime));
  const stop = new AbortController();
  let active = 0;
  // The reporting refresh after a run's end runs beside the jobs, one at a time (a run ending meanwhile asks
  // for one more).
  const refresh = coalesced(async () => {
    await refreshAfterRun(db, config, logger);
    propsync.alerts.afterRun();
  });
  const delivery: DeliveryContext = {
    db,
    boss,
    config,
    logger,
    metrics,
    stop: stop.signal,
    refresh: () => refresh.request(),
  };
  const run = async (job: PgBoss.JobWithMetadata<LaneJobData>) => {
    active += 1;
    try {
      await runDelivery(job, queues.get(job.name)!, delivery);
    } finally {
      active -= 1;
    }
  };

  const http = await serveHealthAndMetrics({
    metricsConfig: config.metrics,
    metrics,
    db,
    logger,
    stopping: () => stop.signal.aborted,
    details: () => ({ jobsInFlight: active, concurrency }),
    freshness: propsync.freshness,
    routes: web?.routes,
  });
  const sweeps = startSweeps({
    db,
    config,
    logger,
    metrics,
    accounts: ids,
    queues: [...queues.keys()],
    busy: () => ({ active, concurrency }),
    refresh: () => refresh.request(),
  });
  const ready = sharedLook((names: readonly string[]) => readyQueues(db, names));
  const loops = Promise.all(
    Array.from({ length: concurrency }, (_, slot) =>
      takeJobs(boss, [...queues.keys()], { slot, stop: stop.signal, logger, ready, run }),
    ),
  );
  logger.info(
    { event: 'worker_started', accounts: ids, concurrency, warehouse: redactUrl(config.database.url) },
    `worker started for ${ids.join(', ')} (${concurrency} jobs at once); stop with SIGINT, SIGTERM or SIGHUP`,
  );
  const signal = await nextSignal((again) => {
    logger.warn(
      { event: 'signal', signal: again, again: true },
      `${again} again: exiting at once; open transactions roll back`,
    );
    process.exit(EXIT.workFailed);
  });
  const stopping = Date.now();
  logger.info(
    { event: 'worker_stopping', signal, jobsInFlight: active },
    `${signal}: taking no new job; the pages in flight end and their jobs go back to the queue`,
  );
  stop.abort(new Error(`stopped by ${signal}`));
  sweeps.stop();
  const graceful = await Promise.race([
    Promise.all([loops, refresh.idle()]).then(() => true),
    sleep(STOP_TIMEOUT_MS).then(() => false),
  ]);
  await http?.close();
  await web?.close();
  await boss.stop({ graceful: false, close: true, wait: true }).catch(() => {});
  if (graceful) await propsync.close();
  const ms = Date.now() - stopping;
  if (graceful)
    logger.info(
      { event: 'worker_stopped', ms },
      `stopped in ${ms} ms; the jobs in flight went back to the queue`,
    );
  else
    logger.error(
      { event: 'worker_stopped', ms },
      `a job did not stop within ${STOP_TIMEOUT_MS / 1000} s; exiting anyway: its job is taken again once it expires`,
    );
  return graceful ? EXIT.ok : EXIT.workFailed;
}

/** Runs `work` when asked, never twice at once: asked while it runs, it runs once more after. */
function coalesced(work: () => Promise<void>): { request(): void; idle(): Promise<void> } {
  let running: Promise<void> | undefined;
  let again = false;
  const start = (): void => {
    running = work()
      .catch(() => {})
      .then(() => {
        running = undefined;
        if (again) {
          again = false;
          start();
        }
      });
  };
  return {
    request() {
      if (running) again = true;
      else start();
    },
    async idle() {
      while (running) await running;
    },
  };
}
