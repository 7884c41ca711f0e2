import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { PASSWORD, USER, startCliWorld, type CliWorld } from './support.js';

/**
 * Issue 41: a sync of more accounts than fit `database.maxConnections` (each holds a lock connection per
 * stream while it runs) runs them in turn, every one loaded, and never opens more connections than allowed
 * (before, 80 accounts met Postgres's "too many clients" and most of them did not run).
 */

let world: CliWorld;
beforeAll(async () => {
  world = await startCliWorld({ migrate: true });
}, 300_000);
afterAll(async () => {
  await world?.close();
}, 300_000);

/** Polls the warehouse's connections from propsync (application names `propsync...`) until stopped; the most seen. */
function watchConnections(url: string): { stop(): Promise<number> } {
  const client = new pg.Client({ connectionString: url, application_name: 'connection-watch' });
  let running = true;
  let most = 0;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and application_name like 'propsync%'`,
      );
      most = Math.max(most, rows[0].n);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.end();
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return most;
    },
  };
}

describe('a worker', () => {
  it('stops at start-up when its jobs would need more connections than allowed', async () => {
    const worker = await runPropsync(['worker', '--concurrency', '12'], { env: world.env });
    expect(worker.code).toBe(2);
    expect(worker.stderr).toContain(
      '12 jobs at once need at least 42 warehouse connections (two locks and one pooled connection a job, ' +
        "4 for the queue, 2 of the process's own), more than database.maxConnections (30): raise it, or lower " +
        'worker.concurrency (--concurrency)',
    );
  });
});

describe('a sync of many accounts', () => {
  it('runs them in turn within database.maxConnections, every one loaded', { timeout: 400_000 }, async () => {
    const ids = ['c1', 'c2', 'c3', 'c4', 'c5'];
    const source = `{ url: '${world.env.PROPSYNC_API_URL}', concurrency: 2, auth: { type: basic, username: ${USER}, passwordEnv: PW } }`;
    const folder = scratchFolder({
      'propsync.yaml':
        `database:\n  maxConnections: 16\n` +
        `accounts:\n${ids.map((id) => `  - id: ${id}\n    source: ${source}\n`).join('')}`,
    });
    // The test's own pool is idle meanwhile: what the watch counts beyond it is the command's.
    await sql`select 1`.execute(world.database.db);
    const watch = watchConnections(world.database.url);
    const baseline = await (async () => {
      const client = new pg.Client({ connectionString: world.database.url });
      await client.connect();
      const { rows } = await client.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and application_name like 'propsync%'`,
      );
      await client.end();
      return rows[0].n;
    })();
    try {
      const sync = await runPropsync(['--config', `${folder.dir}/propsync.yaml`, 'sync'], {
        env: { DATABASE_URL: world.database.url, PW: PASSWORD, PROPSYNC_MAX_CLOCK_SKEW_HOURS: '0' },
        timeoutMs: 380_000,
      });
      const most = (await watch.stop()) - baseline;
      expect(sync.code, sync.stderr).toBe(0);
      // Four lock connections and three lanes an account: two at a time fit 16.
      expect(sync.stderr).toContain('5 accounts run 2 at a time, within database.maxConnections (16)');
      expect(most).toBeGreaterThan(4);
      expect(most).toBeLessThanOrEqual(16);
      const { rows } = await sql<{ account_id: string; leases: number; runs: number }>`
        select a.account_id,
               (select count(*)::int from leases l where l.account_id = a.account_id) as leases,
               (select count(*)::int from sync_runs r where r.account_id = a.account_id and r.status = 'succeeded') as runs
          from accounts a order by 1`.execute(world.database.db);
      expect(rows).toEqual(
        ids.map((id) => ({ account_id: id, leases: world.sim.dataset.leases.length, runs: 1 })),
      );

      // verify takes every account's stream locks too: in turn, within the same limit.
      const verifyWatch = watchConnections(world.database.url);
      const verify = await runPropsync(['--config', `${folder.dir}/propsync.yaml`, 'verify'], {
        env: { DATABASE_URL: world.database.url, PW: PASSWORD, PROPSYNC_MAX_CLOCK_SKEW_HOURS: '0' },
        timeoutMs: 380_000,
      });
      const verifyMost = (await verifyWatch.stop()) - baseline;
      expect(verify.code, verify.stderr).toBe(0);
      expect(verifyMost).toBeLessThanOrEqual(16);
    } finally {
      await watch.stop().catch(() => 0);
      folder.remove();
    }
  });
});
