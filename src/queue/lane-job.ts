/**
 * One job: a lane of a run, planned again from the warehouse when a worker takes it (its units
 * keep their keys, so done ones are skipped and unfinished ones go on from their checkpoints),
 * run by the engine under the lane's own advisory lock, then ended in `sync_run_lanes`.
 */
import type { Db } from '../catalog/tables.js';
import type { Account, Config } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import type { SourceClient } from '../source/types.js';
import type { StreamName } from '../streams/registry.js';
import { describeHolder, lockName, withStreamLock, type HeldLock, type LockOptions } from '../sync/lock.js';
import { latestCursorDay, planStream } from '../sync/plan-run.js';
import { engineReconnect } from '../sync/reconnect.js';
import { runLanes } from '../sync/run-lanes.js';
import { addRunCounts, heartbeatEveryMs, startHeartbeat } from '../sync/runs/lifecycle.js';
import { endLane, endLanes, laneIsOpen, openLanes } from '../sync/runs/lanes.js';
import type { LaneStatus } from '../sync/runs/states.js';
import type { RunSummary, SyncObserver, SyncRequest } from '../sync/types.js';
import { combineObservers } from '../sync/observers.js';

/** What a job carries: the lane, and what its run planned with. */
export interface LaneJobData {
  account: string;
  runId: number;
  stream: StreamName;
  laneKey: string;
  /** The run's request (kind, full, backfill range). */
  request: SyncRequest;
  /** The source's today and the run's properties, as discovery found them when the run was planned. */
  today: string;
  propertyIds: string[];
}

/**
 * How a job went: ended (the run's summary when it was the run's last lane), given back (stopped, or its
 * lane runs elsewhere), gone (its lane had already ended), failed (retried by pg-boss), or refused (the source
 * refused the account's credentials: the run's lanes end, nothing is retried).
 */
export type LaneJobOutcome =
  | { kind: 'ended'; status: LaneStatus; runEnded: RunSummary | null }
  | { kind: 'released'; reason: string }
  | { kind: 'gone'; reason: string }
  | { kind: 'failed'; error: string; runEnded: RunSummary | null }
  | { kind: 'refused'; error: string; runEnded: RunSummary | null };

/** What running a job needs. */
export interface LaneJobDeps {
  db: Db;
  config: Config;
  account: Account;
  client: SourceClient;
  logger: Logger;
  lockOptions: LockOptions;
  /** Aborted when the worker stops: the page in flight ends, the job is given back. */
  signal: AbortSignal;
  observer?: SyncObserver;
  /** This attempt is the job's last (its retries are spent): a failure ends the lane as dead. */
  lastAttempt: boolean;
}

/** The name of a lane's lock: its account, stream and scope. */
export function laneLockName(data: Pick<LaneJobData, 'account' | 'stream' | 'laneKey'>): string {
  return `${lockName(data.account, data.stream)}#${data.laneKey}`;
}

/** Runs one job (see the module comment). */
export async function runLaneJob(data: LaneJobData, deps: LaneJobDeps): Promise<LaneJobOutcome> {
  const { db, config, account } = deps;
  const logger = deps.logger.child({ account: account.id, runId: data.runId, lane: data.laneKey });
  const name = laneLockName(data);
  if (!(await laneIsOpen(db, { account: account.id, runId: data.runId, laneKey: data.laneKey })))
    return { kind: 'gone', reason: `lane ${data.laneKey} of run ${data.runId} has already ended` };
  let throttled = 0;
  const counting: SyncObserver = { onPage: (event) => (throttled += event.throttled) };
  const heartbeat = startHeartbeat(db, data.runId, heartbeatEveryMs(config.abandonedAfterMinutes), logger);
  try {
    // The stream's lock in share mode (a `sync` of the stream holds it whole), then the lane's own.
    const streamLock = lockName(account.id, data.stream);
    const shared = await withStreamLock(
      config.database.url,
      streamLock,
      (stream) =>
        withStreamLock(
          config.database.url,
          name,
          async (held) => {
            // Every page of the lane commits only while both locks are held.
            const lock: HeldLock = {
              signal: AbortSignal.any([stream.signal, held.signal]),
              verify: async (trx) => {
                await stream.verify(trx, streamLock);
                await held.verify(trx, name);
              },
            };
            const planned = (
              await planStream(
                data.stream,
                data.request,
                { today: data.today, propertyIds: data.propertyIds },
                { db, config, account },
              )
            ).filter((lane) => lane.lane.key === data.laneKey);
            const signal = AbortSignal.any([deps.signal, lock.signal]);
            const reconnect = engineReconnect(config.database.reconnect, logger);
            return runLanes(planned, data.runId, {
              db,
              client: deps.client,
              config,
              account,
              logger,
              signal,
              lock,
              observer: combineObservers(counting, deps.observer),
              latestDay: latestCursorDay(account.timeZone),
              reconnect,
            });
          },
          deps.lockOptions,
        ),
      { ...deps.lockOptions, shared: true },
    );
    if (throttled) await addRunCounts(db, data.runId, { throttled });
    if (!shared.acquired)
      return {
        kind: 'released',
        reason: `${describeHolder(streamLock, shared.holder)}; the lane waits for it`,
      };
    const outcome = shared.value;
    if (!outcome.acquired)
      return {
        kind: 'released',
        reason: `lane ${data.laneKey} is run by another worker (an earlier delivery of its job)`,
      };
    const lanes = outcome.value;
    const laneEnd = {
      account: account.id,
      runId: data.runId,
      laneKey: data.laneKey,
      abandonedAfterMinutes: config.abandonedAfterMinutes,
    };
    const end = (status: LaneStatus, error?: string) => endLane(db, { ...laneEnd, status, error });
    if (lanes.budgetSpent)
      return {
        kind: 'ended',
        status: 'budget_exhausted',
        runEnded: await end(
          'budget_exhausted',
          "today's call budget is spent; the rest runs on the next run",
        ),
      };
    if (lanes.refused) {
      // No retry, and no other lane of the run: each would try the refused credentials again.
      const others = await openLanes(db, [account.id]);
      const runEnded = await endLanes(db, [
        { ...laneEnd, status: 'failed', error: lanes.refused },
        ...others
          .filter((lane) => lane.runId === data.runId && lane.laneKey !== data.laneKey)
          .map((lane) => ({
            ...laneEnd,
            laneKey: lane.laneKey,
            status: 'failed' as const,
            error: `not run: lane ${data.laneKey} found the account's credentials refused`,
          })),
      ]);
      return { kind: 'refused', error: lanes.refused, runEnded };
    }
    if (deps.signal.aborted) return { kind: 'released', reason: 'the worker is stopping' };
    if (lanes.errors.length === 0) return { kind: 'ended', status: 'done', runEnded: await end('done') };
    const error = lanes.errors.join('\n');
    return {
      kind: 'failed',
      error,
      runEnded: deps.lastAttempt
        ? await end('dead', `its retries ran out (dead-letter queue): ${error}`)
        : null,
    };
  } finally {
    heartbeat.stop();
  }
}
