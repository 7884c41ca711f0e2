import { accountLogger } from '../log/logger.js';
import type { StreamName } from '../streams/registry.js';
import type { Reconnect } from '../warehouse/reconnect.js';
import { pickCounts, RUN_COUNTERS } from '../warehouse/run-counters.js';
import { messageOf } from '../log/errors.js';
import { closeAbandonedRuns, closeStaleRuns } from './runs/abandoned.js';
import { planRun, streamsOf } from './plan-run.js';
import { engineReconnect } from './reconnect.js';
import { runLanes } from './run-lanes.js';
import { endingMessage, isBudgetError } from './errors.js';
import {
  closeRun,
  heartbeatEveryMs,
  notePlan,
  openRun,
  runKind,
  startHeartbeat,
  type CloseArgs,
} from './runs/lifecycle.js';
import { cleanUpSeen } from './work-units.js';
import type { RunSummary, SyncDeps, SyncRequest } from './types.js';

/**
 * Runs one sync or backfill: finds the source's today and the properties, asks each stream for
 * its lanes of work units, runs the lanes in parallel (up to `source.concurrency`, all through
 * the client's shared pacing and budget), and records the run. Never throws for a failed work
 * unit: the summary says what failed; other units go on. A lost warehouse connection is ridden
 * through (`database.reconnect`): the work in flight runs again on a new connection.
 */
export async function runSync(request: SyncRequest, deps: SyncDeps): Promise<RunSummary> {
  const { db, client, config, account, observer, signal, lock } = deps;
  const started = Date.now();
  const streams = streamsOf(request, deps);
  const kind = runKind(request);
  const reconnect = engineReconnect(config.database.reconnect, deps.logger);
  const runId = await reconnect.execute(() =>
    openRun(db, {
      account: account.id,
      kind,
      streams,
      propertyIds: request.propertyIds,
      requested: request,
    }),
  );
  const logger = accountLogger(deps.logger, account.id, { runId });
  // New pages and work units stop on a signal, or when a stream's lock is lost for good.
  const stop = lock && signal ? AbortSignal.any([signal, lock.signal]) : (lock?.signal ?? signal);
  if (lock) await closeAbandoned(deps, runId, streams, reconnect, logger);
  const before = client.stats();
  // Calls made before the work units (discovery); units count their own.
  let discoveryCalls = 0;
  const heartbeat = startHeartbeat(db, runId, heartbeatEveryMs(config.abandonedAfterMinutes), logger);
  // Why the run stopped early, when it did: a signal, or a stream's lock lost for good.
  const stopped = () =>
    signal?.aborted
      ? 'stopped by a signal'
      : ((lock?.signal.reason as Error | undefined)?.message ?? 'stopped');
  const finish = async (
    facts: CloseArgs['facts'],
    errors: string[],
    workUnits: number,
    explain = true,
  ): Promise<RunSummary> => {
    heartbeat.stop();
    const after = client.stats();
    const closed = await reconnect.execute(() =>
      closeRun(db, {
        runId,
        facts,
        errors,
        extraCalls: discoveryCalls,
        throttled: after.throttled - before.throttled,
        workUnitsTotal: workUnits,
        ...(explain && { stopped: stopped(), dailyCallBudget: account.source.dailyCallBudget }),
      }),
    );
    await cleanUpSeen(db, { runId, abandonedAfterMinutes: config.abandonedAfterMinutes }).catch(
      (error: unknown) =>
        logger.warn(
          { event: 'seen_cleanup_failed', err: messageOf(error) },
          `could not remove the seen keys of finished work units: ${messageOf(error)}`,
        ),
    );
    const summary: RunSummary = { ...closed, kind: request.kind, streams, durationMs: Date.now() - started };
    logFinished(logger, summary);
    observer?.onRunEnd?.(summary);
    return summary;
  };
  const failedAt = (error: unknown) => ({
    budgetSpent: isBudgetError(error),
    interrupted: false,
    failed: 1,
    done: 0,
  });

  let plan;
  try {
    plan = await reconnect.execute(() => planRun(request, streams, { ...deps, logger, signal: stop }), stop);
    discoveryCalls = client.stats().calls - before.calls;
    const planned = plan;
    await reconnect.execute(() =>
      notePlan(db, runId, {
        sourceToday: planned.today,
        workUnits: planned.workUnits,
        unread: planned.unread,
      }),
    );
  } catch (error) {
    discoveryCalls = client.stats().calls - before.calls;
    const message = endingMessage(error);
    logger.error({ event: 'run_failed', err: message }, `run ${runId} could not start: ${message}`);
    return finish(failedAt(error), [message], 0, false);
  }
  logger.info(
    {
      event: 'run_planned',
      kind,
      streams,
      properties: plan.propertyIds.length,
      lanes: plan.lanes.length,
      workUnits: plan.workUnits,
      sourceToday: plan.today,
    },
    `run ${runId} (${kind}): ${plan.workUnits} work units over ${plan.propertyIds.length} ` +
      `properties, source today ${plan.today}`,
  );
  let outcome;
  try {
    observer?.onRunStart?.({
      account: account.id,
      runId,
      kind: request.kind,
      streams,
      workUnits: plan.workUnits,
      byStream: plan.byStream,
    });
    outcome = await runLanes(plan.lanes, runId, {
      ...deps,
      signal: stop,
      logger,
      latestDay: plan.latestDay,
      reconnect,
    });
  } catch (error) {
    // Whatever went wrong, the run's row says so rather than staying `running`.
    const message = endingMessage(error);
    logger.error({ event: 'run_failed', err: message }, `run ${runId} failed: ${message}`);
    return finish({ ...failedAt(error), budgetSpent: false }, [message], plan.workUnits);
  }
  const facts = {
    budgetSpent: outcome.budgetSpent,
    interrupted: stop?.aborted === true,
    failed: outcome.errors.length,
    done: outcome.done,
  };
  const errors = outcome.refused ? [outcome.refused, ...outcome.errors] : [...outcome.errors];
  return finish(facts, errors, plan.workUnits + outcome.addedUnits);
}

/**
 * Closes the runs of a dead process on the run's streams (their locks are held) and the account's runs whose
 * heartbeat stopped long ago; logs and reports them. Housekeeping: a failure is logged, the next run tries again.
 */
async function closeAbandoned(
  deps: SyncDeps,
  runId: number,
  streams: StreamName[],
  reconnect: Reconnect,
  logger: SyncDeps['logger'],
): Promise<void> {
  const abandoned = await reconnect
    .execute(async () => [
      ...(await closeAbandonedRuns(deps.db, { account: deps.account.id, runId, streams })),
      // Runs no lock proves dead (a verify, an enqueue killed while planning): by their stale heartbeat.
      ...(await closeStaleRuns(deps.db, {
        accounts: [deps.account.id],
        abandonedAfterMinutes: deps.config.abandonedAfterMinutes,
      })),
    ])
    .catch((error: unknown) => {
      logger.warn(
        { event: 'abandoned_close_failed', err: messageOf(error) },
        `could not close the runs left running by a process that ended: ${messageOf(error)}`,
      );
      return [];
    });
  for (const run of abandoned) {
    logger.warn(
      {
        event: 'run_abandoned',
        abandonedRunId: run.runId,
        streams: run.streams,
        host: run.host,
        pid: run.pid,
      },
      `run ${run.runId} (${run.streams.join(', ')}) was left running by a process that ended ` +
        `(pid ${run.pid ?? '?'} on ${run.host ?? '?'}); closed it as abandoned`,
    );
  }
  if (abandoned.length)
    deps.observer?.onRunsAbandoned?.({
      account: deps.account.id,
      runId,
      abandoned: abandoned.map(({ runId: id, streams: names }) => ({ runId: id, streams: names })),
    });
}

function logFinished(logger: SyncDeps['logger'], summary: RunSummary): void {
  const {
    runId,
    status,
    unread,
    workUnits,
    records,
    rowsInserted,
    rowsUpdated,
    rowsDeleted,
    quarantined,
    calls,
    durationMs,
  } = summary;
  logger.info(
    { event: 'run_finished', status, workUnits, ...pickCounts(RUN_COUNTERS, summary), durationMs },
    `run ${runId} ${status}: ${workUnits.done}/${workUnits.total} work units, ${records} records, ` +
      (`${rowsInserted} inserted, ${rowsUpdated} updated, ${rowsDeleted} deleted, ${quarantined} ` +
        `quarantined, ${calls} calls`),
  );
  for (const window of unread ?? [])
    logger.warn({ event: 'window_unread', window }, `run ${runId} left unread: ${window}`);
  if (quarantined > 0)
    logger.warn(
      { event: 'records_quarantined', quarantined },
      `${quarantined} records quarantined; see propsync status`,
    );
}
