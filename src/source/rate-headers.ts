/**
 * The rate-limit headers of a reply: `X-RateLimit-Limit: 15000/day;1000/hour;150/minute`,
 * `X-RateLimit-Remaining: 14999;999;149` (or named like the limit), `X-RateLimit-Reset:
 * 36686;686;26` (seconds until each window resets). Tolerant of other window names (`2s`,
 * `5min`, `second`), of `,` as separator, and of any header missing.
 */

/** One announced window, as of the reply. */
export interface RateWindowState {
  /** The window's name as announced (`day`, `2s`, ...), or its position when unnamed. */
  name: string;
  /** Calls allowed per window, when announced. */
  limit?: number;
  /** The window's length in milliseconds, when its name says it. */
  lengthMs?: number;
  /** Calls left in the window. */
  remaining: number;
  /** Milliseconds until the window resets, when announced. */
  resetMs?: number;
}

/** Seconds of each unit of a window name. */
export const WINDOW_UNITS: Readonly<Record<string, number>> = {
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  d: 86400,
  day: 86400,
  days: 86400,
};

/** Length of a window from its name (`day`, `hour`, `minute`, `2s`, `5min`, `1h`), or undefined. */
export function windowLengthMs(name: string): number | undefined {
  const m = /^(\d*(?:\.\d+)?)\s*([a-z]+)$/i.exec(name.trim());
  if (!m) return undefined;
  const unit = WINDOW_UNITS[m[2].toLowerCase()];
  const count = m[1] === '' ? 1 : Number(m[1]);
  return unit === undefined || !(count > 0) ? undefined : count * unit * 1000;
}

interface Item {
  value: number;
  name?: string;
}

function items(header: string | undefined): Item[] | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const out: Item[] = [];
  for (const part of header.split(/[;,]/)) {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*([^\s;,]+))?\s*$/.exec(part);
    if (!m) return undefined;
    out.push({ value: Number(m[1]), name: m[2] });
  }
  return out;
}

/**
 * The windows announced by a reply's headers, or `[]` when it announced none (or said
 * something unreadable, which is then ignored rather than guessed at). Remaining and reset
 * values are matched to the limit's windows by name when named, else by position.
 */
export function parseRateLimitHeaders(
  limit: string | undefined,
  remaining: string | undefined,
  reset: string | undefined,
): RateWindowState[] {
  const limits = items(limit);
  const lefts = items(remaining);
  const resets = items(reset);
  if (!lefts) return [];
  const pick = (list: Item[] | undefined, index: number, name: string | undefined): Item | undefined => {
    if (!list) return undefined;
    if (name !== undefined) {
      const named = list.find((item) => item.name === name);
      if (named) return named;
    }
    return list.length === lefts.length ? list[index] : undefined;
  };
  return lefts.map((left, index) => {
    const limitItem = limits
      ? ((left.name !== undefined ? limits.find((item) => item.name === left.name) : undefined) ??
        (limits.length === lefts.length ? limits[index] : undefined))
      : undefined;
    const name = left.name ?? limitItem?.name ?? String(index);
    const resetItem = pick(resets, index, name === String(index) ? undefined : name);
    return {
      name,
      limit: limitItem?.value,
      lengthMs: windowLengthMs(name),
      remaining: left.value,
      resetMs: resetItem !== undefined ? resetItem.value * 1000 : undefined,
    };
  });
}

/** The smallest `remaining` among windows (the tightest), or undefined when none was announced. */
export function tightestRemaining(windows: readonly RateWindowState[]): number | undefined {
  let least: number | undefined;
  for (const window of windows) if (least === undefined || window.remaining < least) least = window.remaining;
  return least;
}

/**
 * `Retry-After` in milliseconds: delay-seconds or an HTTP date (measured against `now`);
 * undefined when absent or unreadable.
 */
export function parseRetryAfter(header: string | undefined, now: number): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
