/**
 * The queue's names and propsync's own statements on pg-boss's job table: what reads or moves a
 * job without pg-boss loaded (a sync's alerts, status, the console). pg-boss itself: boss.ts.
 */
import { sql } from 'kysely';
import type { Db } from '../catalog/tables.js';
import type { SyncRequest } from '../sync/types.js';

/** The schema pg-boss keeps its tables in. */
export const QUEUE_SCHEMA = 'propsync_queue';

/** Where a job lands once its retries are spent; `propsync status` shows them. */
export const DEAD_LETTER_QUEUE = 'propsync-dead-letters';

/** What every account's queue name starts with. */
export const QUEUE_PREFIX = 'propsync-units-';

/** The queue of an account's lanes. */
export function queueOf(account: string): string {
  return `${QUEUE_PREFIX}${account}`;
}

/** The singleton key of a lane's job: its account, stream and lane key. */
export function laneJobKey(account: string, stream: string, laneKey: string): string {
  return `${account}/${stream}/${laneKey}`;
}

/** A lane's job waiting (created, retry) or running (active): the run that queued it and its request. */
export interface LiveLaneJob {
  state: 'created' | 'retry' | 'active';
  runId: number;
  request: SyncRequest;
}

/** The jobs of a queue still waiting or running, by singleton key, among `keys`. */
export async function liveLaneJobs(
  db: Db,
  queue: string,
  keys: readonly string[],
): Promise<Map<string, LiveLaneJob>> {
  if (keys.length === 0) return new Map();
  const { rows } = await sql<{
    singleton_key: string;
    state: LiveLaneJob['state'];
    data: { runId: number; request: SyncRequest };
  }>`
    select singleton_key, state, data from ${sql.table(`${QUEUE_SCHEMA}.job`)}
     where name = ${queue} and state < 'completed' and singleton_key = any(${keys as string[]}::text[])
     order by state desc`.execute(db);
  const live = new Map<string, LiveLaneJob>();
  for (const row of rows)
    if (!live.has(row.singleton_key))
      live.set(row.singleton_key, {
        state: row.state,
        runId: Number(row.data.runId),
        request: row.data.request,
      });
  return live;
}

/**
 * The queues among `queues` that hold a job ready to take now (pg-boss's own fetch condition), in one
 * statement whose plan the session keeps (migrations/0027_ready_queues.ts): a worker of many accounts asks
 * this once instead of fetching from every queue in turn.
 */
export async function readyQueues(db: Db, queues: readonly string[]): Promise<Set<string>> {
  if (queues.length === 0) return new Set();
  const { rows } = await sql<{
    name: string;
  }>`select ${sql.raw(`${QUEUE_SCHEMA}.ready_queues()`)} as name`.execute(db);
  const wanted = new Set(queues);
  return new Set(rows.map((row) => row.name).filter((name) => wanted.has(name)));
}

/** The queue of claimed cron times of schedulers in queue mode (see schedule-tick.ts). */
export const TICKS_QUEUE = 'propsync-schedule-ticks';

/**
 * One delivery of a job: its queue, id and attempt. A job that expired (its worker stalled) is delivered again
 * under the same id with a higher `retry_count`, so the attempt tells a worker's own delivery from a later one.
 */
export interface Delivery {
  queue: string;
  id: string;
  retryCount: number;
}

/** The SQL condition: the job is active in this delivery. */
export const isDelivery = (delivery: Delivery) =>
  sql`name = ${delivery.queue} and id = ${delivery.id}::uuid and state = 'active'
       and retry_count = ${delivery.retryCount}`;

/** Moves an active job's expiry on: its worker is alive (only while the job is still this delivery). */
export async function touchJob(db: Db, delivery: Delivery): Promise<void> {
  await sql`update ${sql.table(`${QUEUE_SCHEMA}.job`)} set started_on = now() where ${isDelivery(delivery)}`.execute(
    db,
  );
}

/**
 * Gives an active job back to the queue without spending one of its retries (a worker that
 * stops, or a lane another worker still runs): taken again after `afterSeconds`; its retention starts again, so
 * that pg-boss does not archive a job given back often.
 */
export async function releaseJob(db: Db, delivery: Delivery, afterSeconds: number): Promise<void> {
  await sql`
    update ${sql.table(`${QUEUE_SCHEMA}.job`)}
       set state = 'retry', start_after = now() + make_interval(secs => ${afterSeconds}::float8),
           retry_limit = retry_limit + 1, keep_until = greatest(keep_until, now() + (keep_until - created_on))
     where ${isDelivery(delivery)}`.execute(db);
}

/** A job in the dead-letter queue: the lane it ran and why its last attempt failed. */
export interface DeadLetter {
  account: string;
  runId: number;
  laneKey: string;
  error: string;
  at: Date;
}

/** The jobs of the dead-letter queue not yet dealt with (an operator deletes them, or runs the work again). */
export async function deadLetters(db: Db, accounts: readonly string[]): Promise<DeadLetter[]> {
  if (accounts.length === 0) return [];
  const { rows } = await sql<{
    data: { account: string; runId: number; laneKey: string };
    output: { message?: string; value?: { message?: string } } | null;
    created_on: Date;
  }>`
    select data, output, created_on from ${sql.table(`${QUEUE_SCHEMA}.job`)}
     where name = ${DEAD_LETTER_QUEUE} and state < 'active' and data->>'account' = any(${accounts as string[]}::text[])
     order by created_on`.execute(db);
  return rows.map((row) => ({
    account: row.data.account,
    runId: Number(row.data.runId),
    laneKey: row.data.laneKey,
    error: row.output?.message ?? row.output?.value?.message ?? 'its retries ran out',
    at: row.created_on,
  }));
}
