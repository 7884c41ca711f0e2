/** One rate-limit window: at most `limit` calls per `seconds`. */
export interface RateWindow {
  limit: number;
  seconds: number;
}

/** The realistic limits of the source: 150/minute, 1000/hour, 15000/day. */
export const DEFAULT_RATE_LIMITS: readonly RateWindow[] = [
  { limit: 15000, seconds: 86400 },
  { limit: 1000, seconds: 3600 },
  { limit: 150, seconds: 60 },
];

const UNIT_SECONDS: Record<string, number> = {
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
  hour: 3600,
  hours: 3600,
  d: 86400,
  day: 86400,
  days: 86400,
};

/**
 * Parses a rate-limit spec: `default` (150/minute, 1000/hour, 15000/day), `off` (no limits,
 * no headers), or a list of `COUNT/WINDOW` separated by `,` or `;`, where WINDOW is an
 * optional number and a unit `s|sec|second|m|min|minute|h|hour|d|day` (plurals allowed):
 * `20/2s,500/hour`, `15000/day;1000/hour;150/minute`. Returns the windows, longest first,
 * or null for `off`. Throws on anything else.
 */
export function parseRateLimitSpec(spec: string): RateWindow[] | null {
  const text = spec.trim().toLowerCase();
  if (text === 'off' || text === 'none') return null;
  if (text === '' || text === 'default') return [...DEFAULT_RATE_LIMITS];
  const windows = text.split(/[,;]/).map((part) => {
    const match = /^\s*(\d+)\s*\/\s*(\d*)\s*([a-z]+)\s*$/.exec(part);
    const unit = match ? UNIT_SECONDS[match[3]!] : undefined;
    const count = match ? Number(match[2] || '1') : 0;
    if (!match || unit === undefined || count < 1 || Number(match[1]) < 1) {
      throw new Error(
        `invalid rate limit '${part.trim()}': expected COUNT/WINDOW such as 150/minute or 20/2s`,
      );
    }
    return { limit: Number(match[1]), seconds: count * unit };
  });
  return windows.sort((a, b) => b.seconds - a.seconds);
}

/** The name of a window in the `X-RateLimit-Limit` header: `day`, `hour`, `minute`, `second` or `Ns`. */
export function windowLabel(seconds: number): string {
  if (seconds === 86400) return 'day';
  if (seconds === 3600) return 'hour';
  if (seconds === 60) return 'minute';
  if (seconds === 1) return 'second';
  return `${seconds}s`;
}

/** The outcome of one call for the rate limiter. */
export interface RateDecision {
  allowed: boolean;
  /**
   * `X-RateLimit-Limit` and `-Remaining` in the documented form (`15000/day;1000/hour;150/minute`,
   * `14996/day;999/hour;149/minute`), `-Reset` in seconds per window (`36686;686;26`); empty
   * when limits are off.
   */
  headers: Record<string, string>;
  /** Seconds until the exceeded windows reset, when not allowed. */
  retryAfter?: number;
}

interface WindowState {
  start: number;
  count: number;
}

/**
 * Counts calls per key (method and credential) on each window. A window opens at the first
 * call after the previous one closed and lasts its length, so a burst of `limit + 1` calls
 * inside one window is always throttled (tests can rely on that). Throttled calls do not count.
 */
export class RateLimiter {
  private readonly states = new Map<string, WindowState[]>();

  constructor(
    readonly windows: readonly RateWindow[] | null,
    private readonly now: () => number = Date.now,
  ) {}

  private current(key: string, at: number): WindowState[] {
    let states = this.states.get(key);
    if (!states) {
      states = this.windows!.map(() => ({ start: at, count: 0 }));
      this.states.set(key, states);
    }
    this.windows!.forEach((window, i) => {
      const state = states![i]!;
      if (at >= state.start + window.seconds * 1000) {
        state.start = at;
        state.count = 0;
      }
    });
    return states;
  }

  private headers(states: WindowState[], at: number): Record<string, string> {
    const windows = this.windows!;
    return {
      'X-RateLimit-Limit': windows.map((w) => `${w.limit}/${windowLabel(w.seconds)}`).join(';'),
      'X-RateLimit-Remaining': windows
        .map((w, i) => `${Math.max(0, w.limit - states[i]!.count)}/${windowLabel(w.seconds)}`)
        .join(';'),
      'X-RateLimit-Reset': windows
        .map((w, i) =>
          states[i]!.count === 0
            ? w.seconds
            : Math.max(0, Math.ceil((states[i]!.start + w.seconds * 1000 - at) / 1000)),
        )
        .join(';'),
    };
  }

  /** Counts one call of `key` when every window has room; otherwise refuses it with Retry-After. */
  take(key: string): RateDecision {
    if (!this.windows) return { allowed: true, headers: {} };
    const at = this.now();
    const states = this.current(key, at);
    let retryAfter = 0;
    this.windows.forEach((window, i) => {
      const state = states[i]!;
      if (state.count >= window.limit) {
        retryAfter = Math.max(
          retryAfter,
          Math.max(1, Math.ceil((state.start + window.seconds * 1000 - at) / 1000)),
        );
      }
    });
    if (retryAfter > 0) return { allowed: false, headers: this.headers(states, at), retryAfter };
    for (const state of states) {
      if (state.count === 0) state.start = at;
      state.count += 1;
    }
    return { allowed: true, headers: this.headers(states, at) };
  }

  /** The headers for `key` without counting a call (for replies that are not calls: 401, bad requests). */
  peek(key: string): Record<string, string> {
    if (!this.windows) return {};
    const at = this.now();
    return this.headers(this.current(key, at), at);
  }
}
