/**
 * A scheduler in queue mode: at each cron time it only enqueues, once across any number of
 * schedulers. The cron time is claimed first as a job of its own with an id derived from the
 * account, the stream and the time (`send` of an id already there returns null): the scheduler
 * that claims it plans the run, queues its lanes, and marks the claim done. A claim not done
 * within `schedule.tickGraceSeconds` (its scheduler died between the two) becomes a job like any other:
 * any scheduler takes it and enqueues that run late, so no cron time is lost.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type PgBoss from 'pg-boss';
import type { Db } from '../catalog/tables.js';
import type { StreamName } from '../streams/registry.js';
import { QUEUE_SCHEMA, TICKS_QUEUE } from './jobs.js';

/** A UUID of a text, the same in every process (SHA-1 based, as a version 5 UUID is). */
export function uuidOf(text: string): string {
  const hex = createHash('sha1').update(text).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const [timeLow, timeMid, timeHigh] = [hex.slice(0, 8), hex.slice(8, 12), hex.slice(13, 16)];
  return `${timeLow}-${timeMid}-5${timeHigh}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A claimed cron time: the job that holds it, and what it is for. */
export interface Tick {
  id: string;
  account: string;
  stream: StreamName;
  slot: string;
}

/**
 * Claims an account's stream's cron time (to the second): the claim for the one scheduler that gets it, else null.
 * Any scheduler may take it once `graceSeconds` have passed without it marked done. The claim stays in the
 * ticks queue (its id stays taken) for two days, then pg-boss drops it.
 */
export async function claimTick(
  boss: PgBoss,
  account: string,
  stream: StreamName,
  at: Date,
  graceSeconds: number,
): Promise<Tick | null> {
  const slot = new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString();
  const id = await boss.send(
    TICKS_QUEUE,
    { account, stream, slot },
    { id: uuidOf(`${account}/${stream}@${slot}`), startAfter: graceSeconds, retryLimit: 3 },
  );
  return id === null ? null : { id, account, stream, slot };
}

/** Marks a claim done: its run is enqueued (whether it was waiting, or taken late by a scheduler). */
export async function tickDone(db: Db, id: string): Promise<void> {
  await sql`
    update ${sql.table(`${QUEUE_SCHEMA}.job`)} set state = 'completed', completed_on = now()
     where name = ${TICKS_QUEUE} and id = ${id}::uuid and state < 'completed'`.execute(db);
}

/**
 * Claims whose scheduler did not enqueue their run in time, for the accounts given (the others' go back, for their
 * schedulers): each is this scheduler's to enqueue now, then mark done.
 */
export async function takeLateTicks(db: Db, boss: PgBoss, accounts: readonly string[]): Promise<Tick[]> {
  const jobs = await boss.fetch<Omit<Tick, 'id'>>(TICKS_QUEUE, { batchSize: 20 });
  const mine: Tick[] = [];
  for (const job of jobs) {
    if (accounts.includes(job.data.account)) mine.push({ id: job.id, ...job.data });
    else
      await sql`
        update ${sql.table(`${QUEUE_SCHEMA}.job`)} set state = 'created', started_on = null
         where name = ${TICKS_QUEUE} and id = ${job.id}::uuid and state = 'active'`.execute(db);
  }
  return mine;
}
