/**
 * Issue 36: a run that knowingly leaves a window unread never ends plain `succeeded`. A simulator moved seven days
 * past the real today is synced: the source's day is clamped to the local tomorrow, and the run says what it
 * left unread and why, in its summary, its row and its exit code (8).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates/days.js';
import { simulatedHttpDate } from '../../src/simulator/server/clock.js';
import { runPropsync } from '../support/cli.js';
import { startCliWorld, type CliWorld } from './support.js';

const ZONE = 'UTC';
const realToday = () => new Date().toISOString().slice(0, 10);
/**
 * The source's today in ZONE: the UTC day of the simulator's Date, its day at Denver's time of day,
 * a day after its Denver day from 00:00 to 07:00 UTC.
 */
const sourceTodayNow = () => new Date(simulatedHttpDate(world.sim.dataset.today)).toISOString().slice(0, 10);

let world: CliWorld;
beforeAll(async () => {
  world = await startCliWorld({ today: addDays(realToday(), -2) });
});
afterAll(async () => {
  await world?.close();
});

describe('a window knowingly left unread (issue 36)', () => {
  it('a simulator moved past the real today: the sync ends incomplete, says the days it skipped, and exits 8', async () => {
    const env = { ...world.env, PROPSYNC_TIME_ZONE: ZONE };
    const first = await runPropsync(['sync'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/succeeded/);

    world.sim.advance(7);
    const run = await runPropsync(['sync'], { env });
    const sourceToday = sourceTodayNow();
    expect(run.code, run.stdout + run.stderr).toBe(8);
    const tomorrow = addDays(realToday(), 1);
    expect(run.stdout).toMatch(/incomplete: finished what it could read, but left windows unread/);
    expect(run.stdout).toContain(
      `unread: the source's days ${addDays(tomorrow, 1)}..${sourceToday}: its today ${sourceToday} is past the local tomorrow ${tomorrow}`,
    );
    const { rows } = await sql<{ status: string; unread: string | null }>`
      select status, unread from sync_runs order by run_id`.execute(world.database.db);
    expect(rows.map((row) => row.status)).toEqual(['succeeded', 'incomplete']);
    expect(rows[1]!.unread).toContain(`days ${addDays(tomorrow, 1)}..${sourceToday}`);
  });

  it('a source whose clock runs further ahead than the allowed skew: its Date is ignored, the days after the local today are left unread', async () => {
    const env = { ...world.env, PROPSYNC_TIME_ZONE: ZONE, PROPSYNC_MAX_CLOCK_SKEW_HOURS: '36' };
    const run = await runPropsync(['sync'], { env });
    expect(run.code, run.stdout + run.stderr).toBe(8);
    const sourceToday = sourceTodayNow();
    expect(run.stdout).toContain(
      `unread: the source's days ${addDays(realToday(), 1)}..${sourceToday}: its clock says ${sourceToday}, further ahead of the local clock than source.maxClockSkewHours allows`,
    );
  });
});
