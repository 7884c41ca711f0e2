/** How the console writes numbers, durations and times: compact, the same on every page. */

/** `1,234,567`. */
export function count(value: number | string | null | undefined): string {
  if (value === null || value === undefined) return '–';
  return Number(value).toLocaleString('en-US');
}

/** `850 ms`, `12.4 s`, `3 m 05 s`, `2 h 10 m`. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1_000);
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} m ${String(seconds % 60).padStart(2, '0')} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 2 * 1_440) return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} m`;
  return `${Math.round(minutes / 1_440)} d`;
}

/** How long ago `at` was, from `now`: `40 s ago`, `3 h ago`, `in 5 m` for a time to come. */
export function age(at: Date | string | null | undefined, now: Date = new Date()): string {
  if (!at) return '–';
  const ms = now.getTime() - new Date(at).getTime();
  return ms >= 0
    ? `${duration(ms).replace(/\.\d s$/, ' s')} ago`
    : `in ${duration(-ms).replace(/\.\d s$/, ' s')}`;
}

/** `2026-06-15 14:03 UTC`. */
export function timestamp(at: Date | string | null | undefined): string {
  if (!at) return '–';
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The first line of a message, cut to `max` characters. */
export function firstLine(text: string | null | undefined, max = 200): string {
  if (!text) return '';
  const line = text.split('\n')[0];
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
