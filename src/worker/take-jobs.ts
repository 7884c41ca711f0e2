/**
 * A worker's loop: takes the next job of any account's queue (in turn), runs it, and goes on until stopped.
 * It asks which queues hold a ready job in one statement and fetches only from those, so an idle look costs
 * one statement however many accounts the worker serves, not one fetch per account.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type PgBoss from 'pg-boss';
import { messageOf } from '../log/errors.js';
import type { Logger } from '../log/logger.js';
import type { LaneJobData } from '../queue/lane-job.js';

/** Wait between two looks at empty queues. */
const IDLE_MS = 1_000;

/**
 * Runs `run` on each job taken from `queues` (starting at `slot`, then in turn) until `stop` is aborted;
 * `ready` names the queues with a job to take. A failed look or fetch is logged and the loop waits as on
 * empty queues.
 */
export async function takeJobs(
  boss: PgBoss,
  queues: readonly string[],
  args: {
    slot: number;
    stop: AbortSignal;
    logger: Logger;
    ready: (queues: readonly string[]) => Promise<Set<string>>;
    run: (job: PgBoss.JobWithMetadata<LaneJobData>) => Promise<void>;
  },
): Promise<void> {
  const failed = (error: unknown) => {
    args.logger.warn(
      { event: 'queue_fetch_failed', err: messageOf(error) },
      `could not take a job: ${messageOf(error)}`,
    );
    return undefined;
  };
  let turn = args.slot;
  while (!args.stop.aborted) {
    let job: PgBoss.JobWithMetadata<LaneJobData> | undefined;
    const ready = new Set((await args.ready(queues).catch(failed)) ?? []);
    for (let i = 0; i < queues.length && !job && ready.size > 0; i++) {
      const queue = queues[(turn + i) % queues.length]!;
      if (!ready.delete(queue)) continue;
      [job] =
        (await boss.fetch<LaneJobData>(queue, { batchSize: 1, includeMetadata: true }).catch(failed)) ?? [];
    }
    turn += 1;
    if (job) await args.run(job);
    else await sleep(IDLE_MS, undefined, { signal: args.stop }).catch(() => {});
  }
}

/** `look` shared by callers that ask while one look is in flight: the worker's slots look once between them. */
export function sharedLook<T, A extends unknown[]>(
  look: (...args: A) => Promise<T>,
): (...args: A) => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return (...args) =>
    (inFlight ??= look(...args).finally(() => {
      inFlight = undefined;
    }));
}
