/**
 * Replies kept for one later reader of the same request and page (`PagesOptions.keep` and
 * `reuse`): a run's discovery listing (getProperties) is also what its properties stream reads
 * whole, a moment later, and need not be called for twice. Each is taken once, and forgotten
 * after `KEPT_FOR_MS`: a long-running process's next run calls again.
 */
import type { HttpReply } from './transport.js';

/** A reply as a call got it. */
export interface SentReply {
  status: number;
  headers: HttpReply['headers'];
  body: Buffer;
  requestId: string;
  /** See HttpReply.release. */
  release?: () => void;
}

/** A kept reply, with the `Date` it came with. */
export interface KeptReply extends SentReply {
  serverDate?: Date;
}

/** How long a reply is kept for its reader: well within one run's planning and first lanes. */
export const KEPT_FOR_MS = 10 * 60_000;

export class KeptReplies {
  readonly #replies = new Map<string, { reply: KeptReply; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Keeps `reply` under `key` (in place of an earlier one), forgetting those kept too long. */
  put(key: string, reply: KeptReply): void {
    this.#expire();
    this.#replies.set(key, { reply, at: this.now() });
  }

  /** The reply kept under `key`, once; undefined when none is, or it was kept too long ago. */
  take(key: string): KeptReply | undefined {
    this.#expire();
    const found = this.#replies.get(key);
    this.#replies.delete(key);
    return found?.reply;
  }

  #expire(): void {
    const oldest = this.now() - KEPT_FOR_MS;
    for (const [key, { at }] of this.#replies) if (at < oldest) this.#replies.delete(key);
  }
}
