import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configSchema, type Config } from '../../src/config/schema.js';
import { createLogger } from '../../src/log/logger.js';
import { openForSchedule } from '../../src/scheduler/run-scheduler.js';
import { readStatus } from '../../src/sync/status.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let warehouse: TestDatabase;
let config: Config;
beforeAll(async () => {
  warehouse = await createTestDatabase();
  config = configSchema.parse({
    database: { url: warehouse.url },
    source: { url: 'http://127.0.0.1:9', username: 'u', password: 'p', dailyCallBudget: 100 },
    logLevel: 'silent',
  });
});
afterAll(async () => {
  await warehouse?.drop();
});

it("starts the scheduler's client from what the call gate booked today", async () => {
  // Another process's gate booked 95 calls today.
  await sql`insert into source_budget (account_id, day, spent)
            values ('default', (now() at time zone ${config.timeZone})::date, 95)`.execute(warehouse.db);
  const propsync = await openForSchedule(config, {
    logger: createLogger({ level: 'silent' }),
    streams: ['leases'],
  });
  try {
    expect(propsync.accounts[0].client.stats().budgetLeft).toBe(5);
  } finally {
    await propsync.close();
  }
});

it('shows a run whose process stopped writing its heartbeat as abandoned, a live one as running', async () => {
  const hourAgo = new Date(Date.now() - 3_600_000);
  const dead = await warehouse.db
    .insertInto('sync_runs')
    .values({
      account_id: 'default',
      kind: 'sync',
      streams: ['invoices'],
      status: 'running',
      started_at: hourAgo,
      heartbeat_at: hourAgo,
    })
    .returning('run_id')
    .executeTakeFirstOrThrow();
  const alive = await warehouse.db
    .insertInto('sync_runs')
    .values({
      account_id: 'default',
      kind: 'sync',
      streams: ['invoices'],
      status: 'running',
      started_at: hourAgo,
      heartbeat_at: new Date(),
    })
    .returning('run_id')
    .executeTakeFirstOrThrow();
  const report = await readStatus(warehouse.db, {
    account: 'default',
    dailyCallBudget: 100,
    timeZone: config.timeZone,
    abandonedAfterMinutes: 10,
  });
  const running = report.streams.find((stream) => stream.stream === 'invoices')!.running;
  expect(running.map((run) => [run.runId, run.status])).toEqual([
    [alive.run_id, 'running'],
    [dead.run_id, 'abandoned'],
  ]);
});
