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
import { enqueueRun, type Enqueued } from '../queue/enqueue.js';
import type { Db } from '../catalog/tables.js';
import type { RunSummary, SyncRequest } from '../sync/types.js';
import { readRunSummary } from './run-status.js';

/** How often `--wait` looks at the runs. */
const WAIT_POLL_MS = 1_000;

/** Enqueues the request for each chosen account; see the module comment. */
export async function runEnqueue(
  config: Config,
  request: SyncRequest,
  options: { accounts?: readonly string[]; wait?: boolean },
): Promise<ExitCode> {
  const streams: StreamName[] = requestedStreams(config, request);
  const logger = await displayLogger(config, {});
  const propsync = await openPropsync(config, {
    logger,
    accounts: options.accounts,
    stopOnSignals: options.wait ? 'waiting (the queued work goes on)' : undefined,
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
              { db: propsync.db, boss, config, account: runtime.account, client: runtime.client, logger },
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
        `${named ? `account ${run.account}: ` : ''}run ${run.runId} queued: ${run.queued} lanes${run.alreadyQueued ? ` (${run.alreadyQueued} already waiting on the queue)` : ''}\n`,
      );
    for (const run of refused)
      process.stdout.write(
        `${accountRunLines({ account: run.account, summary: null, error: run.error }, named).join('\n')}\n`,
      );
    if (!options.wait) return refused.length ? EXIT.workFailed : EXIT.ok;
    const summaries = await waitForRuns(propsync.db, enqueued, propsync.signal);
    if (!summaries) return EXIT.workFailed;
    process.stdout.write(
      `${summaries.flatMap((summary) => accountRunLines({ account: summary.account, summary }, named)).join('\n')}\n`,
    );
    return worstExitCode([...summaries.map(exitCodeFor), ...refused.map(() => EXIT.workFailed)]);
  } finally {
    await propsync.close();
  }
}

/** Waits until every run has ended (null when stopped by a signal first). */
async function waitForRuns(
  db: Db,
  runs: readonly Enqueued[],
  signal: AbortSignal | undefined,
): Promise<RunSummary[] | null> {
  const done = new Map<number, RunSummary>();
  for (const run of runs) if (run.ended) done.set(run.runId, run.ended);
  while (done.size < runs.length) {
    for (const run of runs) {
      if (done.has(run.runId)) continue;
      const status = await readRunSummary(db, run.runId);
      if (status) done.set(run.runId, status);
    }
    if (done.size === runs.length) break;
    const stopped = await sleep(WAIT_POLL_MS, false, { signal }).catch(() => true);
    if (stopped) return null;
  }
  return runs.map((run) => done.get(run.runId)!);
}
