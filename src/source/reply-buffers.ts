/**
 * Buffers that replies are read into, used again once a reply is decoded. A reply's buffer lives
 * through the lookup of its records' digests and its decoding, long enough for V8 to move it to
 * its old generation, where its memory goes back only with a full collection, while V8 counts
 * that memory towards the next one. Why: docs/source-client.md#transport
 */
export class ReplyBuffers {
  private readonly spare: Buffer[] = [];
  private spareBytes = 0;

  /** `maxBytes`: the most the spare buffers hold together; more is left to the collector. */
  constructor(private readonly maxBytes: number) {}

  /** A buffer of at least `size` bytes: the smallest spare one that is large enough, else a new one. */
  take(size: number): Buffer {
    let best = -1;
    for (let i = 0; i < this.spare.length; i++)
      if (this.spare[i].length >= size && (best < 0 || this.spare[i].length < this.spare[best].length))
        best = i;
    if (best < 0) return Buffer.allocUnsafe(size + (size >> 2));
    const [buffer] = this.spare.splice(best, 1);
    this.spareBytes -= buffer.length;
    return buffer;
  }

  /** Takes back a buffer nothing reads any more, if there is room for it. */
  give(buffer: Buffer): void {
    if (this.spareBytes + buffer.length > this.maxBytes) return;
    this.spare.push(buffer);
    this.spareBytes += buffer.length;
  }
}

/**
 * The process's spare buffers, shared by the clients of every account it runs (each reply's body
 * is only the bytes it received, whichever buffer held another's before), so that what a
 * long-running worker keeps stays within one bound however many accounts it serves.
 */
export const replyBuffers = new ReplyBuffers(32 * 1024 * 1024);
