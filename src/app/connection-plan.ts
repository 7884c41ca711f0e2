/**
 * How one process shares its warehouse connections (`database.maxConnections`) between the accounts it runs:
 * each running account holds a connection per stream lock and its lanes share the pool, so a sync of many
 * accounts runs as many at once as fit, and the others as those end.
 */

/** The connections a process keeps for itself: the reporting refresh, the budget, the run's bookkeeping. */
const OWN = 2;

export interface ConnectionPlan {
  /** Accounts that run side by side (at least one). */
  accountsAtOnce: number;
  /** Connections of the warehouse pool, shared by the lanes of the accounts running. */
  poolSize: number;
}

/**
 * The plan for accounts whose lanes in flight are `lanesPerAccount`, each holding `locksPerAccount` lock
 * connections while it runs, within `maxConnections`. One account alone gets a connection per lane, as before.
 */
export function connectionPlan(
  maxConnections: number,
  lanesPerAccount: readonly number[],
  locksPerAccount: number,
): ConnectionPlan {
  const widest = [...lanesPerAccount].sort((a, b) => b - a);
  const perAccount = locksPerAccount + (widest[0] ?? 1);
  const accountsAtOnce = Math.max(
    1,
    Math.min(lanesPerAccount.length, Math.floor((maxConnections - OWN) / perAccount)),
  );
  const lanes = widest.slice(0, accountsAtOnce).reduce((sum, count) => sum + count, 0) + OWN;
  return {
    accountsAtOnce,
    poolSize: Math.max(OWN, Math.min(lanes, maxConnections - accountsAtOnce * locksPerAccount)),
  };
}

/** Connections of a worker's queue client (pg-boss). */
export const QUEUE_CONNECTIONS = 4;

/**
 * The pool of a worker running `concurrency` jobs at once within `maxConnections`: each job holds two lock
 * connections (its stream's, shared, and its lane's) and the queue client its own; the pool takes three a job
 * and four more where they fit, and one a job and the process's own at the least. Undefined when even that
 * does not fit.
 */
export function workerPool(maxConnections: number, concurrency: number): number | undefined {
  if (workerNeeds(concurrency) > maxConnections) return undefined;
  return Math.min(3 * concurrency + 4, maxConnections - besidePool(concurrency));
}

/** A worker's connections outside its pool: two locks a job, and the queue's. */
function besidePool(concurrency: number): number {
  return 2 * concurrency + QUEUE_CONNECTIONS;
}

/** The fewest `database.maxConnections` a worker of `concurrency` jobs needs: besides, one a job and its own. */
export function workerNeeds(concurrency: number): number {
  return besidePool(concurrency) + concurrency + OWN;
}

/**
 * Why a worker of `concurrency` jobs cannot keep within `maxConnections` (`workerPool` gave none): what
 * `propsync worker` stops on at start-up and `propsync config check` reports.
 */
export function workerShortfall(maxConnections: number, concurrency: number): string {
  return (
    `${concurrency} jobs at once need at least ${workerNeeds(concurrency)} warehouse connections ` +
    `(two locks and one pooled connection a job, ${QUEUE_CONNECTIONS} for the queue, ${OWN} of the process's own), ` +
    `more than database.maxConnections (${maxConnections}): raise it, or lower worker.concurrency (--concurrency)`
  );
}
