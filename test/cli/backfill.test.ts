import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { startCliWorld, type CliWorld } from './support.js';

let world: CliWorld;
let folder: ReturnType<typeof scratchFolder>;
beforeAll(async () => {
  world = await startCliWorld();
  // One attempt per call, so that an injected 500 fails its chunk at once.
  folder = scratchFolder({ 'propsync.yaml': 'source:\n  retry:\n    maxAttempts: 1\n' });
});
afterAll(async () => {
  await world?.close();
  folder?.remove();
});

const FROM = '2025-01-01';
const TO = '2025-12-31';
const iso = (mdy: string) => `${mdy.slice(6, 10)}-${mdy.slice(0, 2)}-${mdy.slice(3, 5)}`;
const runId = (stdout: string) => Number(/run (\d+)/.exec(stdout)?.[1]);

describe('propsync backfill, as a child process', () => {
  it('stops with exit 1 when chunks fail, and the same command resumes: no chunk read twice, nothing missing', async () => {
    const args = [
      '--config',
      'propsync.yaml',
      'backfill',
      '--stream',
      'leases',
      '--from',
      FROM,
      '--to',
      TO,
      '--chunk',
      '3m',
    ];
    const db = world.database.db;
    const properties = world.sim.dataset.properties.length;

    world.sim.setFaults('500x2:method=getLeases');
    const first = await runPropsync(args, { env: world.env, cwd: folder.dir });
    expect(first.code, first.stderr).toBe(1);
    expect(first.stdout).toMatch(/work unit\(s\) failed .*; rerun to retry them/);
    expect(first.stdout).toMatch(/error: .*2025-/);
    const firstUnits = await db
      .selectFrom('sync_work_units')
      .select(['unit_key', 'status'])
      .where('run_id', '=', runId(first.stdout))
      .execute();
    const firstDone = firstUnits.filter((unit) => unit.status === 'done').length;
    expect(firstUnits.filter((unit) => unit.status === 'failed')).toHaveLength(2);
    expect(firstDone).toBeGreaterThan(0);

    world.sim.setFaults(undefined);
    const second = await runPropsync(args, { env: world.env, cwd: folder.dir });
    expect(second.code, second.stderr).toBe(0);
    const secondUnits = await db
      .selectFrom('sync_work_units')
      .select(['unit_key', 'status'])
      .where('run_id', '=', runId(second.stdout))
      .execute();
    expect(secondUnits.filter((unit) => unit.status === 'done')).toHaveLength(4 * properties - firstDone);

    const done = await db
      .selectFrom('sync_work_units')
      .select(['unit_key'])
      .where('kind', '=', 'backfill')
      .where('status', '=', 'done')
      .execute();
    expect(done).toHaveLength(4 * properties);
    expect(new Set(done.map((unit) => unit.unit_key)).size).toBe(4 * properties);

    const leases = await db.selectFrom('leases').select('lease_id').orderBy('lease_id').execute();
    const expected = world.sim.dataset.leases
      .filter((lease) => iso(lease.moveInDate) >= FROM && iso(lease.moveInDate) <= TO)
      .map((lease) => lease._id)
      .sort((a, b) => a - b);
    expect(expected.length).toBeGreaterThan(0);
    expect(leases.map((row) => row.lease_id)).toEqual(expected);

    const third = await runPropsync(args, { env: world.env, cwd: folder.dir });
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toContain('calls 1 ');
  });
});
