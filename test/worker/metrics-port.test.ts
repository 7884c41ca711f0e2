/**
 * Issue 35: two workers on one host with the same /healthz and /metrics port. The second says what
 * to set (a port of its own, or 0 for none) and exits 2 at once; with its own port both serve.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { scratchFolder } from '../support/cli.js';
import { freePort } from '../../src/warehouse/embedded.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { configFile, killAll, PASSWORD, startPropsync, until } from './support.js';

let sim: Simulator;
let warehouse: TestDatabase;
let folder: { dir: string; remove(): void };

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    scale: 'small',
    seed: 7,
    username: 'north-user',
    password: PASSWORD,
  });
  warehouse = await createTestDatabase();
  folder = scratchFolder({ 'config/propsync.yaml': configFile(warehouse.url, { north: sim }) });
});

afterAll(async () => {
  killAll();
  await sim?.close();
  await warehouse?.drop();
  folder?.remove();
});

it('a second worker on the same metrics port says what to set and exits 2; on its own port it serves', async () => {
  const port = await freePort();
  const env = { PROPSYNC_METRICS_PORT: String(port), PROPSYNC_METRICS_HOST: '127.0.0.1' };
  const first = startPropsync(['worker'], folder.dir, env);
  await until('the first worker serves', async () => /"event":"http_listening"/.test(first.output()));
  const second = startPropsync(['worker'], folder.dir, env);
  expect(await second.exited).toBe(2);
  expect(second.output()).toContain(`the /healthz and /metrics port ${port} (metrics.port) is in use`);
  expect(second.output()).toContain(`PROPSYNC_METRICS_PORT=${port + 1}`);
  expect(second.output()).toContain('PROPSYNC_METRICS_PORT=0 for none');
  expect(second.output()).not.toContain('EADDRINUSE');
  const third = startPropsync(['worker'], folder.dir, {
    ...env,
    PROPSYNC_METRICS_PORT: String(await freePort()),
  });
  await until('the third worker serves', async () => /"event":"http_listening"/.test(third.output()));
  for (const worker of [first, third]) {
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }
}, 120_000);

it("/healthz shows each stream's freshness, and a stale stream leaves the process healthy", async () => {
  await sql`insert into sync_runs (account_id, kind, streams, status, started_at, finished_at)
            values ('north', 'sync', array['leases'], 'succeeded', now() - interval '61 minutes',
                    now() - interval '1 hour')`.execute(warehouse.db);
  const port = await freePort();
  const worker = startPropsync(['worker'], folder.dir, {
    PROPSYNC_METRICS_PORT: String(port),
    PROPSYNC_METRICS_HOST: '127.0.0.1',
  });
  try {
    await until('the worker serves', async () => /"event":"http_listening"/.test(worker.output()));
    const reply = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as {
      ok: boolean;
      freshness: { account: string; stream: string; state: string }[];
    };
    expect(body.ok).toBe(true);
    expect(body.freshness).toContainEqual(
      expect.objectContaining({ account: 'north', stream: 'leases', state: 'ok' }),
    );
    // Never succeeded: an error for status --check and the alerts, not a reason to restart the worker.
    expect(body.freshness).toContainEqual(
      expect.objectContaining({ account: 'north', stream: 'invoices', state: 'error' }),
    );
  } finally {
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }
}, 120_000);
