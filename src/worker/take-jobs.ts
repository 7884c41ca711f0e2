/** A worker's loop: takes the next job of any account's queue (in turn), runs it, and goes on until stopped. */
import { setTimeout as sleep } from 'node:timers/promises';
import type PgBoss from 'pg-boss';
import { messageOf } from '../log/errors.js';
import type { Logger } from '../log/logger.js';
import type { LaneJobData } from '../queue/lane-job.js';

/** Wait between two looks at empty queues. */
const IDLE_MS = 1_000;

/**
 * Runs `run` on each job taken from `queues` (starting at `slot`, then in turn) until `stop` is aborted; a failed
 * fetch is logged and the loop waits as on empty queues.
 */
export async function takeJobs(
  boss: PgBoss,
  queues: readonly string[],
  args: {
    slot: number;
    stop: AbortSignal;
    logger: Logger;
    run: (job: PgBoss.JobWithMetadata<LaneJobData>) => Promise<void>;
  },
): Promise<void> {
  let turn = args.slot;
  while (!args.stop.aborted) {
    let job: PgBoss.JobWithMetadata<LaneJobData> | undefined;
    for (let i = 0; i < queues.length && !job; i++) {
      const queue = queues[(turn + i) % queues.length]!;
      [job] = await boss
        .fetch<LaneJobData>(queue, { batchSize: 1, includeMetadata: true })
        .catch((error: unknown) => {
          args.logger.warn(
            { event: 'queue_fetch_failed', err: messageOf(error) },
            `could not take a job: ${messageOf(error)}`,
          );
          return [];
        });
    }
    turn += 1;
    if (job) await args.run(job);
    else await sleep(IDLE_MS, undefined, { signal: args.stop }).catch(() => {});
  }
}
