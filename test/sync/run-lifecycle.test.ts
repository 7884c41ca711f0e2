/**
 * Issue 34: the run lifecycle, table-driven. Each row opens a run in a real warehouse, gives it lanes and units as
 * a sync, a queued run or a dead process would leave them, closes it through src/sync/runs, and checks the state
 * it ends in, the exit code and the summary a command prints. Closed runs and ended lanes never change again.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summaryLines } from '../../src/app/run-summary.js';
import { closeAbandonedRuns, closeStaleRuns } from '../../src/sync/runs/abandoned.js';
import { addLanes, endLane, endLanes } from '../../src/sync/runs/lanes.js';
import {
  closeRun,
  notePlan,
  onRunClosed,
  openRun,
  readRunSummary,
  writeClose,
} from '../../src/sync/runs/lifecycle.js';
import {
  exitCodeOf,
  LANE_TRANSITIONS,
  RUN_TRANSITIONS,
  type LaneStatus,
  type RunState,
} from '../../src/sync/runs/states.js';
import type { RunSummary } from '../../src/sync/types.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let warehouse: TestDatabase;
const ACCOUNT = 'north';
const UNREAD = "the source's days 2026-12-01..2026-12-04: its today 2026-12-04 is past the local tomorrow";

beforeAll(async () => {
  warehouse = await createTestDatabase();
  await warehouse.db.insertInto('accounts').values({ account_id: ACCOUNT, name: 'North' }).execute();
});
afterAll(async () => warehouse?.drop());

type UnitState = 'done' | 'skipped' | 'failed' | 'interrupted' | 'running';

/** Opens a run with units in the given states (each with 10 records; `quarantined` on the first). */
async function runWith(
  units: readonly UnitState[],
  options: { unread?: boolean; quarantined?: number; queued?: boolean } = {},
): Promise<number> {
  const runId = await openRun(warehouse.db, {
    account: ACCOUNT,
    kind: 'sync',
    streams: ['leases'] as never,
    propertyIds: undefined,
    requested: { kind: 'sync', ...(options.queued && { queued: true }) },
  });
  await notePlan(warehouse.db, runId, {
    sourceToday: '2026-12-04',
    workUnits: units.length,
    unread: options.unread ? [UNREAD] : [],
  });
  for (const [i, status] of units.entries())
    await warehouse.db
      .insertInto('sync_work_units')
      .values({
        account_id: ACCOUNT,
        run_id: runId,
        stream: 'leases',
        kind: 'live',
        unit_key: `run${runId}:unit${i}`,
        status,
        records: 10,
        quarantined: i === 0 ? (options.quarantined ?? 0) : 0,
      })
      .execute();
  return runId;
}

const facts = (over: Partial<Parameters<typeof closeRun>[1]['facts']> = {}) => ({
  budgetSpent: false,
  interrupted: false,
  failed: 0,
  done: 0,
  ...over,
});

/** How a row of the table ends: the state, the exit code, and a line of its printed summary. */
interface Expected {
  state: RunState;
  exit: number;
  line: RegExp;
}

/** Runs closed by their own process (`sync`, `verify`): what the run did, and how it ends. */
const BY_THEIR_PROCESS: {
  name: string;
  units: UnitState[];
  did: Partial<ReturnType<typeof facts>>;
  unread?: boolean;
  quarantined?: number;
  expected: Expected;
}[] = [
  {
    name: 'every unit done',
    units: ['done', 'done'],
    did: { done: 2 },
    expected: { state: 'succeeded', exit: 0, line: /succeeded \(2\/2 work units done\)/ },
  },
  {
    name: 'done, with records quarantined',
    units: ['done', 'done'],
    did: { done: 2 },
    quarantined: 2,
    expected: { state: 'succeeded', exit: 3, line: /finished with 2 record\(s\) quarantined/ },
  },
  {
    name: 'done, but a window knowingly left unread',
    units: ['done'],
    did: { done: 1 },
    unread: true,
    expected: { state: 'incomplete', exit: 8, line: /unread: the source's days 2026-12-01\.\.2026-12-04/ },
  },
  {
    name: 'unread and quarantined: incomplete wins',
    units: ['done'],
    did: { done: 1 },
    unread: true,
    quarantined: 1,
    expected: { state: 'incomplete', exit: 8, line: /incomplete: finished what it could read/ },
  },
  {
    name: 'a unit failed, another done',
    units: ['done', 'failed'],
    did: { done: 1, failed: 1 },
    expected: { state: 'partial', exit: 1, line: /1 work unit\(s\) failed \(1\/2 work units done\)/ },
  },
  {
    name: 'every unit failed',
    units: ['failed'],
    did: { failed: 1 },
    unread: true,
    expected: { state: 'failed', exit: 1, line: /failed \(0\/1 work units done\)/ },
  },
  {
    name: 'interrupted by a signal',
    units: ['done', 'interrupted'],
    did: { done: 1, interrupted: true },
    expected: { state: 'interrupted', exit: 1, line: /error: stopped by a signal; unfinished work resumes/ },
  },
  {
    name: 'the budget spent (it wins over a stop and an unread window)',
    units: ['done', 'interrupted'],
    did: { done: 1, budgetSpent: true, interrupted: true },
    unread: true,
    expected: {
      state: 'budget_exhausted',
      exit: 1,
      line: /error: the daily call budget \(30 calls\) is spent/,
    },
  },
];

/** Runs whose lanes were on the queue, closed by the end of their last lane. */
const BY_THEIR_LANES: {
  name: string;
  lanes: LaneStatus[];
  units: UnitState[];
  unread?: boolean;
  expected: Expected;
}[] = [
  {
    name: 'every lane done',
    lanes: ['done', 'done'],
    units: ['done', 'done'],
    expected: { state: 'succeeded', exit: 0, line: /succeeded/ },
  },
  {
    name: 'a lane skipped (already waiting for an earlier run)',
    lanes: ['done', 'skipped'],
    units: ['done'],
    expected: { state: 'succeeded', exit: 0, line: /succeeded/ },
  },
  {
    name: 'lanes done, but a unit failed on the way',
    lanes: ['done', 'done'],
    units: ['done', 'failed'],
    expected: { state: 'partial', exit: 1, line: /work unit\(s\) failed/ },
  },
  {
    name: 'a lane dead (its retries ran out), another done',
    lanes: ['done', 'dead'],
    units: ['done', 'failed'],
    expected: { state: 'partial', exit: 1, line: /lane1: its retries ran out/ },
  },
  {
    name: 'every lane dead',
    lanes: ['dead', 'failed'],
    units: ['failed'],
    expected: { state: 'failed', exit: 1, line: /failed \(0\/1 work units done\)/ },
  },
  {
    name: "a lane stopped on the day's budget",
    lanes: ['done', 'budget_exhausted'],
    units: ['done', 'interrupted'],
    expected: { state: 'budget_exhausted', exit: 1, line: /today's call budget is spent/ },
  },
  {
    name: 'lanes done, a window unread when it was planned',
    lanes: ['done'],
    units: ['done'],
    unread: true,
    expected: { state: 'incomplete', exit: 8, line: /unread: the source's days/ },
  },
];

function expectEnded(summary: RunSummary | null, expected: Expected): void {
  expect(summary).not.toBeNull();
  expect(summary!.status).toBe(expected.state);
  expect(exitCodeOf(summary!)).toBe(expected.exit);
  expect(summaryLines(summary!).join('\n')).toMatch(expected.line);
}

describe('run lifecycle (issue 34)', () => {
  it.each(BY_THEIR_PROCESS)('closed by its process: $name', async (row) => {
    const runId = await runWith(row.units, { unread: row.unread, quarantined: row.quarantined });
    const heard: RunSummary[] = [];
    const stop = onRunClosed((summary) => heard.push(summary));
    const summary = await closeRun(warehouse.db, {
      runId,
      facts: facts(row.did),
      errors: row.did.failed ? ['unit1: it failed'] : [],
      extraCalls: 1,
      throttled: 0,
      workUnitsTotal: row.units.length,
      stopped: 'stopped by a signal',
      dailyCallBudget: 30,
    });
    stop();
    expectEnded(summary, row.expected);
    expect(heard.map((run) => run.runId)).toEqual([runId]);
    // The row says the same, read back as `enqueue --wait` reads it.
    expectEnded(await readRunSummary(warehouse.db, runId), row.expected);
  });

  it.each(BY_THEIR_LANES)('closed by its last lane: $name', async (row) => {
    const runId = await runWith(row.units, { unread: row.unread, queued: true });
    const lanes = row.lanes.map((_, i) => ({ laneKey: `lane${i}`, stream: 'leases' }));
    await addLanes(warehouse.db, ACCOUNT, runId, lanes);
    const ends = row.lanes.map((status, i) => ({
      account: ACCOUNT,
      runId,
      laneKey: `lane${i}`,
      status,
      error:
        status === 'dead'
          ? 'its retries ran out'
          : status === 'budget_exhausted'
            ? "today's call budget is spent"
            : undefined,
      abandonedAfterMinutes: 10,
    }));
    // Every lane but the last leaves the run running.
    for (const end of ends.slice(0, -1)) expect(await endLane(warehouse.db, end)).toBeNull();
    expect(await readRunSummary(warehouse.db, runId)).toBeNull();
    expectEnded(await endLane(warehouse.db, ends.at(-1)!), row.expected);
  });

  it('abandoned: a run whose process died, found by the run that holds its locks, or by its stale heartbeat', async () => {
    const held = await runWith(['done', 'running']);
    const finder = await runWith([]);
    const [found] = await closeAbandonedRuns(warehouse.db, {
      account: ACCOUNT,
      runId: finder,
      streams: ['leases'] as never,
    });
    expect(found!.runId).toBe(held);
    expectEnded(await readRunSummary(warehouse.db, held), {
      state: 'abandoned',
      exit: 1,
      line: /abandoned \(1\/2 work units done\)[^]*error: abandoned: its process/,
    });
    // A verify run (no streams, no lock proves it) whose heartbeat stopped long ago.
    const verify = await openRun(warehouse.db, {
      account: ACCOUNT,
      kind: 'verify',
      streams: [],
      propertyIds: undefined,
      requested: { kind: 'verify' },
    });
    const fresh = await openRun(warehouse.db, {
      account: ACCOUNT,
      kind: 'verify',
      streams: [],
      propertyIds: undefined,
      requested: { kind: 'verify' },
    });
    await sql`update sync_runs set heartbeat_at = now() - interval '11 minutes' where run_id = ${verify}`.execute(
      warehouse.db,
    );
    const stale = await closeStaleRuns(warehouse.db, { accounts: [ACCOUNT], abandonedAfterMinutes: 10 });
    expect(stale.map((run) => run.runId)).toContain(verify);
    expect(stale.map((run) => run.runId)).not.toContain(fresh);
    expect((await readRunSummary(warehouse.db, verify))!.status).toBe('abandoned');
    expect(await readRunSummary(warehouse.db, fresh)).toBeNull();
  });

  it('every transition out of a closed state is refused: a closed run and an ended lane never change', async () => {
    const closed = (Object.keys(RUN_TRANSITIONS) as RunState[]).filter((state) => state !== 'running');
    expect(RUN_TRANSITIONS.running).toEqual(expect.arrayContaining(closed));
    for (const state of closed) {
      expect(RUN_TRANSITIONS[state]).toEqual([]);
      const runId = await runWith(['done']);
      await writeClose(warehouse.db, {
        runId,
        status: state as Exclude<RunState, 'running'>,
        errors: [],
        extraCalls: 0,
        throttled: 0,
        workUnitsTotal: 1,
      });
      for (const other of closed) {
        const again = await writeClose(warehouse.db, {
          runId,
          status: other as Exclude<RunState, 'running'>,
          errors: ['late'],
          extraCalls: 5,
          throttled: 0,
          workUnitsTotal: 1,
        });
        expect(again.status).toBe(state);
        expect(again.errors).toEqual([]);
      }
    }
    const ended = Object.keys(LANE_TRANSITIONS).filter((state) => state !== 'queued') as LaneStatus[];
    expect(LANE_TRANSITIONS.queued).toEqual(expect.arrayContaining(ended));
    const runId = await runWith([], { queued: true });
    await addLanes(warehouse.db, ACCOUNT, runId, [
      { laneKey: 'a', stream: 'leases' },
      { laneKey: 'b', stream: 'leases' },
    ]);
    await endLanes(warehouse.db, [
      { account: ACCOUNT, runId, laneKey: 'a', status: 'dead', error: 'x', abandonedAfterMinutes: 10 },
    ]);
    for (const status of ended)
      await endLane(warehouse.db, {
        account: ACCOUNT,
        runId,
        laneKey: 'a',
        status,
        abandonedAfterMinutes: 10,
      });
    const { rows } = await sql<{
      status: string;
    }>`select status from sync_run_lanes where run_id = ${runId} and lane_key = 'a'`.execute(warehouse.db);
    expect(rows).toEqual([{ status: 'dead' }]);
    expect(await readRunSummary(warehouse.db, runId)).toBeNull();
  });
});
