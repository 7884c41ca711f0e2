/**
 * Issue 41: a worker of many accounts asks which queues hold a job to take, in one statement, and fetches only
 * from those: a waiting job is found whatever queue it is in; one not due yet, one running, one of an account
 * the worker does not serve are not.
 */
import { sql } from 'kysely';
import type PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { ensureQueues, openBoss } from '../../src/queue/boss.js';
import { queueOf, readyQueues } from '../../src/queue/jobs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let warehouse: TestDatabase;
let boss: PgBoss;
const accounts = Array.from({ length: 12 }, (_, i) => `acct${i}`);
const queues = accounts.map(queueOf);

beforeAll(async () => {
  warehouse = await createTestDatabase();
  boss = await openBoss(warehouse.url, createLogger({ level: 'silent' }));
  await ensureQueues(warehouse.db, boss, [...accounts, 'elsewhere']);
});
afterAll(async () => {
  await boss?.stop({ graceful: false, close: true, wait: true });
  await warehouse?.drop();
});

describe('readyQueues', () => {
  it('names the queues with a job to take now, and only those', async () => {
    expect(await readyQueues(warehouse.db, queues)).toEqual(new Set());
    await boss.send(queueOf('acct3'), { lane: 1 }, { singletonKey: 'a' });
    await boss.send(queueOf('acct9'), { lane: 2 }, { singletonKey: 'b' });
    await boss.send(queueOf('acct5'), { lane: 3 }, { singletonKey: 'c', startAfter: 3600 });
    await boss.send(queueOf('elsewhere'), { lane: 4 }, { singletonKey: 'd' });
    expect(await readyQueues(warehouse.db, queues)).toEqual(new Set([queueOf('acct3'), queueOf('acct9')]));

    // Taken (active): no longer waiting. Given back to retry now: waiting again.
    const [job] = await boss.fetch(queueOf('acct3'), { includeMetadata: true });
    expect(await readyQueues(warehouse.db, queues)).toEqual(new Set([queueOf('acct9')]));
    await sql`update propsync_queue.job set state = 'retry', start_after = now() - interval '1 second'
               where id = ${job!.id}::uuid`.execute(warehouse.db);
    expect(await readyQueues(warehouse.db, queues)).toEqual(new Set([queueOf('acct3'), queueOf('acct9')]));
    expect(await readyQueues(warehouse.db, [])).toEqual(new Set());
  });
});
