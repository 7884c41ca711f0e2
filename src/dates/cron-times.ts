import { createTask } from 'node-cron';

/**
 * The next `count` times a cron expression fires after now, in a time zone, by node-cron's own
 * matcher (the scheduler's): no job is started.
 */
export function nextCronTimes(schedule: string, timeZone: string, count: number): Date[] {
  const task = createTask(schedule, () => {}, { timezone: timeZone });
  try {
    return task.getNextRuns(count);
  } finally {
    void task.destroy();
  }
}
