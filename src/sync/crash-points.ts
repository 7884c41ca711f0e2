/**
 * Crash points for the crash-safety tests: `PROPSYNC_CRASH_AT=<point>:<n>` kills the process
 * with SIGKILL the n-th time it reaches `point`, the way a power cut or an OOM kill would.
 * Without the variable (every real run) this is one string comparison per page.
 */
export const CRASH_POINTS = [
  /** Inside a page's transaction, rows written, checkpoint not yet: the commit never happens. */
  'mid-commit',
  /** Right after a page's transaction committed, before the next page is asked for. */
  'after-commit',
  /** After a work unit was recorded, before its first call. */
  'unit-started',
  /** Mid-page: a page fetched and decoded, not yet loaded. */
  'page-fetched',
  /** A scheduler in queue mode claimed a cron time, and has not enqueued its run yet. */
  'tick-claimed',
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

const spec = process.env.PROPSYNC_CRASH_AT?.match(/^([a-z-]+):(\d+)$/);
const target = spec ? { point: spec[1], count: Number(spec[2]) } : undefined;
let reached = 0;

/** Kills the process here if the crash-test variable names this point and its turn has come. */
export function crashPoint(point: CrashPoint): void {
  if (!target || target.point !== point) return;
  reached += 1;
  if (reached === target.count) process.kill(process.pid, 'SIGKILL');
}
