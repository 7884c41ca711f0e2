import type { WorkUnitPlan } from '../streams/types.js';
import type { Reconnect } from '../warehouse/reconnect.js';
import { LoadStatistics } from '../warehouse/statistics.js';
import { FirstLoads } from './first-load.js';
import type { PlannedLane } from './plan-run.js';
import { checkPolicyInForce } from './privacy/in-force.js';
import { privacyOf } from '../config/privacy.js';
import { privacyPolicy } from './privacy/policy.js';
import { messageOf } from '../log/errors.js';
import { endingMessage, isBudgetError, isPermanentSourceError } from './errors.js';
import { runWorkUnit, type UnitContext } from './run-unit.js';
import type { SyncDeps } from './types.js';

/** What running the lanes came to. */
export interface LanesOutcome {
  /** One line per failed work unit: unit, properties, window, and why. */
  errors: string[];
  budgetSpent: boolean;
  /**
   * The source refused the account's credentials or rights (every lane stopped at the first refusal): what it
   * said, and what to fix.
   */
  refused?: string;
  /** Work units that dynamic steps added to the plan. */
  addedUnits: number;
  /** Work units done (or already done, for backfill chunks). */
  done: number;
}

/**
 * Lanes in flight per call in flight (`source.concurrency`, which the client holds the calls
 * to): while one lane's page loads, another's call is out, so the calls are not idle while the
 * warehouse works. Each lane holds one page at a time, and one warehouse connection while it
 * loads: a quarter more lanes than calls shortens a run; twice as many do not, and hold more
 * pages in memory. Why: docs/sync.md#the-plan-of-one-run; measured: docs/benchmark.md#measured-choices-in-the-code
 */
export const LANES_PER_CALL = 1.25;

/** The lanes one account runs at once. */
export function lanesInFlight(concurrency: number): number {
  return Math.ceil(concurrency * LANES_PER_CALL);
}

/**
 * Runs lanes on `lanesInFlight(source.concurrency)` workers. Inside a lane, steps run in order and a failed
 * unit ends its lane (later steps build on what earlier ones loaded);
 * other lanes go on. A spent budget or an aborted signal stops every worker before its next unit.
 */
export async function runLanes(
  lanes: readonly PlannedLane[],
  runId: number,
  deps: SyncDeps & { logger: UnitContext['logger']; latestDay: string; reconnect: Reconnect },
): Promise<LanesOutcome> {
  const { db, client, signal, observer, logger, lock, reconnect } = deps;
  const outcome: LanesOutcome = { errors: [], budgetSpent: false, addedUnits: 0, done: 0 };
  const stopped = () => signal?.aborted === true || outcome.budgetSpent || outcome.refused !== undefined;
  const queue = [...lanes];
  const statistics = new LoadStatistics(db);
  const firstLoads = new FirstLoads(db, logger);
  // Nothing is written under a personal-data policy other than the one the account's rows hold.
  const privacy = privacyPolicy(privacyOf(deps.config, deps.account));
  await reconnect.execute(() => checkPolicyInForce(db, deps.account.id, privacy), signal);

  async function runLane({ stream, lane }: PlannedLane): Promise<void> {
    const context: UnitContext = {
      db,
      client,
      stream,
      version: client.versionOf(stream.method),
      runId,
      logger,
      signal,
      observer,
      account: deps.account.id,
      perPage: deps.account.source.pageSize,
      latestDay: deps.latestDay,
      reconnect,
      lock,
      statistics,
      firstLoads,
      privacy,
    };
    const doneUnits = new Map<string, number[]>();
    for (const step of lane.steps) {
      if (stopped()) return;
      let plans: WorkUnitPlan[];
      if (typeof step === 'function') {
        plans = await reconnect.execute(
          () => step({ db, accountId: deps.account.id, runId, doneUnits }),
          signal,
        );
        outcome.addedUnits += plans.length;
      } else plans = [step];
      for (const plan of plans) {
        if (stopped()) return;
        const result = await runWorkUnit(context, plan);
        if (result.status === 'done' || result.status === 'skipped') {
          outcome.done += 1;
          doneUnits.set(plan.kind, [...(doneUnits.get(plan.kind) ?? []), result.unitId]);
          continue;
        }
        const error = 'error' in result ? result.error : undefined;
        if (isBudgetError(error)) outcome.budgetSpent = true;
        if (isPermanentSourceError(error))
          outcome.refused ??=
            `${messageOf(error)}: the source refused account ${deps.account.id}'s credentials or their ` +
            `rights; no call is retried with them: fix them, then run again`;
        if (result.status === 'failed') {
          const window = plan.window ? `, window ${plan.window.from ?? '…'}..${plan.window.to ?? '…'}` : '';
          outcome.errors.push(
            `${plan.unitKey} (properties ${plan.propertyIds.join(',')}${window}): ${endingMessage(error)}`,
          );
        }
        return;
      }
    }
  }

  const worker = async () => {
    for (let next = queue.shift(); next && !stopped(); next = queue.shift()) {
      // A unit or a step that could not even start (the warehouse refused it) ends its lane, not the run.
      await runLane(next).catch((error: unknown) => {
        const message = endingMessage(error);
        logger.error(
          { event: 'lane_failed', lane: next!.lane.key, err: message },
          `${next!.lane.key} stopped: ${message}`,
        );
        outcome.errors.push(`${next!.lane.key} (properties ${next!.lane.propertyIds.join(',')}): ${message}`);
      });
    }
  };
  await Promise.all(
    Array.from(
      { length: Math.max(1, Math.min(lanesInFlight(deps.account.source.concurrency), lanes.length)) },
      worker,
    ),
  );
  return outcome;
}
