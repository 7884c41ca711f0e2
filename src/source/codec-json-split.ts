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

/** The end (exclusive) of the string whose opening quote is at `at`, past its escapes; -1 when the text ends first. */
function stringEnd(text: Buffer, at: number): number {
  const close = closingQuote(text, at);
  return close < 0 ? -1 : close + 1;
}

/**
 * Where the string whose opening quote is at `at` closes, or -1 when the text ends first: the next
 * quote not escaped, found by `indexOf` (native, and most of a reply's bytes are in strings).
 */
function closingQuote(text: Buffer, at: number): number {
  let quote = text.indexOf(0x22, at + 1);
  while (quote >= 0) {
    let backslashes = 0;
    while (text[quote - 1 - backslashes] === 0x5c && quote - 1 - backslashes > at) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf(0x22, quote + 1);
  }
  return -1;
}

/**
 * The end (exclusive) of the object or list starting at `at`, or -1 when the text ends first,
 * in one pass over its bytes, strings skipped by their quotes. With `elements`, for a list: the
 * spans of its elements go there, and `false` comes back as `plain` when an element is not an
 * object or the commas between them are not one each. What the elements hold is not checked
 * (JSON.parse does that, of what is parsed).
 */
function containerEnd(text: Buffer, at: number, elements?: Span[]): { end: number; plain: boolean } {
  const length = text.length;
  const close = text[at] === 0x5b ? 0x5d : 0x7d;
  let depth = 0;
  let plain = true;
  // Inside the list: where the element being read starts, and whether an element (not a comma) comes next.
  let elementStart = -1;
  let elementNext = true;
  for (let i = at; i < length; i++) {
    const code = text[i];
    if (code === 0x22) {
      i = closingQuote(text, i);
      if (i < 0) return { end: -1, plain };
      if (depth === 1 && elements) plain = false;
    } else if (code === 0x7b || code === 0x5b) {
      if (depth === 1 && elements) {
        if (code === 0x7b && elementNext) {
          elementStart = i;
          elementNext = false;
        } else plain = false;
      }
      depth++;
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
      if (depth === 0) {
        if (code !== close || (elements && elementNext && elements.length > 0)) plain = false;
        return { end: i + 1, plain };
      }
      if (depth === 1 && elements && elementStart >= 0) {
        elements.push({ start: elementStart, end: i + 1 });
        elementStart = -1;
      }
    } else if (depth === 1 && elements && !isSpace(code)) {
      if (code === 0x2c && !elementNext) elementNext = true;
      else plain = false;
    }
  }
  return { end: -1, plain };
}

/**
 * The end (exclusive) of the value starting at `at` (no space before it), or -1 when the text
 * ends first.
 */
function valueEnd(text: Buffer, at: number): number {
  const first = text[at];
  if (first === 0x22) return stringEnd(text, at);
  if (first === 0x7b || first === 0x5b) return containerEnd(text, at).end;
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
    const keyEnd = stringEnd(text, at);
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
        const list = containerEnd(text, at, elements);
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
  // None held (a full load): one parse of the whole is cheaper than one per record.
  if (keys.every((key) => key === undefined)) return { ...whole(), digests, keys };
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
