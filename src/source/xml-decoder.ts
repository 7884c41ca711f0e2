/**
 * XML decoding off the main thread: large replies on a small pool of threads (piscina), each with
 * its own heap limit; small ones in place. Why: docs/source-client.md#xml-off-the-main-thread
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { MessageChannel, type TransferListItem } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { decodeXmlRecognizing, type ContainerPath, type RecognizedJson } from './codec-xml-split.js';
import { decodeXml } from './codec-xml.js';
import { RecognizerFailure, UndecodableReplyError } from './errors.js';
import type { DecodedBody } from './reply.js';
import type { Tree } from './tree.js';
import type { RecordRecognizer } from './types.js';
import type { PassOverAnswer, XmlDecodeTask } from './xml-decode-task.js';
import { messageOf } from '../log/errors.js';

/** Replies shorter than this (in bytes) are decoded on the calling thread. */
export const OFF_THREAD_MIN_BYTES = 64 * 1024;

/**
 * The old-space limit of a decoding thread, in MB. Decoded a slice of records at a time
 * (codec-xml-split.ts), a reply needs one slice's strings and trees in the heap (its bytes and its
 * JSON's are buffers outside it): a 6 MB page decodes within 25 MB of heap. A reply that is not
 * shaped for slicing is decoded whole, which takes some fifteen times its size.
 */
export const THREAD_HEAP_MB = 64;

/** The young generation of a decoding thread, in MB: its garbage is short-lived and small. */
const THREAD_YOUNG_MB = 8;

/** How long a decoding thread may stay idle before it ends. */
const IDLE_MS = 5_000;

/** What to recognize: the records' element in the container, and who knows them. */
export interface Recognize {
  item: string;
  recognizer: RecordRecognizer;
}

/** Decodes XML replies to the plain tree. */
export interface XmlDecoder {
  /**
   * Decodes a reply; `container` is where its records sit below the root (decoded a slice at a
   * time). With `recognize`, the records the recognizer holds are passed over undecoded.
   */
  decode(body: Uint8Array, container: ContainerPath, recognize?: Recognize): Promise<DecodedBody>;
  /** Decoding threads running now. */
  threads(): number;
  /** Stops the threads; decoding afterwards happens on the calling thread. */
  close(): Promise<void>;
}

export interface XmlDecoderOptions {
  /** Threads of the pool (default: one core left for the main thread, at least one, at most four). */
  threads?: number;
  /** Replies from this many bytes on go to a thread (default `OFF_THREAD_MIN_BYTES`). */
  minBytes?: number;
  /** Heap limit of each thread in MB (default `THREAD_HEAP_MB`). */
  heapMb?: number;
  /** The threads' task module (default: `taskModule()`). */
  task?: TaskModule;
}

/** A module for the threads to run, with the node options it needs. */
export interface TaskModule {
  filename: string;
  execArgv?: string[];
}

/**
 * Where the thread's task is: the built module in `source/` (found from this module's folder, or
 * from the bundle's `chunks/` beside it), or, when propsync runs from its TypeScript sources
 * (tests, `npm run dev`), the source module loaded through tsx.
 */
function taskModule(): TaskModule {
  const compiled = new URL('../source/xml-decode-task.js', import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return { filename: compiled.href };
  // tsx as this checkout has it: a bare name would be looked for from the working folder.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return {
    filename: new URL('../source/xml-decode-task.ts', import.meta.url).href,
    execArgv: ['--import', tsx],
  };
}

function defaultThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

/** UTF-8 bytes as text, read in place. */
function utf8Text(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** The tree of a reply's JSON text in UTF-8. */
function parseJson(json: Uint8Array): Tree {
  return JSON.parse(utf8Text(json)) as Tree;
}

/** Whether a thread was ended because its heap was full. */
function outOfMemory(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}

/** A decoder whose pool starts with the first large reply. */
export function createXmlDecoder(options: XmlDecoderOptions = {}): XmlDecoder {
  const minBytes = options.minBytes ?? OFF_THREAD_MIN_BYTES;
  const heapMb = options.heapMb ?? THREAD_HEAP_MB;
  // With the pool, the tasks waiting on it, each failed should one of its threads fail otherwise
  // than by its memory (its task module does not load, say): piscina would keep them queued for
  // a thread that never starts.
  let pool:
    { threads: Piscina<XmlDecodeTask, RecognizedJson>; waiting: Set<(error: Error) => void> } | undefined;
  let closed = false;

  function pooled(): NonNullable<typeof pool> {
    if (!pool) {
      const threadCount = options.threads ?? defaultThreads();
      // V8's --max-semi-space-size and --initial-old-space-size (the command's first line) are
      // the process's and win over a thread's own heap limits: a thread would take the main
      // thread's 16 MB young generation and let its old one fill to the main thread's floor first.
      // Cleared here, they count only for isolates made from now on, which are these threads.
      setFlagsFromString('--max-semi-space-size=0');
      setFlagsFromString('--initial-old-space-size=0');
      const started = new Piscina<XmlDecodeTask, RecognizedJson>({
        ...(options.task ?? taskModule()),
        // Threads start with the replies and end after a few idle seconds: a scheduler waiting for
        // its next run holds none.
        minThreads: 0,
        maxThreads: threadCount,
        idleTimeout: IDLE_MS,
        resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: THREAD_YOUNG_MB },
      });
      const current = { threads: started, waiting: new Set<(error: Error) => void>() };
      started.on('error', (error: unknown) => {
        // A thread ended for its memory rejects its task (reported below); piscina replaces it.
        if (outOfMemory(error)) return;
        const failure = new Error(`the XML decoding thread failed: ${messageOf(error)}`);
        for (const fail of current.waiting) fail(failure);
        if (pool === current) pool = undefined;
        void started.destroy().catch(() => undefined);
      });
      pool = current;
    }
    return pool;
  }

  /** A task of the pool; failed, should the pool fail first. Nothing of it is held once it settles. */
  function run(task: XmlDecodeTask, transferList: TransferListItem[]): Promise<RecognizedJson> {
    const { threads, waiting } = pooled();
    return new Promise<RecognizedJson>((resolve, reject) => {
      waiting.add(reject);
      threads
        .run(task, { transferList })
        .then(resolve, reject)
        .finally(() => waiting.delete(reject));
    });
  }

  /** Decodes on a thread, answering its question about the records over a port of its own. */
  async function onThread(
    bytes: Uint8Array,
    container: ContainerPath,
    lookup: ReplyLookup | undefined,
  ): Promise<RecognizedJson> {
    const transferList: TransferListItem[] = [bytes.buffer as ArrayBuffer];
    if (!lookup) return run({ bytes, container }, transferList);
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (digests: string[]) => {
      lookup.passOver(digests).then(
        (passed) => port1.postMessage({ passed } satisfies PassOverAnswer),
        (error: unknown) =>
          port1.postMessage({
            error: messageOf(error),
          } satisfies PassOverAnswer),
      );
    });
    try {
      return await run(
        { bytes, container, recognize: { item: lookup.item, salt: lookup.salt, port: port2 } },
        [...transferList, port2],
      );
    } finally {
      port1.close();
    }
  }

  return {
    async decode(body, container, recognize) {
      const lookup = recognize && new ReplyLookup(recognize);
      // Read now: bytes moved to a thread leave `body` empty.
      const size = body.byteLength;
      try {
        if (closed || size < minBytes) {
          if (!lookup) return { tree: decodeXml(utf8Text(body)) };
          return lookup.decoded(
            await decodeXmlRecognizing(body, container, {
              item: lookup.item,
              salt: lookup.salt,
              passOver: lookup.passOver,
            }),
          );
        }
        // The bytes move to the thread without a copy when they fill their buffer; else a copy of them does.
        const bytes =
          body.byteOffset === 0 && body.buffer.byteLength === body.byteLength ? body : new Uint8Array(body);
        const json = await onThread(bytes, container, lookup);
        return lookup ? lookup.decoded(json) : { tree: parseJson(json.json) };
      } catch (error) {
        if (lookup?.failure) throw new RecognizerFailure(lookup.failure.error);
        if (outOfMemory(error)) {
          throw new UndecodableReplyError(
            `the reply (${size} bytes of XML) does not fit in the ${heapMb} MB a decoding ` +
              `thread may use; refused without retrying — lower source.pageSize`,
          );
        }
        throw error;
      }
    },
    threads: () => pool?.threads.threads.length ?? 0,
    async close() {
      closed = true;
      const running = pool;
      pool = undefined;
      await running?.threads.destroy();
    },
  };
}

/**
 * One reply's question to the recognizer: which records (`item` elements, digested with `salt`)
 * it holds, the keys of those by digest, and its own failure, should it fail (no fault of the reply).
 */
class ReplyLookup {
  readonly item: string;
  readonly salt: string;
  private readonly recognizer: RecordRecognizer;
  private readonly known = new Map<string, string>();
  failure?: { error: unknown };

  constructor({ item, recognizer }: Recognize) {
    this.item = item;
    this.salt = recognizer.salt;
    this.recognizer = recognizer;
  }

  /** Which records to pass over: those whose digests the recognizer holds. */
  readonly passOver = async (digests: string[]): Promise<boolean[]> => {
    let held: ReadonlyMap<string, string>;
    try {
      held = await this.recognizer.lookup([...new Set(digests)]);
    } catch (error) {
      this.failure = { error };
      throw error;
    }
    for (const [digest, key] of held) this.known.set(digest, key);
    return digests.map((digest) => held.has(digest));
  };

  /** The tree of the decoded reply, with the key of each record passed over. */
  decoded(result: RecognizedJson): DecodedBody {
    const tree = parseJson(result.json);
    const { digests } = result;
    return digests ? { tree, digests, keys: digests.map((digest) => this.known.get(digest)) } : { tree };
  }
}
