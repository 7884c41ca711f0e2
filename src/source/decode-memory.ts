/**
 * Room to decode a reply on the main thread. `JSON.parse` holds some four to five times the
 * text's size at its peak (a 17 MB reply decodes within 96 MB of heap, not within 48), and
 * running out of heap ends the whole process, not the call. So a reply that would need more
 * than half the heap limit is refused instead, as a reply too large for this process: the unit
 * fails, saying to lower `source.pageSize`, and the run goes on. XML is decoded on threads with
 * limits of their own (xml-decoder.ts).
 */
import { getHeapStatistics } from 'node:v8';
import { UndecodableReplyError } from './errors.js';

/** Peak heap of decoding, in multiples of the reply's characters (measured, rounded up). */
export const DECODE_PEAK_FACTOR = 5;

const mb = (bytes: number) => Math.ceil(bytes / 1_048_576);

/** Throws `UndecodableReplyError` when decoding `chars` characters could exhaust the heap limit. */
export function assertRoomToDecode(chars: number, heapLimit = getHeapStatistics().heap_size_limit): void {
  const needed = chars * DECODE_PEAK_FACTOR;
  if (needed <= heapLimit / 2) return;
  throw new UndecodableReplyError(
    `the reply (${chars} characters) needs about ${mb(needed)} MB to decode, ` +
      `more than half of this process's heap limit (${mb(heapLimit)} MB); ` +
      'refused without retrying — lower source.pageSize (or raise the limit with NODE_OPTIONS=--max-old-space-size)',
  );
}
