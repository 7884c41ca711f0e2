/**
 * JSON reply → the plain tree, its records recognized by their text before any is parsed: the
 * records' array is found by a scan of the reply's bytes that reads only the JSON's structure,
 * each record's bytes are digested, and only the records the caller does not hold are decoded
 * to text, parsed and normalized. Anything unsure goes whole through `decodeJson`. Why:
 * docs/source-client.md#json-records-recognized-by-their-text
 */
import { createHash } from 'node:crypto';
import { decodeJson, normalizeJson } from './codec-json.js';
import { RecognizerFailure } from './errors.js';
import type { DecodedBody } from './reply.js';
import { isTreeObject, type Tree, type TreeObject } from './tree.js';
import type { RecordRecognizer } from './types.js';

/** Where one value sits in the text: its first character and the one after its last. */
interface Span {
  start: number;
  end: number;
}

const isSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

function skipSpace(text: Buffer, at: number): number {
  while (at < text.length && isSpace(text[at])) at++;
  return at;
}

/**
 * The end (exclusive) of the string whose opening quote is at `at`, or -1 when the text ends
 * first: one tight loop over its bytes, a backslash passing over the byte after it. (Most strings
 * of a reply are short: a native `indexOf` a string cost more than the loop.)
 */
function skipString(text: Buffer, at: number): number {
  const length = text.length;
  for (let i = at + 1; i < length; i++) {
    const code = text[i];
    if (code === 0x22) return i + 1;
    if (code === 0x5c) i++;
  }
  return -1;
}

/**
 * The end (exclusive) of the object or list starting at `at`, or -1 when the text ends first,
 * in one pass over its bytes, strings passed over. Brackets are counted, not matched (JSON.parse
 * checks what is parsed).
 */
function skipContainer(text: Buffer, at: number): number {
  const length = text.length;
  let depth = 0;
  for (let i = at; i < length; i++) {
    const code = text[i];
    if (code === 0x22) {
      // The string's bytes, inline: this loop reads most of a reply.
      for (i++; i < length; i++) {
        const inner = text[i];
        if (inner === 0x22) break;
        if (inner === 0x5c) i++;
      }
      if (i >= length) return -1;
    } else if (code === 0x7b || code === 0x5b) depth++;
    else if ((code === 0x7d || code === 0x5d) && --depth === 0) return i + 1;
  }
  return -1;
}

/**
 * The end (exclusive) of the list starting at `at`, or -1 when the text ends first, and the
 * spans of its elements (into `elements`); `plain` is false when an element is not an object or
 * the commas between them are not one each. What the elements hold is not checked (JSON.parse
 * does that, of what is parsed).
 */
function listEnd(text: Buffer, at: number, elements: Span[]): { end: number; plain: boolean } {
  const length = text.length;
  let plain = true;
  // Whether an element (not a comma) comes next.
  let elementNext = true;
  let i = at + 1;
  for (;;) {
    i = skipSpace(text, i);
    if (i >= length) return { end: -1, plain };
    const code = text[i];
    if (code === 0x5d) {
      if (elementNext && elements.length > 0) plain = false;
      return { end: i + 1, plain };
    }
    if (code === 0x2c && !elementNext) {
      elementNext = true;
      i++;
      continue;
    }
    const end =
      code === 0x7b || code === 0x5b ? skipContainer(text, i) : code === 0x22 ? skipString(text, i) : i + 1;
    if (end < 0) return { end: -1, plain };
    if (code === 0x7b && elementNext) {
      elements.push({ start: i, end });
      elementNext = false;
    } else plain = false;
    i = end;
  }
}

/**
 * The end (exclusive) of the value starting at `at` (no space before it), or -1 when the text
 * ends first.
 */
function valueEnd(text: Buffer, at: number): number {
  const first = text[at];
  if (first === 0x22) return skipString(text, at);
  if (first === 0x7b || first === 0x5b) return skipContainer(text, at);
  // A number, true, false or null: up to the next delimiter.
  let i = at;
  while (i < text.length) {
    const code = text[i];
    if (code === 0x2c || code === 0x7d || code === 0x5d || isSpace(code)) break;
    i++;
  }
  return i > at ? i : -1;
}

/**
 * The span of the list at `path` (keys of nested objects from the root) and the spans of its
 * elements, or undefined when the document is not plainly shaped so: not an object along the
 * path, a key of the path twice in one object (JSON.parse would keep the last; this scan does
 * not guess), or not a list of objects at its end.
 */
function findRecords(text: Buffer, path: readonly string[]): { list: Span; elements: Span[] } | undefined {
  const at = skipSpace(text, 0);
  const found = findIn(text, at, path, 0);
  return found && found.records && skipSpace(text, found.end) === text.length ? found.records : undefined;
}

/**
 * Reads the object at `at` for the key `path[level]`, each byte once: the value of the key is
 * read on (deeper in the path, or as the records' list at its end) rather than skipped and read
 * again. Gives where the object ends and what was found, or undefined when it is not plainly shaped.
 */
function findIn(
  text: Buffer,
  at: number,
  path: readonly string[],
  level: number,
): { end: number; records?: { list: Span; elements: Span[] } } | undefined {
  if (text[at] !== 0x7b) return undefined;
  let records: { list: Span; elements: Span[] } | undefined;
  let seen = false;
  at = skipSpace(text, at + 1);
  if (text[at] === 0x7d) return { end: at + 1 };
  for (;;) {
    if (text[at] !== 0x22) return undefined;
    const keyEnd = skipString(text, at);
    if (keyEnd < 0) return undefined;
    const key = JSON.parse(text.toString('utf8', at, keyEnd)) as string;
    at = skipSpace(text, keyEnd);
    if (text[at] !== 0x3a) return undefined;
    at = skipSpace(text, at + 1);
    let end: number;
    if (key === path[level]) {
      if (seen) return undefined;
      seen = true;
      if (level === path.length - 1) {
        // The records' list: its elements' spans are taken in the same pass.
        if (text[at] !== 0x5b) return undefined;
        const elements: Span[] = [];
        const list = listEnd(text, at, elements);
        if (!list.plain || list.end < 0) return undefined;
        records = { list: { start: at, end: list.end }, elements };
        end = list.end;
      } else {
        const inner = findIn(text, at, path, level + 1);
        if (!inner) return undefined;
        records = inner.records;
        end = inner.end;
      }
    } else end = valueEnd(text, at);
    if (end < 0) return undefined;
    at = skipSpace(text, end);
    const next = text[at];
    if (next === 0x2c) at = skipSpace(text, at + 1);
    else if (next === 0x7d) return { end: at + 1, records };
    else return undefined;
  }
}

/** A marker no reply holds, standing for the records' array while the rest is decoded; and its JSON text. */
const MARK = '\u0000propsync:records\u0000';
const MARK_JSON = JSON.stringify(MARK);

/** The digest of one record's bytes: the same bytes, under the same salt, always decode and load the same. */
function textDigest(salt: string, text: Buffer, span: Span): string {
  return createHash('sha1')
    .update(salt)
    .update('\n')
    .update(text.subarray(span.start, span.end))
    .digest('base64');
}

/**
 * Decodes a JSON reply (its UTF-8 bytes) into the plain tree, the records at `records` (below `response.result`)
 * recognized first: their texts' digests (salted with the recognizer's salt) go to the
 * recognizer, and the records it holds are not parsed (each stands as `{}`, its key in `keys`).
 * A reply not plainly shaped (records not an array of objects, say) is decoded whole, and
 * nothing is asked. The tree is the one `decodeJson` gives, but for the records passed over.
 * Throws what `decodeJson` throws on text that is not JSON, and `RecognizerFailure` when the
 * recognizer fails.
 */
export async function decodeJsonRecognizing(
  text: Buffer,
  records: readonly [string, string],
  recognizer: RecordRecognizer,
): Promise<DecodedBody> {
  const path = ['response', 'result', ...records];
  const whole = () => ({ tree: decodeJson(text.toString('utf8')) });
  const found = findRecords(text, path);
  if (!found || found.elements.length === 0) return whole();
  const { list: array, elements } = found;
  const digests = elements.map((span) => textDigest(recognizer.salt, text, span));
  let held: ReadonlyMap<string, string>;
  try {
    held = await recognizer.lookup([...new Set(digests)]);
  } catch (error) {
    throw new RecognizerFailure(error);
  }
  const keys = digests.map((digest) => held.get(digest));
  // Each record parsed from its own text even when none is held (a full load): one non-ASCII
  // character makes the whole reply's text two-byte, and parsing that was slower than a parse per record.
  const tree = decodeJson(
    text.toString('utf8', 0, array.start) + MARK_JSON + text.toString('utf8', array.end),
  );
  let holder: Tree | undefined = tree;
  for (const step of path.slice(0, -1)) holder = isTreeObject(holder) ? holder[step] : undefined;
  const item = path[path.length - 1];
  // The rest of the document decoded as the scan read it, or else the whole of it.
  if (!isTreeObject(holder) || holder[item] !== MARK) return whole();
  const list: Tree[] = elements.map((span, index) =>
    keys[index] !== undefined
      ? ({} as TreeObject)
      : (normalizeJson(JSON.parse(text.toString('utf8', span.start, span.end))) ?? ''),
  );
  // As decodeJson folds an array: one element stands for itself.
  holder[item] = list.length === 1 ? list[0] : list;
  return { tree, digests, keys };
}
