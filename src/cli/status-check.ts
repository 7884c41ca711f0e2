/**
 * `propsync status --check`: one line per stream that is late or stale, each saying what to
 * do, and an exit code a cron job, a monitoring script or a container probe acts on.
 */
import { EXIT, type ExitCode } from '../app/exit-codes.js';
import { formatSpan } from '../dates/duration.js';
import { worstFreshness, type StreamFreshness } from '../sync/freshness.js';

/** The exit code of a check: 0 fresh, 5 when the worst stream is `warn`, 6 when it is `error`. */
export function checkExitCode(judged: readonly StreamFreshness[]): ExitCode {
  const worst = worstFreshness(judged.map((freshness) => freshness.state));
  return worst === 'error' ? EXIT.freshnessError : worst === 'warn' ? EXIT.freshnessWarn : EXIT.ok;
}

/** What to do about one stream that is not fresh. */
function advice(freshness: StreamFreshness, named: boolean): string {
  const only = `${named ? ` --account ${freshness.account}` : ''} --stream ${freshness.stream}`;
  if (!freshness.lastSuccessAt) return `run propsync sync${only} and read its errors`;
  if (/its last run ended/.test(freshness.reason))
    return (
      `read the last run's errors in propsync ` +
      `status${named ? ` --account ${freshness.account}` : ''}, fix the cause, ` +
      `then propsync sync${only}`
    );
  return `check that propsync schedule is running (or its cron job), or run propsync sync${only}`;
}

/** The lines of a check: one per stream not fresh, worst first; one `ok` line when every stream is fresh. */
export function checkLines(judged: readonly StreamFreshness[], named: boolean): string[] {
  const problems = judged
    .filter((freshness) => freshness.state !== 'ok')
    .sort((a, b) => (a.state === b.state ? 0 : a.state === 'error' ? -1 : 1));
  if (problems.length === 0) {
    const tightest = Math.min(...judged.map((freshness) => freshness.warnAfterMs));
    return [
      judged.length
        ? `ok: ${judged.length} streams fresh (the tightest warns after ${formatSpan(tightest)})`
        : 'ok: no stream to check (none enabled or named)',
    ];
  }
  return problems.map(
    (freshness) =>
      `${freshness.state.toUpperCase()} ${freshness.account}/${freshness.stream}: ` +
      `${freshness.reason}; ${advice(freshness, named)}`,
  );
}
