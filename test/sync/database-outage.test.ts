import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { LOCK_NAMESPACE, lockKey, lockTag } from '../../src/sync/lock.js';
import { WAREHOUSE_TABLES, type Db, type Warehouse } from '../../src/catalog/tables.js';
import { connect } from '../../src/warehouse/db.js';
import { migrateToLatest } from '../../src/warehouse/migrate.js';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../src/warehouse/embedded.js';
import { jsonLines, PASSWORD, startCliWorld, startPropsync, USER, type CliWorld } from '../cli/support.js';
import { scratchFolder } from '../support/cli.js';
import {
  cutMidTransaction,
  pagesCommitted,
  propsyncSessions,
  slowCheckpoints,
} from '../support/warehouse-cuts.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';

/** Runs `propsync sync` and cuts its connections `cuts` times, each after a page more was committed. */
async function syncThroughCuts(
  world: CliWorld,
  cwd: string,
  cuts: number,
): Promise<{ code: number | null; cut: number; stdout: string; lines: Record<string, unknown>[] }> {
  const db = world.database.db;
  const running = startPropsync(['sync'], { env: { ...world.env, PROPSYNC_PAGE_SIZE: '20' }, cwd });
  let cut = 0;
  while (cut < cuts && running.child.exitCode === null) {
    const before = await pagesCommitted(db);
    while ((await pagesCommitted(db)) <= before && running.child.exitCode === null) await sleep(20);
    if ((await cutMidTransaction(db, running)) > 0) cut += 1;
  }
  const { code } = await running.exited;
  return { code, cut, stdout: running.stdout(), lines: jsonLines(running.stderr()) };
}

describe('connections cut during a sync (pg_terminate_backend of its pool and lock connections)', () => {
  let world: CliWorld;
  let folder: ReturnType<typeof scratchFolder>;
  beforeAll(async () => {
    world = await startCliWorld({ today: '2026-02-02' });
    folder = scratchFolder();
    await slowCheckpoints(world.database.db);
  });
  afterAll(async () => {
    await world?.close();
    folder?.remove();
  });

  it.each([
    ['a full sync', 0],
    ["a week's incremental sync", 7],
  ])(
    'five cuts during %s: the run rides through them, exits 0, and the warehouse equals the source',
    async (_what, days) => {
      if (days) world.sim.advance(days);
      const run = await syncThroughCuts(world, folder.dir, 5);
      expect(run.cut, 'cuts that landed while the sync ran').toBe(5);
      expect(run.code, JSON.stringify(run.lines.filter((line) => Number(line.level) >= 40).slice(0, 5))).toBe(
        0,
      );
      expect(run.stdout).toMatch(/run \d+ \(sync: [a-z, ]+\) succeeded/);
      // Each cut took every stream's lock connection: each lock was taken again, none lost to a stop.
      const lost = run.lines.filter((line) => line.event === 'stream_lock_lost');
      expect(lost.length).toBeGreaterThanOrEqual(5);
      expect(run.lines.filter((line) => line.event === 'stream_lock_retaken')).toHaveLength(lost.length);
      // And the statement in flight failed, then ran again on a new connection.
      expect(run.lines.some((line) => line.event === 'database_retry')).toBe(true);
      const expected = expectedTotals(world.sim.dataset);
      expect(await warehouseTotals(world.database.db, expected)).toEqual(expected);
      const { rows } = await sql<{
        status: string;
      }>`select status from sync_runs order by run_id desc limit 1`.execute(world.database.db);
      expect(rows[0].status).toBe('succeeded');
    },
    240_000,
  );

  it('a lock that another process took while its connection was down stops the run, which says who holds it, and commits no page after', async () => {
    const db = world.database.db;
    const other = new pg.Client({
      connectionString: world.database.url,
      application_name: `propsync lock ${lockTag('default/leases')} pid=4242 host=elsewhere`,
    });
    other.on('error', () => {});
    await other.connect();
    try {
      const running = startPropsync(['sync', '--stream', 'leases', '--full'], {
        env: { ...world.env, PROPSYNC_PAGE_SIZE: '20' },
        cwd: folder.dir,
      });
      const before = await pagesCommitted(db);
      while ((await pagesCommitted(db)) < before + 2 && running.child.exitCode === null) await sleep(20);
      // The other process waits for the lock, and gets it the moment the sync's lock connection dies.
      const taken = other.query('select pg_advisory_lock($1::int, $2::int)', [
        LOCK_NAMESPACE,
        lockKey('default/leases'),
      ]);
      for (let waits = false; !waits; await sleep(20)) {
        const { rows } = await sql<{
          n: number;
        }>`select count(*)::int as n from pg_stat_activity where application_name like '%pid=4242%' and wait_event_type = 'Lock'`.execute(
          db,
        );
        waits = rows[0].n === 1;
      }
      await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name like ${`propsync lock ${lockTag('default/leases')} pid=%`} and application_name not like '%pid=4242%'`.execute(
        db,
      );
      await taken;
      // A page whose lock check ran before the lock was lost may still be committing: wait for
      // the transactions begun before the other took the lock to end, then count.
      const takenAt = (await other.query<{ at: Date }>('select clock_timestamp() as at')).rows[0].at;
      while (
        running.child.exitCode === null &&
        (await propsyncSessions(db, { transactionBefore: takenAt })) > 0
      )
        await sleep(20);
      const pagesWhenTaken = await pagesCommitted(db);
      const { code } = await running.exited;
      expect(code, running.stderr().slice(-2000)).toBe(1);
      expect(running.stdout()).toContain('another propsync process (pid=4242 host=elsewhere)');
      expect(running.stdout()).not.toContain('stopped by a signal');
      expect(await pagesCommitted(db), 'pages committed after the lock was lost').toBe(pagesWhenTaken);
      const { rows } = await sql<{
        status: string;
        error: string;
      }>`select status, error from sync_runs order by run_id desc limit 1`.execute(db);
      expect(rows[0].status).toBe('interrupted');
      expect(rows[0].error).toContain('pid=4242 host=elsewhere');
    } finally {
      await other.end();
    }
  }, 120_000);
});

describe('the warehouse Postgres restarted in the middle of a run', () => {
  let server: EmbeddedServer;
  let dataDir: string;
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  let db: Db;
  let folder: ReturnType<typeof scratchFolder>;
  beforeAll(async () => {
    const folder0 = mkdtempSync(join(tmpdir(), 'propsync-restart-'));
    // As root the server runs as the `postgres` user, which must enter the folder.
    chmodSync(folder0, 0o711);
    dataDir = join(folder0, 'data');
    server = await startEmbeddedPostgres({ dataDir, persistent: true });
    sim = await startSimulator({
      port: 0,
      scale: 'small',
      seed: 8,
      today: '2026-02-20',
      username: USER,
      password: PASSWORD,
      rateLimit: 'off',
    });
    folder = scratchFolder();
    db = connect<Warehouse>(server.url, { maxConnections: 2, applicationName: 'propsync-test' });
    await migrateToLatest(db, WAREHOUSE_TABLES);
    await slowCheckpoints(db);
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    await sim?.close();
    await server?.stop();
    if (dataDir) rmSync(join(dataDir, '..'), { recursive: true, force: true });
    folder?.remove();
  });

  const env = () => ({
    DATABASE_URL: server.url,
    PROPSYNC_API_URL: sim.url,
    PROPSYNC_API_USERNAME: USER,
    PROPSYNC_API_PASSWORD: PASSWORD,
    PROPSYNC_MAX_CLOCK_SKEW_HOURS: '0',
    PROPSYNC_PAGE_SIZE: '20',
    PROPSYNC_CONCURRENCY: '3',
  });

  /** Stops the server: a fast shutdown (SIGINT) ends every session. */
  async function stop(): Promise<void> {
    await db.destroy();
    await server.stop();
  }

  /** Starts the server again on its port. */
  async function start(): Promise<void> {
    server = await startEmbeddedPostgres({ dataDir, persistent: true, port: server.port });
    db = connect<Warehouse>(server.url, { maxConnections: 2, applicationName: 'propsync-test' });
  }

  it('goes on once the server is back and ends exact, with exit 0', async () => {
    const running = startPropsync(['sync'], { env: env(), cwd: folder.dir });
    while ((await pagesCommitted(db)) < 5 && running.child.exitCode === null) await sleep(20);
    expect(running.child.exitCode, 'the sync was still running').toBeNull();
    await stop();
    await start();
    const { code } = await running.exited;
    const lines = jsonLines(running.stderr());
    expect(code, running.stderr().slice(-2000)).toBe(0);
    expect(lines.some((line) => line.event === 'database_retry')).toBe(true);
    expect(lines.some((line) => line.event === 'stream_lock_retaken')).toBe(true);
    expect(running.stdout() + running.stderr()).not.toContain(new URL(server.url).password);
    const expected = expectedTotals(sim.dataset);
    expect(await warehouseTotals(db, expected)).toEqual(expected);
  }, 240_000);

  it('gives up once the server stays away longer than database.reconnect.maxOutageMs (exit 1, no hang); the next sync closes that run as abandoned', async () => {
    const short = scratchFolder({
      'config/propsync.yaml': 'database:\n  reconnect:\n    maxOutageMs: 3000\n',
    });
    let down = false;
    try {
      sim.advance(3);
      const before = await pagesCommitted(db);
      const running = startPropsync(['sync', '--full'], { env: env(), cwd: short.dir });
      while ((await pagesCommitted(db)) < before + 3 && running.child.exitCode === null) await sleep(20);
      expect(running.child.exitCode, 'the sync was still running').toBeNull();
      await stop();
      down = true;
      const { code } = await running.exited;
      expect(code).toBe(1);
      expect(running.stderr()).toMatch(/ECONNREFUSED|Connection terminated|terminating connection/);
      expect(running.stdout() + running.stderr()).not.toContain(new URL(server.url).password);
    } finally {
      short.remove();
      if (down) await start();
    }
    const { rows: left } = await sql<{
      run_id: number;
    }>`select run_id from sync_runs where status = 'running'`.execute(db);
    expect(left).toHaveLength(1);
    const next = startPropsync(['sync'], { env: env(), cwd: folder.dir });
    expect((await next.exited).code, next.stderr().slice(-2000)).toBe(0);
    const closed = await db
      .selectFrom('sync_runs')
      .select('status')
      .where('run_id', '=', left[0].run_id)
      .executeTakeFirstOrThrow();
    expect(closed.status).toBe('abandoned');
    const expected = expectedTotals(sim.dataset);
    expect(await warehouseTotals(db, expected)).toEqual(expected);
  }, 240_000);
});
