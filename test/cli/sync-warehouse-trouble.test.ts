import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';
import { jsonLines, PASSWORD, startCliWorld, type CliWorld } from './support.js';

let world: CliWorld;
let folder: ReturnType<typeof scratchFolder>;
beforeAll(async () => {
  world = await startCliWorld();
  // Lock waits give up after 3 s here (30 s by default), so that the test does not wait long.
  folder = scratchFolder({ 'config/propsync.yaml': 'database:\n  lockTimeoutMs: 3000\n' });
});
afterAll(async () => {
  await world?.close();
  folder?.remove();
});

function sync(args: string[] = []) {
  return runPropsync(['sync', ...args], { env: world.env, cwd: folder.dir, timeoutMs: 90_000 });
}

async function count(query: ReturnType<typeof sql<{ n: number }>>): Promise<number> {
  return (await query.execute(world.database.db)).rows[0].n;
}

/** A session of another application, as an operator's psql would be. */
async function otherSession(): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: world.database.url,
    application_name: 'psql-by-an-operator',
  });
  client.on('error', () => {});
  await client.connect();
  return client;
}

describe('a constraint of the warehouse refuses rows', () => {
  it('fails the unit naming the constraint, quarantines nothing, and exits 1 rather than 3', async () => {
    await sql`alter table leases add constraint no_month_to_month check (is_month_to_month is not true)`.execute(
      world.database.db,
    );
    const refused = world.sim.dataset.leases.filter((lease) => lease.isMonthToMonth === 1).length;
    expect(refused, 'leases the constraint refuses').toBeGreaterThan(0);
    try {
      const run = await sync(['--stream', 'leases']);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toMatch(/error: .*no_month_to_month.*not a bad record/);
      expect(await count(sql<{ n: number }>`select count(*)::int as n from quarantine`)).toBe(0);
      expect(
        await count(
          sql<{
            n: number;
          }>`select count(*)::int as n from sync_work_units where status = 'failed' and error like '%constraint no_month_to_month%'`,
        ),
      ).toBeGreaterThan(0);
    } finally {
      await sql`alter table leases drop constraint no_month_to_month`.execute(world.database.db);
    }
    const again = await sync();
    expect(again.code, again.stderr).toBe(0);
    const expected = expectedTotals(world.sim.dataset);
    expect(await warehouseTotals(world.database.db, expected)).toEqual(expected);
  });
});

describe('a run left running by a process that died', () => {
  it('is closed as abandoned, with its running units, by the next sync of its streams', async () => {
    const { rows } = await sql<{ run_id: number }>`
      insert into sync_runs (account_id, kind, streams, status, host, pid, started_at, heartbeat_at)
      values ('default', 'sync', '{leases,invoices}', 'running', 'gone-host', 999999, now() - interval '3 minutes', now() - interval '2 minutes')
      returning run_id`.execute(world.database.db);
    const stale = rows[0].run_id;
    await sql`
      insert into sync_work_units (account_id, run_id, stream, kind, unit_key, status, next_page, per_page, pages, started_at)
      values ('default', ${stale}, 'leases', 'live', 'leases:live:stale-test', 'running', 3, 500, 2, now() - interval '3 minutes')`.execute(
      world.database.db,
    );
    const run = await sync();
    expect(run.code, run.stderr).toBe(0);
    const closed = await world.database.db
      .selectFrom('sync_runs')
      .selectAll()
      .where('run_id', '=', stale)
      .executeTakeFirstOrThrow();
    expect(closed).toMatchObject({ status: 'abandoned', pages: 2, work_units_failed: 1 });
    expect(closed.finished_at?.toISOString()).toBe(closed.heartbeat_at?.toISOString());
    expect(closed.error).toContain('pid 999999 on gone-host');
    const unit = await world.database.db
      .selectFrom('sync_work_units')
      .select(['status'])
      .where('run_id', '=', stale)
      .executeTakeFirstOrThrow();
    expect(unit.status).toBe('abandoned');
    const line = jsonLines(run.stderr).find((entry) => entry.event === 'run_abandoned');
    expect(line).toMatchObject({ abandonedRunId: stale, level: 40 });
    expect(
      await count(sql<{ n: number }>`select count(*)::int as n from sync_runs where status = 'running'`),
    ).toBe(0);
  });
});

describe('a table locked by another session', () => {
  it('`lock table sync_runs` fails the sync after the lock timeout, naming the table and the session holding it', async () => {
    const holder = await otherSession();
    try {
      await holder.query('begin');
      await holder.query('lock table sync_runs in access exclusive mode');
      const pid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
      const run = await sync();
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('waited 3 s (database.lockTimeoutMs) for a lock on table sync_runs');
      // The summary names the session (the JSON log on stderr says it too, with its quotes escaped).
      expect(run.stdout).toContain(
        `pid ${pid} (application_name "psql-by-an-operator", AccessExclusiveLock on sync_runs, idle in transaction`,
      );
      expect(run.stderr).not.toContain(PASSWORD);
    } finally {
      await holder.end();
    }
  });

  it('rows of sync_cursors locked: the units that move a cursor fail, naming the table and the holder; once it lets go, the next sync is done', async () => {
    const first = await sync(['--stream', 'leases']);
    expect(first.code, first.stderr).toBe(0);
    const holder = await otherSession();
    try {
      await holder.query('begin');
      const locked = await holder.query(`select * from sync_cursors where stream = 'leases' for update`);
      expect(locked.rowCount).toBeGreaterThan(0);
      const pid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
      const run = await sync(['--stream', 'leases']);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(
        /error: .*waited 3 s \(database\.lockTimeoutMs\) for a lock on table sync_cursors and gave up: held by pid (\d+)/,
      );
      expect(run.stdout).toContain(`pid ${pid} (application_name "psql-by-an-operator"`);
      // Not the sync's other units, which hold the table too while they wait in line.
      expect(run.stdout).not.toContain('application_name "propsync"');
    } finally {
      await holder.end();
    }
    const again = await sync(['--stream', 'leases']);
    expect(again.code, again.stderr).toBe(0);
  });
});
