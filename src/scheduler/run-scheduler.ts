import { budgetToday } from '../app/budget.js';
import { EXIT, type ExitCode } from '../app/exit-codes.js';
import { loggerFor } from '../app/logger.js';
import {
  lockOptions,
  openPropsync,
  selectedAccounts,
  type OpenOptions,
  type Propsync,
} from '../app/propsync.js';
import type { Logger } from '../log/logger.js';
import type { CallEvent } from '../source/types.js';
import { nextSignal } from '../app/signals.js';
import type { Config, StreamName } from '../config/schema.js';
import { redactUrl } from '../log/redact.js';
import { runSync } from '../sync/engine.js';
import { countOpenQuarantine } from '../sync/quarantine.js';
import { lastSuccessByStream } from '../sync/status.js';
import { serveHealthAndMetrics } from '../app/http-server.js';
import { createSyncMetrics } from '../app/metrics.js';
import { scheduledStreams, startScheduler, type RunEngine } from './scheduler.js';
import { STREAM_NAMES } from '../streams/registry.js';
import { ensureQueues, openBoss } from '../queue/boss.js';
import { enqueueRun } from '../queue/enqueue-run.js';
import { claimTick, takeLateTicks, tickDone } from '../queue/schedule-tick.js';
import { crashPoint } from '../sync/crash-points.js';
import { messageOf } from '../log/errors.js';
import { latestDrift } from '../sync/verifications.js';
import { startVerifyJobs } from './verify-job.js';
import { ALERTS_EVERY_MS } from '../app/alerts/monitor.js';
import { openConsole } from '../console/open-console.js';

/** Longest wait for runs in flight after SIGINT/SIGTERM/SIGHUP, leaving time to close within 30 s. */
export const STOP_TIMEOUT_MS = 25_000;

/**
 * The scheduler's warehouse and client. It opens even when today's budget is spent (each run
 * checks the run history first, in beforeRun); its client, like every other, spends from what
 * the warehouse says is left today and reads that again as other processes spend.
 */
export function openForSchedule(
  config: Config,
  options: {
    logger: Logger;
    streams: StreamName[];
    accounts?: readonly string[];
    onCall?: (event: CallEvent, account: string) => void;
    onAlert?: OpenOptions['onAlert'];
  },
): Promise<Propsync> {
  const accounts = selectedAccounts(config.accounts, options.accounts);
  return openPropsync(config, {
    logger: options.logger,
    accounts: options.accounts,
    maxConnections:
      accounts.reduce((sum, account) => sum + options.streams.length * (account.source.concurrency + 1), 0) +
      2,
    onCall: options.onCall,
    budget: 'whole',
    alertsEveryMs: ALERTS_EVERY_MS,
    onAlert: options.onAlert,
  });
}

/**
 * The `propsync schedule` process: opens the warehouse, starts the jobs, serves /healthz and
 * /metrics, and on the first SIGINT/SIGTERM/SIGHUP stops starting runs, aborts the runs in flight
 * (their page in flight commits or rolls back), waits up to 25 s and closes everything. Exit code
 * 0 when every run stopped in time, 1 otherwise; a signal sent again exits at once with 1.
 */
export async function runSchedulerProcess(
  config: Config,
  asked?: StreamName[],
  askedAccounts?: readonly string[],
): Promise<ExitCode> {
  const logger = loggerFor(config);
  const streams = scheduledStreams(config, asked);
  const chosen = selectedAccounts(config.accounts, askedAccounts);
  // Checked before anything opens: a console that would be served openly stops the start (exit 2).
  const web =
    config.metrics.port > 0 ? openConsole(config, { host: config.metrics.host, logger }) : undefined;
  let openQuarantine = async (): Promise<ReadonlyMap<string, number>> => new Map();
  let verifyDrift = async (): Promise<Awaited<ReturnType<typeof latestDrift>>> => [];
  let freshness: Propsync['freshness'] = async () => [];
  const metrics = createSyncMetrics({
    accounts: chosen.map((account) => ({ id: account.id, dailyCallBudget: account.source.dailyCallBudget })),
    openQuarantine: () => openQuarantine(),
    verifyDrift: () => verifyDrift(),
    freshness: () => freshness(),
  });
  const propsync = await openForSchedule(config, {
    logger,
    streams,
    accounts: askedAccounts,
    onCall: metrics.onCall,
    onAlert: metrics.alertDelivered,
  });
  freshness = propsync.freshness;
  const { db, accounts } = propsync;
  openQuarantine = () =>
    countOpenQuarantine(
      db,
      chosen.map((account) => account.id),
    );
  verifyDrift = () =>
    latestDrift(
      db,
      chosen.map((account) => account.id),
    );
  for (const row of await lastSuccessByStream(db))
    if (chosen.some((account) => account.id === row.account))
      metrics.setLastSuccess(row.account, row.stream, row.at);
  // Queue mode: each cron time only plans the run and queues its lanes, for `propsync worker`.
  const boss =
    config.schedule.mode === 'queue'
      ? await openBoss(config.database.url, logger, { maxConnections: 2 })
      : undefined;
  if (boss)
    await ensureQueues(
      db,
      boss,
      accounts.map((runtime) => runtime.account.id),
    );
  const enqueueAtTick: RunEngine = async (request, deps, at) => {
    const stream = request.streams![0]!;
    const tick = await claimTick(boss!, deps.account.id, stream, at, config.schedule.tickGraceSeconds);
    if (!tick) {
      deps.logger.info(
        { event: 'run_skipped', reason: 'enqueued elsewhere', at: at.toISOString() },
        `skipped this run: another scheduler enqueued ${stream} for account ${deps.account.id} at ${at.toISOString()}`,
      );
      return null;
    }
    crashPoint('tick-claimed');
    const runtime = accounts.find((candidate) => candidate.account.id === deps.account.id)!;
    await enqueueRun(
      { ...request, streams: [stream] },
      { db, boss: boss!, config, account: runtime.account, client: runtime.client, logger: deps.logger },
    );
    await tickDone(db, tick.id);
    return null;
  };
  // Cron times claimed by a scheduler that died before it enqueued their run: enqueued late, here.
  const lateTicks = boss
    ? setInterval(() => {
        void (async () => {
          for (const tick of await takeLateTicks(
            db,
            boss,
            accounts.map((runtime) => runtime.account.id),
          )) {
            const runtime = accounts.find((candidate) => candidate.account.id === tick.account)!;
            logger.warn(
              { event: 'tick_taken_late', account: tick.account, stream: tick.stream, slot: tick.slot },
              `the cron time ${tick.slot} of ${tick.stream} for account ${tick.account} was claimed by a ` +
                `scheduler that did not enqueue its run; enqueueing it now`,
            );
            await enqueueRun(
              { kind: 'sync', streams: [tick.stream] },
              { db, boss, config, account: runtime.account, client: runtime.client, logger },
            );
            await tickDone(db, tick.id);
          }
        })().catch((error: unknown) =>
          logger.warn(
            { event: 'late_ticks_failed', err: messageOf(error) },
            `could not enqueue the runs of cron times left claimed: ${messageOf(error)}`,
          ),
        );
      }, 15_000)
    : undefined;
  lateTicks?.unref();
  const scheduler = startScheduler({
    config,
    db,
    accounts,
    logger,
    metrics,
    run: boss ? enqueueAtTick : runSync,
    streams,
    beforeRun: async ({ account }) => (await budgetToday(db, account)).spentReason,
    lockOptions: lockOptions(config, logger),
    observer: { onRunEnd: () => propsync.alerts.afterRun() },
    // A run holds its stream's lock: as many at once as the accounts' locks the connection plan allows.
    runsAtOnce: propsync.accountsAtOnce * STREAM_NAMES.length,
  });
  const verifyJobs = startVerifyJobs(propsync, streams);
  const http = await serveHealthAndMetrics({
    metricsConfig: config.metrics,
    metrics,
    db,
    logger,
    stopping: () => scheduler.stopping(),
    details: () => ({ jobs: scheduler.jobs() }),
    freshness: propsync.freshness,
    routes: web?.routes,
  });
  logger.info(
    {
      event: 'scheduler_started',
      streams,
      mode: config.schedule.mode,
      warehouse: redactUrl(config.database.url),
    },
    `scheduler started for ${streams.join(', ')}${boss ? ' (queue mode: it enqueues, workers run)' : ''}; ` +
      `stop with SIGINT, SIGTERM or SIGHUP`,
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
    { event: 'scheduler_stopping', signal },
    `${signal}: starting no new runs; waiting up to ${STOP_TIMEOUT_MS / 1000} s for the pages in flight`,
  );
  clearInterval(lateTicks);
  const [graceful] = await Promise.all([
    scheduler.stop(STOP_TIMEOUT_MS),
    verifyJobs.stop(),
    propsync.alerts.stop(),
  ]);
  await boss?.stop({ graceful: false, close: true, wait: true }).catch(() => {});
  await http?.close();
  await web?.close();
  await Promise.all(accounts.map(({ client }) => client.close()));
  // A run that did not stop holds its connections: the process exit closes them (and rolls back).
  if (graceful) await db.destroy();
  const ms = Date.now() - stopping;
  if (graceful)
    logger.info(
      { event: 'scheduler_stopped', ms },
      `stopped in ${ms} ms; cursors and checkpoints are consistent`,
    );
  else
    logger.error(
      { event: 'scheduler_stopped', ms },
      `a run did not stop within ${STOP_TIMEOUT_MS / 1000} s; exiting anyway: ` +
        `its open transaction rolls back and the next run repeats that page`,
    );
  return graceful ? EXIT.ok : EXIT.workFailed;
}
