import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/sync/status.js';
import { runPropsync } from '../support/cli.js';
import { startCliWorld, type CliWorld } from './support.js';

const ZONE = 'America/New_York';

let world: CliWorld;
beforeAll(async () => {
  world = await startCliWorld();
});
afterAll(async () => {
  await world?.close();
});

/** A day `YYYY-MM-DD` of an instant in a zone. */
function dayIn(zone: string, at: Date): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}

describe(`timeZone: ${ZONE}`, () => {
  it('reads the source day, the cursors and the budget day in the configured zone', async () => {
    const env = { ...world.env, PROPSYNC_TIME_ZONE: ZONE };
    // The simulator's replies carry its day at the wall-clock time: in New York, that day (or the next, late at night).
    const probe = await fetch(`${world.sim.url}/api/v1/status`, { method: 'POST' });
    const sourceDay = dayIn(ZONE, new Date(probe.headers.get('date')!));

    const run = await runPropsync(['sync'], { env });
    expect(run.code, run.stderr).toBe(0);

    const db = world.database.db;
    const { rows: runs } = await sql<{
      source_today: string;
      calls: number;
    }>`select source_today::text, calls from sync_runs`.execute(db);
    expect(runs).toHaveLength(1);
    expect(runs[0].source_today).toBe(sourceDay);
    const { rows: cursors } = await sql<{
      value: string;
    }>`select distinct value::text from sync_cursors`.execute(db);
    expect(cursors.map((cursor) => cursor.value)).toEqual([sourceDay]);

    const before = dayIn(ZONE, new Date());
    const status = await runPropsync(['status', '--json'], { env });
    const after = dayIn(ZONE, new Date());
    expect(status.code, status.stderr).toBe(0);
    const [report] = (JSON.parse(status.stdout) as { accounts: StatusReport[] }).accounts;
    expect(report.account).toBe('default');
    expect(report.timeZone).toBe(ZONE);
    expect([before, after]).toContain(report.today);
    expect(report.budget.callsToday).toBe(runs[0].calls);
    const text = await runPropsync(['status'], { env });
    expect(text.stdout).toContain(`today ${report.today} (${ZONE})`);
  });
});
