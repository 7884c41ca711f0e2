/**
 * Issue 36 item 6: a sync whose source refuses every connection (a wrong port) spends no call:
 * its summary counts no call, and nothing is booked against the day's budget.
 */
import { createServer } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let warehouse: TestDatabase;
let folder: { dir: string; remove(): void };

beforeAll(async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as { port: number };
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  warehouse = await createTestDatabase();
  folder = scratchFolder({
    'config/propsync.yaml': JSON.stringify({
      database: { url: warehouse.url },
      source: {
        url: `http://127.0.0.1:${port}`,
        username: 'u',
        format: 'json',
        retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20, maxTotalWaitMs: 200 },
      },
      metrics: { port: 0 },
    }),
  });
});

afterAll(async () => {
  await warehouse?.drop();
  folder?.remove();
});

it('a refused connection is retried as a connection, never charged as a call', async () => {
  const result = await runPropsync(['sync', '--stream', 'leases'], {
    cwd: folder.dir,
    env: { PROPSYNC_API_PASSWORD: 'a-password-1', PROPSYNC_API_ALLOW_INSECURE_HTTP: 'true' },
  });
  expect(result.code).toBe(1);
  expect(result.stdout + result.stderr).toContain('no connection to the source (ECONNREFUSED');
  // The error line says what to do next.
  expect(result.stdout).toMatch(
    /error: .*ECONNREFUSED.*; check that the source answers at source\.url \(propsync check\)/,
  );
  // Three connections tried during discovery, none reached the source.
  expect(result.stdout).toMatch(/calls 0 \(/);
  const { rows } = await sql<{ spent: number }>`select spent from source_budget`.execute(warehouse.db);
  expect(rows.map((row) => row.spent)).toEqual([0]);
  const runs = await warehouse.db.selectFrom('sync_runs').select('calls').execute();
  expect(runs.map((run) => run.calls)).toEqual([0]);
});
