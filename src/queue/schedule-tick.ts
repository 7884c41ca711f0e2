/**
 * A scheduler in queue mode: at each cron time it only enqueues, once across any number of
 * schedulers. The cron time is claimed first as a job of its own with an id derived from the
 * account, the stream and the time (`send` of an id already there returns null): the scheduler
 * that claims it plans the run and queues its lanes; the others skip that time.
 */
import { createHash } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { StreamName } from '../streams/registry.js';
import { TICKS_QUEUE } from './boss.js';

/** A UUID of a text, the same in every process (SHA-1 based, as a version 5 UUID is). */
export function uuidOf(text: string): string {
  const hex = createHash('sha1').update(text).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Claims an account's stream's cron time (to the second): true for the one scheduler that gets it. A claim
 * is never worked: it is kept two days in the ticks queue (its id stays taken), then dropped by pg-boss.
 */
export async function claimTick(
  boss: PgBoss,
  account: string,
  stream: StreamName,
  at: Date,
): Promise<boolean> {
  const slot = new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString();
  const id = await boss.send(
    TICKS_QUEUE,
    { account, stream, slot },
    { id: uuidOf(`${account}/${stream}@${slot}`) },
  );
  return id !== null;
}
