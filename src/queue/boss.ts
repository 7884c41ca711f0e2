/**
 * The job queue: pg-boss in its own schema of the warehouse (`propsync_queue`, made by
 * `propsync migrate`), one queue per account, one dead-letter queue. How a job flows:
 * docs/operating.md#workers.
 */
import PgBoss from 'pg-boss';
import { CompiledQuery, sql } from 'kysely';
import type { Db } from '../catalog/tables.js';
import type { Logger } from '../log/logger.js';
import { DEAD_LETTER_QUEUE, isDelivery, queueOf, QUEUE_SCHEMA, TICKS_QUEUE, type Delivery } from './jobs.js';

/** A job not heard of for this long (its worker died) is taken again by another worker. */
export const EXPIRE_SECONDS = 30;

/** How often a worker running a job says so (moving the job's expiry on). */
export const JOB_HEARTBEAT_MS = 10_000;

/** Attempts of a job after its first, each resuming from the checkpoints. */
export const RETRY_LIMIT = 3;

/** Seconds between pg-boss's maintenance passes (which retry the jobs of dead workers). */
const MAINTENANCE_SECONDS = 5;

/** Starts pg-boss on the warehouse's database (its schema migrated up if a newer pg-boss needs it). */
export async function openBoss(
  databaseUrl: string,
  logger: Logger,
  options: { maxConnections?: number } = {},
): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: QUEUE_SCHEMA,
    max: options.maxConnections ?? 4,
    application_name: `propsync queue pid=${process.pid}`,
    maintenanceIntervalSeconds: MAINTENANCE_SECONDS,
    schedule: false,
  });
  boss.on('error', (error: Error) =>
    logger.warn({ event: 'queue_error', err: error.message }, `queue: ${error.message}`),
  );
  await boss.start();
  return boss;
}

/**
 * The options of every account's queue: one copy of a lane queued and one running at most, retried, then dead-lettered.
 */
const QUEUE_OPTIONS: Omit<PgBoss.Queue, 'name'> = {
  policy: 'stately',
  retryLimit: RETRY_LIMIT,
  retryDelay: 5,
  expireInSeconds: EXPIRE_SECONDS,
  deadLetter: DEAD_LETTER_QUEUE,
};

/**
 * The advisory lock key under which queues are made (pg-boss makes a queue with DDL, which two processes at
 * once may deadlock on).
 */
const QUEUES_LOCK = [0x7073796e, 0x71756575] as const;

/**
 * Makes the dead-letter queue, the ticks queue and each account's queue, or brings an existing
 * account queue to the current options (createQueue ignores them on an existing queue), one
 * process at a time. Returns the accounts' queue names.
 */
export async function ensureQueues(db: Db, boss: PgBoss, accounts: readonly string[]): Promise<string[]> {
  return db.connection().execute(async (session) => {
    await sql`select pg_advisory_lock(${QUEUES_LOCK[0]}::int, ${QUEUES_LOCK[1]}::int)`.execute(session);
    try {
      const known = new Set((await boss.getQueues()).map((queue) => queue.name));
      if (!known.has(DEAD_LETTER_QUEUE))
        await boss.createQueue(DEAD_LETTER_QUEUE, {
          name: DEAD_LETTER_QUEUE,
          policy: 'standard',
          retentionDays: 30,
        });
      if (!known.has(TICKS_QUEUE))
        await boss.createQueue(TICKS_QUEUE, { name: TICKS_QUEUE, policy: 'standard', retentionDays: 2 });
      const names: string[] = [];
      for (const account of accounts) {
        const name = queueOf(account);
        if (known.has(name)) await boss.updateQueue(name, { name, ...QUEUE_OPTIONS });
        else await boss.createQueue(name, { name, ...QUEUE_OPTIONS });
        names.push(name);
      }
      return names;
    } finally {
      await sql`select pg_advisory_unlock(${QUEUES_LOCK[0]}::int, ${QUEUES_LOCK[1]}::int)`.execute(session);
    }
  });
}

/**
 * Completes or fails a job only while it is still this delivery: a worker that stalled past the job's expiry
 * must not end the delivery another worker now runs (pg-boss's own calls go by id alone). True when it acted.
 */
export async function settleJob(
  db: Db,
  boss: PgBoss,
  delivery: Delivery,
  how: { complete: true } | { fail: string },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql`
      select 1 from ${sql.table(`${QUEUE_SCHEMA}.job`)} where ${isDelivery(delivery)} for update`.execute(
      trx,
    );
    if (rows.length === 0) return false;
    // pg-boss runs its statement on this transaction's connection, after the row lock.
    const executor = {
      executeSql: (text: string, values: unknown[]) => trx.executeQuery(CompiledQuery.raw(text, values)),
    };
    // pg-boss takes (name, id, data, options) whatever its types say: no output, on this connection.
    if ('complete' in how)
      await boss.complete(delivery.queue, delivery.id, null as unknown as object, { db: executor });
    else await boss.fail(delivery.queue, delivery.id, { message: how.fail }, { db: executor });
    return true;
  });
}
