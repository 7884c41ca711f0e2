/**
 * Pacing: when each call of the client may start, so that the source's rate limits are never
 * reached. One pacer per client. Why and how: docs/source-client.md#pacing
 */
import type { Logger } from '../log/logger.js';
import type { RateWindowState } from './rate-headers.js';
import { timerDelay } from './retry.js';

/** Options of a pacer. */
export interface PacerOptions {
  /** Calls kept back in every window (`rateLimit.reserve`). */
  reserve: number;
  /** Smallest gap between two starts (`rateLimit.minIntervalMs`). */
  minIntervalMs: number;
  /** Calls in flight at once (`concurrency`). */
  concurrency: number;
  /** Spread a window's calls once its reset is this close (default `SPREAD_WITHIN_MS`). */
  spreadWithinMs?: number;
  /** Longest wait a `Retry-After` or a reset may impose (default `MAX_SERVER_WAIT_MS`). */
  maxWaitMs?: number;
  /** Where the warning about a cut wait goes. */
  logger?: Pick<Logger, 'warn'>;
  /** A monotonic clock in milliseconds (default `performance.now`). */
  now?: () => number;
}

/** Default bound on a wait the source imposes: 15 minutes. */
export const MAX_SERVER_WAIT_MS = 900_000;

/** Default horizon of spreading: windows resetting within 10 minutes are spread. */
export const SPREAD_WITHIN_MS = 600_000;

/** Wait after an announced reset before the lone call that learns the new counts. */
export const PROBE_MARGIN_MS = 50;
/** Wait after an announced reset when nothing at all is left (the reset header has whole seconds). */
export const RESET_UNCERTAINTY_MS = 1_000;

/** A call that was let through: give it back with `observe` and `release`. */
export interface PacerTicket {
  readonly lane: string;
  /** Start order within the lane, from 1. */
  readonly seq: number;
  /** When it started (pacer clock). */
  readonly startedAt: number;
  /** Milliseconds it waited in the queue. */
  readonly waitedMs: number;
}

interface Snapshot {
  /** `seq` of the call whose reply announced it. */
  seq: number;
  windows: { name: string; remaining: number; resetAt: number; receivedAt: number; warned?: boolean }[];
}

interface Waiter {
  enqueuedAt: number;
  resolve: (ticket: PacerTicket) => void;
  reject: (reason: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Lane {
  name: string;
  queue: Waiter[];
  starts: number;
  inFlight: number;
  lastStart: number;
  pausedUntil: number;
  snapshot?: Snapshot;
}

/** The pacing state of a lane, for logs and tests. */
export interface LaneView {
  inFlight: number;
  queued: number;
  /** Calls left in the tightest window, counting down the calls started since the snapshot. */
  remaining?: number;
  pausedUntil: number;
}

/** Paces the calls of one client (see the module comment). */
export class Pacer {
  private readonly lanes = new Map<string, Lane>();
  private readonly now: () => number;
  private inFlight = 0;
  private lastStart = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(private readonly options: PacerOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  private lane(name: string): Lane {
    let lane = this.lanes.get(name);
    if (!lane) {
      lane = { name, queue: [], starts: 0, inFlight: 0, lastStart: Number.NEGATIVE_INFINITY, pausedUntil: 0 };
      this.lanes.set(name, lane);
    }
    return lane;
  }

  /** Waits until a call of the lane may start; rejects with the signal's reason when aborted. */
  acquire(laneName: string, signal?: AbortSignal): Promise<PacerTicket> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const lane = this.lane(laneName);
    return new Promise<PacerTicket>((resolve, reject) => {
      const waiter: Waiter = { enqueuedAt: this.now(), resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const index = lane.queue.indexOf(waiter);
          if (index >= 0) lane.queue.splice(index, 1);
          reject(signal.reason);
          this.pump();
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      lane.queue.push(waiter);
      this.pump();
    });
  }

  /** Takes in a reply's announced windows (none: nothing changes). */
  observe(ticket: PacerTicket, windows: readonly RateWindowState[], receivedAt: number = this.now()): void {
    const lane = this.lane(ticket.lane);
    const announced = windows.filter((w) => Number.isFinite(w.remaining));
    if (announced.length > 0 && (!lane.snapshot || ticket.seq > lane.snapshot.seq)) {
      const previous = lane.snapshot;
      lane.snapshot = {
        seq: ticket.seq,
        windows: announced.map((w) => {
          // Without a reset, the window's length (or a minute) is the safe guess.
          let resetAt = receivedAt + (w.resetMs ?? w.lengthMs ?? 60_000);
          // The reset comes in whole seconds: within one window, the earliest estimate is the
          // best. A window that has reset shows more calls left, or its old reset has passed.
          const before = previous?.windows.find((p) => p.name === w.name);
          if (before && before.resetAt > receivedAt && w.remaining <= before.remaining)
            resetAt = Math.min(resetAt, before.resetAt);
          return { name: w.name, remaining: w.remaining, resetAt, receivedAt };
        }),
      };
    }
    this.pump();
  }

  /**
   * Holds every call of the lane for `ms` from now, as a 429's `Retry-After` asks, but never
   * longer than `maxWaitMs` (a longer wait is cut, with a warning). Returns the wait applied.
   */
  pause(laneName: string, ms: number): number {
    const lane = this.lane(laneName);
    const wait = Math.min(ms, this.maxWaitMs);
    if (wait < ms) this.warnCut(laneName, 'Retry-After', ms);
    lane.pausedUntil = Math.max(lane.pausedUntil, this.now() + wait);
    this.pump();
    return wait;
  }

  private get maxWaitMs(): number {
    return this.options.maxWaitMs ?? MAX_SERVER_WAIT_MS;
  }

  private warnCut(lane: string, what: string, askedMs: number): void {
    this.options.logger?.warn(
      {
        event: 'source.wait_capped',
        method: lane,
        what,
        askedMs: Math.round(askedMs),
        waitMs: this.maxWaitMs,
      },
      `the source asked ${lane} calls to wait ${Math.round(askedMs / 1000)} s (${what}); ` +
        `waiting ${Math.round(this.maxWaitMs / 1000)} s instead (source.rateLimit.maxWaitMs)`,
    );
  }

  /** Gives back a ticket when its call has ended, however it ended. */
  release(ticket: PacerTicket): void {
    const lane = this.lane(ticket.lane);
    lane.inFlight = Math.max(0, lane.inFlight - 1);
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.pump();
  }

  /** The state of a lane. */
  view(laneName: string): LaneView {
    const lane = this.lane(laneName);
    let remaining: number | undefined;
    if (lane.snapshot) {
      const since = lane.starts - lane.snapshot.seq;
      for (const w of lane.snapshot.windows) remaining = Math.min(remaining ?? Infinity, w.remaining - since);
    }
    return { inFlight: lane.inFlight, queued: lane.queue.length, remaining, pausedUntil: lane.pausedUntil };
  }

  /** Drops the pending timer and rejects every waiting call (the client is closing). */
  close(reason: unknown): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const lane of this.lanes.values()) {
      for (const waiter of lane.queue.splice(0)) {
        if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener('abort', waiter.onAbort);
        waiter.reject(reason);
      }
    }
  }

  /**
   * The earliest time the lane's next call may start, or +Infinity when it must wait for a
   * call in flight to end (the lone call after a reset).
   */
  private earliest(lane: Lane, now: number): number {
    const horizon = this.options.spreadWithinMs ?? SPREAD_WITHIN_MS;
    let at = Math.max(lane.pausedUntil, this.lastStart + this.options.minIntervalMs);
    const snapshot = lane.snapshot;
    if (!snapshot) return at;
    const since = lane.starts - snapshot.seq;
    for (const w of snapshot.windows) {
      const left = w.remaining - since;
      const available = left - this.options.reserve;
      if (available > 0) {
        if (w.resetAt - now > horizon) continue;
        const spacing = Math.max(0, w.resetAt - lane.lastStart) / available;
        at = Math.max(at, lane.lastStart + spacing);
      } else {
        if (lane.inFlight > 0) return Number.POSITIVE_INFINITY;
        let resetAt = w.resetAt;
        if (resetAt - w.receivedAt > this.maxWaitMs) {
          resetAt = w.receivedAt + this.maxWaitMs;
          if (!w.warned) this.warnCut(lane.name, `reset of the ${w.name} window`, w.resetAt - w.receivedAt);
          w.warned = true;
        }
        at = Math.max(at, resetAt + (left > 0 ? PROBE_MARGIN_MS : RESET_UNCERTAINTY_MS));
      }
    }
    return at;
  }

  private start(lane: Lane, now: number): void {
    const waiter = lane.queue.shift()!;
    if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener('abort', waiter.onAbort);
    lane.starts += 1;
    lane.inFlight += 1;
    lane.lastStart = now;
    this.inFlight += 1;
    this.lastStart = now;
    waiter.resolve({
      lane: lane.name,
      seq: lane.starts,
      startedAt: now,
      waitedMs: Math.max(0, now - waiter.enqueuedAt),
    });
  }

  /** Starts every call that may start now, and sets a timer for the next one. */
  private pump(): void {
    const now = this.now();
    let wakeAt = Number.POSITIVE_INFINITY;
    for (;;) {
      let best: Lane | undefined;
      let bestAt = Number.POSITIVE_INFINITY;
      for (const lane of this.lanes.values()) {
        if (lane.queue.length === 0) continue;
        const at = this.earliest(lane, now);
        if (at < bestAt) {
          best = lane;
          bestAt = at;
        }
      }
      if (!best || this.inFlight >= this.options.concurrency) break;
      if (bestAt > now) {
        wakeAt = bestAt;
        break;
      }
      this.start(best, now);
    }
    if (wakeAt === this.timerAt && this.timer) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = wakeAt;
    if (wakeAt < Number.POSITIVE_INFINITY) {
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          this.timerAt = Number.POSITIVE_INFINITY;
          this.pump();
        },
        Math.max(1, timerDelay(wakeAt - now)),
      );
    }
  }
}
