/**
 * Issue 35 (also found): after a job expired and was delivered again, the first worker, stalled until then, must
 * not complete or fail the delivery another worker now runs. pg-boss's own `complete` and `fail` go by id alone.
 */
import { sql } from 'kysely';
import type PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { ensureQueues, openBoss, settleJob } from '../../src/queue/boss.js';
import { queueOf, releaseJob, touchJob } from '../../src/queue/jobs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let warehouse: TestDatabase;
let boss: PgBoss;
const queue = queueOf('north');

beforeAll(async () => {
  warehouse = await createTestDatabase();
  boss = await openBoss(warehouse.url, createLogger({ level: 'silent' }));
  await ensureQueues(warehouse.db, boss, ['north']);
});
afterAll(async () => {
  await boss?.stop({ graceful: false, close: true, wait: true });
  await warehouse?.drop();
});

/** A job delivered once, then expired (as pg-boss's maintenance does) and delivered again. */
async function deliveredTwice(): Promise<{ first: number; second: number; id: string }> {
  const id = (await boss.send(queue, { lane: Math.random() }))!;
  const [first] = await boss.fetch(queue, { includeMetadata: true });
  // pg-boss fails an active job past its expiry back to retry; the next fetch delivers it again.
  await sql`update propsync_queue.job set state = 'retry', start_after = now() - interval '1 second' where id = ${id}::uuid`.execute(
    warehouse.db,
  );
  const [second] = await boss.fetch(queue, { includeMetadata: true });
  expect(second!.id).toBe(id);
  expect(second!.retryCount).toBeGreaterThan(first!.retryCount);
  return { first: first!.retryCount, second: second!.retryCount, id };
}

const stateOf = async (id: string) =>
  (
    await sql<{ state: string; retry_count: number }>`
      select state, retry_count from propsync_queue.job where id = ${id}::uuid`.execute(warehouse.db)
  ).rows[0];

describe('a stalled delivery (issue 35)', () => {
  it("the first delivery's complete, fail, touch and release leave the second one's job alone", async () => {
    const { first, second, id } = await deliveredTwice();
    const stale = { queue, id, retryCount: first };
    expect(await settleJob(warehouse.db, boss, stale, { complete: true })).toBe(false);
    expect(await settleJob(warehouse.db, boss, stale, { fail: 'late' })).toBe(false);
    await releaseJob(warehouse.db, stale, 0);
    await touchJob(warehouse.db, stale);
    expect(await stateOf(id)).toEqual({ state: 'active', retry_count: second });
    // The delivery that runs it now settles it.
    expect(await settleJob(warehouse.db, boss, { queue, id, retryCount: second }, { complete: true })).toBe(
      true,
    );
    expect((await stateOf(id))!.state).toBe('completed');
  });

  it('a failed delivery is retried by pg-boss as before', async () => {
    const { second, id } = await deliveredTwice();
    expect(await settleJob(warehouse.db, boss, { queue, id, retryCount: second }, { fail: 'boom' })).toBe(
      true,
    );
    expect((await stateOf(id))!.state).toBe('retry');
  });
});
