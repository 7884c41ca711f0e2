/**
 * The states of runs and lanes, every transition between them, how a run's outcome follows from what its lanes
 * and units did, and the exit code that outcome gives. Pure: `lifecycle.ts` and `lanes.ts` write them.
 */

/** How a run ended, as the engine, the workers or `verify` decide it. */
export type RunStatus =
  'succeeded' | 'incomplete' | 'partial' | 'failed' | 'interrupted' | 'budget_exhausted';

/** A run's state in `sync_runs.status`: running, how it ended, or abandoned (its process died). */
export type RunState = 'running' | RunStatus | 'abandoned';

/** A queued lane's state in `sync_run_lanes.status`: queued (waiting or running), then how its job ended. */
export type LaneState = 'queued' | LaneStatus;

/** How a lane's job ended for good. */
export type LaneStatus = 'done' | 'failed' | 'budget_exhausted' | 'dead' | 'skipped';

const CLOSED_RUN: readonly RunState[] = [
  'succeeded',
  'incomplete',
  'partial',
  'failed',
  'interrupted',
  'budget_exhausted',
  'abandoned',
];

/** Every transition a run may take: it opens `running` and is closed once; a closed run never changes. */
export const RUN_TRANSITIONS: Readonly<Record<RunState, readonly RunState[]>> = {
  running: CLOSED_RUN,
  succeeded: [],
  incomplete: [],
  partial: [],
  failed: [],
  interrupted: [],
  budget_exhausted: [],
  abandoned: [],
};

/** Every transition a lane may take: it is queued, and ends once. */
export const LANE_TRANSITIONS: Readonly<Record<LaneState, readonly LaneState[]>> = {
  queued: ['done', 'failed', 'budget_exhausted', 'dead', 'skipped'],
  done: [],
  failed: [],
  budget_exhausted: [],
  dead: [],
  skipped: [],
};

/** What a run did, as far as its outcome goes. */
export interface RunFacts {
  /** A unit or lane stopped because today's call budget is spent. */
  budgetSpent: boolean;
  /** Stopped by a signal, or by a stream lock lost for good. */
  interrupted: boolean;
  /** Units, lanes or steps that failed (or died). */
  failed: number;
  /** Units or lanes done (or already done). */
  done: number;
  /** Windows the run knowingly left unread, each with why (see `RunSummary.unread`). */
  unread: readonly string[];
}

/**
 * The outcome of a run from what it did: a spent budget, then a stop, then failures (partial when something got
 * done), then windows knowingly left unread (incomplete), else succeeded.
 */
export function runOutcome(facts: RunFacts): RunStatus {
  if (facts.budgetSpent) return 'budget_exhausted';
  if (facts.interrupted) return 'interrupted';
  if (facts.failed > 0) return facts.done > 0 ? 'partial' : 'failed';
  if (facts.unread.length > 0) return 'incomplete';
  return 'succeeded';
}

/** The facts of a run whose lanes were on the queue, from its lanes' states and its failed units. */
export function queuedRunFacts(
  lanes: readonly LaneState[],
  failedUnits: number,
  unread: readonly string[],
): RunFacts {
  const done = lanes.filter((lane) => lane === 'done' || lane === 'skipped').length;
  return {
    budgetSpent: lanes.includes('budget_exhausted'),
    interrupted: false,
    failed: lanes.length - done + failedUnits,
    done,
    unread,
  };
}

/**
 * Exit codes a run can give (app/exit-codes.ts adds the others; docs/operating.md#exit-codes-and-what-to-do
 * explains them).
 */
export const RUN_EXIT = {
  /** Everything asked for was done. */
  ok: 0,
  /** Some work was left undone: failed units, a stop, a spent budget; the next run goes on from the checkpoints. */
  workFailed: 1,
  /** Finished, but some records were quarantined. */
  quarantined: 3,
  /** Finished what it could read, but knowingly left a window unread (the run says which, and why). */
  incomplete: 8,
} as const;
export type RunExitCode = (typeof RUN_EXIT)[keyof typeof RUN_EXIT];

/**
 * The exit code of a closed run: 1 when work was left undone (a failed unit, or a run that failed, stopped or ran
 * out of budget), 8 when a window was knowingly left unread, 3 when records were quarantined, else 0. Undone work
 * wins over the rest: 3 and 8 promise that everything the run could read was finished.
 */
export function exitCodeOf(summary: {
  status: RunState;
  workUnits: { failed: number };
  quarantined: number;
}): RunExitCode {
  if (summary.status === 'incomplete' && summary.workUnits.failed === 0) return RUN_EXIT.incomplete;
  if (summary.status !== 'succeeded' || summary.workUnits.failed > 0) return RUN_EXIT.workFailed;
  if (summary.quarantined > 0) return RUN_EXIT.quarantined;
  return RUN_EXIT.ok;
}
