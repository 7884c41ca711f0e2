import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockName, withStreamLock } from '../../src/sync/lock.js';
import { runPropsync } from '../support/cli.js';
import { startCliWorld, type CliWorld } from './support.js';

let world: CliWorld;
beforeAll(async () => {
  world = await startCliWorld();
});
afterAll(async () => {
  await world?.close();
});

async function cursors(): Promise<string[]> {
  const rows = await world.database.db
    .selectFrom('sync_cursors')
    .select(['stream', 'scope', 'cursor'])
    .orderBy('stream')
    .orderBy('scope')
    .orderBy('cursor')
    .execute();
  return rows.map((row) => `${row.stream}/${row.scope}/${row.cursor}`);
}

describe('propsync reset and the stream lock, as child processes', () => {
  it('reset --yes forgets one property’s lease cursors and nothing else; the next sync reads that property again', async () => {
    const first = await runPropsync(['sync'], { env: world.env });
    expect(first.code, first.stderr).toBe(0);
    const before = await cursors();
    const property = String(world.sim.dataset.properties[0].PropertyID);
    const leaseCursors = before.filter((cursor) => cursor.startsWith(`leases/${property}/`));
    expect(leaseCursors.length).toBeGreaterThan(0);

    const reset = await runPropsync(['reset', '--stream', 'leases', '--property', property, '--yes'], {
      env: world.env,
    });
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain(
      `forgot ${leaseCursors.length} cursor(s) of leases for property ${property}`,
    );
    expect(await cursors()).toEqual(before.filter((cursor) => !leaseCursors.includes(cursor)));

    const again = await runPropsync(['reset', '--stream', 'leases', '--property', property, '--yes'], {
      env: world.env,
    });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to reset');

    const next = await runPropsync(['sync', '--stream', 'leases'], { env: world.env });
    expect(next.code, next.stderr).toBe(0);
    expect(await cursors()).toEqual(before);
    const units = await world.database.db
      .selectFrom('sync_work_units')
      .select(['kind', 'property_ids'])
      .where('run_id', '=', Number(/run (\d+)/.exec(next.stdout)![1]))
      .execute();
    // bigint[] comes back as text from pg (only scalar int8 has a number parser), hence String()
    expect(
      units.some((unit) => unit.kind === 'full' && unit.property_ids.map(String).includes(property)),
    ).toBe(true);
  });

  it('sync and reset refuse a stream that another process is syncing (exit 1, naming the holder)', async () => {
    const results = await withStreamLock(world.database.url, lockName('default', 'leases'), () =>
      Promise.all([
        runPropsync(['sync', '--stream', 'leases'], { env: world.env }),
        runPropsync(['reset', '--stream', 'leases', '--yes'], { env: world.env }),
        runPropsync(['sync', '--stream', 'invoices'], { env: world.env }),
      ]),
    );
    expect(results.acquired).toBe(true);
    if (!results.acquired) return;
    const [sync, reset, other] = results.value;
    expect(sync.code).toBe(1);
    // The account's lock of the stream (`default/leases`) is held: the sync says so and runs nothing.
    expect(sync.stdout).toContain(
      `stream default/leases is being synced by another propsync process (pid=${process.pid}`,
    );
    expect(sync.stdout).toContain('nothing was run');
    expect(reset.code).toBe(1);
    expect(reset.stderr).toContain('reset it once that run has ended');
    expect(other.code, other.stderr).toBe(0);
    expect((await cursors()).filter((cursor) => cursor.startsWith('leases/')).length).toBeGreaterThan(0);
  });
});
