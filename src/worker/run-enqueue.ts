/**
 * `propsync enqueue`: plans one run per account as `sync` does and puts its lanes on the queue;
 * with `wait`, follows the runs until the workers end them and prints the summary `sync` prints,
 * with its exit codes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EXIT, type ExitCode } from '../app/exit-codes.js';
import { displayLogger } from '../app/logger.js';
import { openPropsync, requestedStreams } from '../app/propsync.js';
import { accountRunLines, exitCodeFor, worstExitCode } from '../app/run-summary.js';
import type { Config, StreamName } from '../config/schema.js';
import { ensureQueues, openBoss } from '../queue/boss.js';
import { enqueueRun, type Enqueued } from '../queue/enqueue-run.js';
import type { Db } from '../catalog/tables.js';
import type { Logger } from '../log/logger.js';
import { runTaken } from '../queue/queued-runs.js';
import { readRunSummary } from '../sync/runs/lifecycle.js';
import type { RunSummary, SyncRequest } from '../sync/types.js';

/** How often `--wait` looks at the runs. */
const WAIT_POLL_MS = 1_000;

/** Enqueues the request for each chosen account; see the module comment. */
export async function runEnqueue(
  config: Config,
  request: SyncRequest,
  options: { accounts?: readonly string[]; wait?: boolean },
): Promise<ExitCode> {
  const streams: StreamName[] = requestedStreams(config, request);
  const logger = displayLogger(config, {});
  const propsync = await openPropsync(config, {
    logger,
    accounts: options.accounts,
    // A stop while planning closes the run (nothing queued); while waiting, the queued work goes on.
    stopOnSignals: options.wait ? 'enqueueing or waiting (the queued work goes on)' : 'enqueueing',
  });
  try {
    const boss = await openBoss(config.database.url, logger, { maxConnections: 2 });
    const enqueued: Enqueued[] = [];
    const refused: { account: string; error: string }[] = [];
    try {
      for (const runtime of propsync.accounts)
        if (runtime.refused) refused.push({ account: runtime.account.id, error: runtime.refused });
      // Accounts are planned side by side, each through its own client.
      const ready = propsync.accounts.filter((runtime) => !runtime.refused);
      await ensureQueues(
        propsync.db,
        boss,
        ready.map((runtime) => runtime.account.id),
      );
      enqueued.push(
        ...(await Promise.all(
          ready.map((runtime) =>
            enqueueRun(
              { ...request, streams },
              {
                db: propsync.db,
                boss,
                config,
                account: runtime.account,
                client: runtime.client,
                logger,
                signal: propsync.signal,
              },
            ),
          ),
        )),
      );
    } finally {
      await boss.stop({ graceful: false, close: true, wait: true }).catch(() => {});
    }
    const named = config.accounts.length > 1;
    for (const run of enqueued)
      process.stdout.write(
        `${named ? `account ${run.account}: ` : ''}run ${run.runId} queued: ${run.queued} ` +
          `lanes${run.alreadyQueued ? ` (${run.alreadyQueued} already waiting on the queue)` : ''}` +
          `${run.refused ? `; ${run.refused} not queued: a job of another kind holds them` : ''}\n`,
      );
    // A run that ended at once (planning failed or was stopped, lanes refused) says so now.
    for (const run of enqueued)
      if (run.ended && (!options.wait || exitCodeFor(run.ended) !== EXIT.ok))
        process.stdout.write(
          `${accountRunLines({ account: run.account, summary: run.ended }, named).join('\n')}\n`,
        );
    for (const run of refused)
      process.stdout.write(
        `${accountRunLines({ account: run.account, summary: null, error: run.error }, named).join('\n')}\n`,
      );
    if (!options.wait)
      return worstExitCode([
        ...refused.map(() => EXIT.workFailed),
        ...enqueued.map((run) =>
          run.ended ? exitCodeFor(run.ended) : run.refused ? EXIT.workFailed : EXIT.ok,
        ),
      ]);
    if (propsync.signal?.aborted) return EXIT.workFailed;
    const summaries = await waitForRuns(propsync.db, enqueued, {
      signal: propsync.signal,
      logger,
      noticeMs: config.worker.waitNoticeSeconds * 1000,
    });
    if (!summaries) return EXIT.workFailed;
    process.stdout.write(
      `${summaries.flatMap((summary) => accountRunLines({ account: summary.account, summary }, named)).join('\n')}\n`,
    );
    return worstExitCode([...summaries.map(exitCodeFor), ...refused.map(() => EXIT.workFailed)]);
  } finally {
    await propsync.close();
  }
}

/**
 * Waits until every run has ended (null when stopped by a signal first); says so every `noticeMs` while no worker
 * has taken a job of a run.
 */
async function waitForRuns(
  db: Db,
  runs: readonly Enqueued[],
  options: { signal: AbortSignal | undefined; logger: Logger; noticeMs: number },
): Promise<RunSummary[] | null> {
  const { signal, logger, noticeMs } = options;
  const done = new Map<number, RunSummary>();
  const taken = new Set<number>();
  const started = Date.now();
  let notices = 0;
  for (const run of runs) if (run.ended) done.set(run.runId, run.ended);
  while (done.size < runs.length) {
    for (const run of runs) {
      if (done.has(run.runId)) continue;
      const status = await readRunSummary(db, run.runId);
      if (status) done.set(run.runId, status);
    }
    if (Date.now() - started >= (notices + 1) * noticeMs) {
      notices += 1;
      for (const run of runs) {
        if (done.has(run.runId) || taken.has(run.runId)) continue;
        if (await runTaken(db, run.account, run.runId)) taken.add(run.runId);
        else
          logger.warn(
            { event: 'no_worker', account: run.account, runId: run.runId, waitedMs: Date.now() - started },
            `no worker has taken run ${run.runId}'s jobs ` +
              `for ${Math.round((Date.now() - started) / 1000)} s; start propsync worker`,
          );
      }
    }
    if (done.size === runs.length) break;
    const stopped = await sleep(WAIT_POLL_MS, false, { signal }).catch(() => true);
    if (stopped) return null;
  }
  return runs.map((run) => done.get(run.runId)!);
}
