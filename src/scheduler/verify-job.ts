import { createTask, type ScheduledTask } from 'node-cron';
import type { Propsync } from '../app/propsync.js';
import type { StreamName } from '../config/schema.js';
import { verifyLocked } from '../app/run-verify.js';
import { cronLogger } from './scheduler.js';
import { messageOf } from '../log/errors.js';

/** The scheduled verifications of a `propsync schedule` process. */
export interface VerifyJobs {
  /** Stops starting verifications, aborts those in flight (after the scope in flight) and waits for them. */
  stop(): Promise<void>;
}

/**
 * Starts one node-cron job per account at `verify.cron` (in the account's time zone) that
 * verifies a sample of `verify.sample` percent of its properties, least recently verified first,
 * so that every property is verified within ceil(100 / sample) runs. A verification reads and
 * records only; the metric `propsync_verify_drift_rows` and `propsync status` show its result.
 * Nothing is started without `verify.cron`.
 */
export function startVerifyJobs(propsync: Propsync, streams: StreamName[]): VerifyJobs {
  const { config, logger } = propsync;
  const cron = config.verify.cron;
  const shutdown = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  const tasks: ScheduledTask[] = [];
  if (!cron) return { stop: async () => {} };
  for (const runtime of propsync.accounts) {
    const { account, client } = runtime;
    const log = logger.child({ account: account.id, job: 'verify' });
    const verify = async () => {
      if (shutdown.signal.aborted) return;
      try {
        await verifyLocked(
          { streams, selection: { kind: 'sample', percent: config.verify.sample }, pass: 'check' },
          { db: propsync.db, client, config, account, logger: log, signal: shutdown.signal },
        );
      } catch (error) {
        log.error(
          { event: 'verify_failed', err: messageOf(error) },
          `scheduled verification of account ${account.id} failed: ${messageOf(error)}; the next one tries again`,
        );
      }
    };
    const task = createTask(
      cron,
      () => {
        const job = verify();
        inFlight.add(job);
        return job.finally(() => inFlight.delete(job));
      },
      {
        name: `propsync-verify-${account.id}`,
        timezone: account.timeZone,
        noOverlap: true,
        logger: cronLogger(log.child({ component: 'node-cron' })),
      },
    );
    tasks.push(task);
    void task.start();
    log.info(
      { event: 'job_scheduled', schedule: cron, sample: config.verify.sample },
      `scheduled verification of ${config.verify.sample}% of account ${account.id}'s properties ` +
        `at "${cron}" (${account.timeZone})`,
    );
  }
  return {
    async stop() {
      for (const task of tasks) await task.destroy();
      shutdown.abort(new Error('the scheduler is stopping'));
      await Promise.allSettled([...inFlight]);
    },
  };
}
