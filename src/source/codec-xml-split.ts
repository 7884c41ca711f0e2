/**
 * XML reply (its bytes) → the plain tree as JSON text, one slice of records at a time; anything
 * unsure goes whole through `decodeXml`. Why: docs/source-client.md#xml-a-slice-of-records-at-a-time
 */
import { createHash } from 'node:crypto';
import { decodeXml, dropLayoutText, LAYOUT, xmlParser } from './codec-xml.js';
import { isTreeObject, type Tree, type TreeObject } from './tree.js';
import { plainElement } from './xml-plain.js';

/** Bytes of child elements decoded together. */
const SLICE_BYTES = 64 * 1024;

/**
 * A reply is read as its UTF-8 bytes, never as one string: markup is ASCII, so every delimiter
 * is one byte that no other character's bytes contain, and only the records' slices become text.
 */
type Bytes = Buffer;

/** Whether the bytes at `at` are the ASCII text `ascii`. */
function startsWithAscii(xml: Bytes, ascii: string, at: number): boolean {
  if (at + ascii.length > xml.length) return false;
  for (let i = 0; i < ascii.length; i++) if (xml[at + i] !== ascii.charCodeAt(i)) return false;
  return true;
}

/** Where the records' container sits: the element names below the root (`['result', 'leases']`). */
export type ContainerPath = readonly string[];

/** Where a child element of the container starts and ends (byte offsets, end exclusive), and its name. */
interface Span {
  start: number;
  end: number;
  name: string;
}

/** The container found: where its content starts and ends, and its children's spans. */
interface Found {
  contentStart: number;
  contentEnd: number;
  children: Span[];
}

const isSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

/**
 * The end (exclusive) of a comment, CDATA section or processing instruction starting at `at`;
 * -1 when the text ends first or when it is a DOCTYPE (which may declare entities a slice would
 * not know).
 */
function specialEnd(xml: Bytes, at: number): number {
  if (startsWithAscii(xml, '<!--', at)) return endAfter(xml, '-->', at + 4);
  if (startsWithAscii(xml, '<![CDATA[', at)) return endAfter(xml, ']]>', at + 9);
  if (startsWithAscii(xml, '<?', at)) return endAfter(xml, '?>', at + 2);
  return -1;
}

function endAfter(xml: Bytes, terminator: string, from: number): number {
  const at = xml.indexOf(terminator, from, 'latin1');
  return at < 0 ? -1 : at + terminator.length;
}

/** Where the element name starting at `start` ends: at a space, `/` or `>` (or the reply's end). */
function nameEnd(xml: Bytes, start: number): number {
  let i = start;
  for (; i < xml.length; i++) {
    const code = xml[i];
    if (isSpace(code) || code === 0x2f || code === 0x3e) break;
  }
  return i;
}

/**
 * The end (exclusive) of the tag whose name ends at `from`, skipping quoted attribute values;
 * -1 when the text ends first. A tag without attributes ends right there.
 */
function tagEnd(xml: Bytes, from: number): number {
  if (xml[from] === 0x3e) return from + 1;
  let quote = 0;
  for (let i = from; i < xml.length; i++) {
    const code = xml[i];
    if (quote !== 0) {
      if (code === quote) quote = 0;
    } else if (code === 0x22 || code === 0x27) quote = code;
    else if (code === 0x3e) return i + 1;
  }
  return -1;
}

/** Whether the name at `at` is exactly `name` (a name of the path, in ASCII). */
function nameIs(xml: Bytes, at: number, length: number, name: string): boolean {
  return length === name.length && startsWithAscii(xml, name, at);
}

/** Whether the `length` bytes at `a` and at `b` are the same. */
function sameBytes(xml: Bytes, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (xml[a + i] !== xml[b + i]) return false;
  return true;
}

/**
 * The end (exclusive) of the container's child whose name is the bytes [`nameStart`, `nameStop`)
 * and whose start tag ends at `from`: its first closing tag `</name>`, found by looking only at the
 * byte after each '<' (not reading every tag's name and end, nor keeping them), or -1 for the
 * tag-by-tag walk to read it: no such closing tag, or something before it that could make it not
 * the child's own (an element of the same name, a comment, CDATA, a processing instruction). What
 * the child holds is checked when it is decoded; a child passed over undecoded has the very bytes
 * of one decoded before.
 */
function childEnd(xml: Bytes, nameStart: number, nameStop: number, from: number): number {
  const name = xml.subarray(nameStart, nameStop);
  const first = name[0];
  // Each markup, found by its '<', up to the first `</name>`: none may be special or open an element of the name.
  for (let at = xml.indexOf(0x3c, from); at >= 0; at = xml.indexOf(0x3c, at + 1)) {
    const next = xml[at + 1];
    if (next === 0x2f /* / */) {
      if (xml[at + 2] === first && sameName(xml, at + 2, name) && xml[at + 2 + name.length] === 0x3e)
        return at + 3 + name.length;
    } else if (next === 0x21 /* ! */ || next === 0x3f /* ? */) return -1;
    else if (next === first && sameName(xml, at + 1, name)) return -1;
  }
  return -1;
}

/** Whether the element name at `at` is `name` (followed by a space, `/` or `>`). */
function sameName(xml: Bytes, at: number, name: Bytes): boolean {
  for (let i = 1; i < name.length; i++) if (xml[at + i] !== name[i]) return false;
  const after = xml[at + name.length];
  return after === undefined || isSpace(after) || after === 0x2f || after === 0x3e;
}

/**
 * Finds the container at `path` below the root and the spans of its child elements, or
 * undefined when the document is not plainly shaped that way (see the module's note). Every tag
 * is read, so the names of open elements are kept as places in the reply (start and length)
 * rather than as strings: only the container's children's names are made into strings.
 */
function findContainer(xml: Bytes, path: ContainerPath): Found | undefined {
  const starts: number[] = [];
  const lengths: number[] = [];
  const depth = path.length;
  let container: Found | undefined;
  let childStart = -1;
  let childName = '';
  let pos = xml.indexOf(0x3c);
  while (pos >= 0) {
    const inContainer = container !== undefined && starts.length === depth + 1;
    const second = xml[pos + 1];
    let end: number;
    if (second === 0x21 /* ! */ || second === 0x3f /* ? */) {
      end = specialEnd(xml, pos);
      if (end < 0) return undefined;
      // Comments and PIs may sit between records; CDATA there is text of the container.
      if (inContainer && startsWithAscii(xml, '<![CDATA[', pos)) return undefined;
    } else if (second === 0x2f /* / */) {
      const stop = nameEnd(xml, pos + 2);
      end = tagEnd(xml, stop);
      const length = stop - pos - 2;
      const top = starts.length - 1;
      if (end < 0 || top < 0 || lengths[top] !== length || !sameBytes(xml, starts[top], pos + 2, length))
        return undefined;
      starts.pop();
      lengths.pop();
      if (container && starts.length === depth + 1 && childStart >= 0) {
        container.children.push({ start: childStart, end, name: childName });
        childStart = -1;
      } else if (container && starts.length === depth) {
        container.contentEnd = pos;
        return container;
      }
    } else {
      const stop = nameEnd(xml, pos + 1);
      end = tagEnd(xml, stop);
      if (end < 0) return undefined;
      const length = stop - pos - 1;
      // A child of the container read to its closing tag at once is, like a self-closing tag, left open nowhere.
      let closed = xml[end - 2] === 0x2f;
      if (inContainer) {
        const name = xml.toString('utf8', pos + 1, stop);
        const whole = closed ? -1 : childEnd(xml, pos + 1, stop, end);
        if (whole >= 0) {
          end = whole;
          closed = true;
        }
        if (closed) container!.children.push({ start: pos, end, name });
        else {
          childStart = pos;
          childName = name;
        }
      } else if (
        !container &&
        starts.length === depth &&
        nameIs(xml, pos + 1, length, path[depth - 1]) &&
        path.every((step, i) => i === depth - 1 || nameIs(xml, starts[i + 1], lengths[i + 1], step))
      ) {
        // The container itself: no attributes, and not empty-by-self-closing.
        if (closed || end - pos !== length + 2) return undefined;
        container = { contentStart: end, contentEnd: -1, children: [] };
      }
      if (!closed) {
        starts.push(pos + 1);
        lengths.push(length);
      }
    }
    // Text between this markup and the next: inside the container it must be layout only.
    const next = xml.indexOf(0x3c, end);
    if (container && starts.length === depth + 1 && childStart < 0) {
      const stop = next < 0 ? xml.length : next;
      for (let i = end; i < stop; i++) if (!isSpace(xml[i])) return undefined;
    }
    pos = next;
  }
  return undefined;
}

/** The JSON text standing for a record passed over (see `decodeXmlRecognizing`). */
export const PASSED_OVER_JSON = '{}';

const utf8 = new TextEncoder();

const NON_ASCII = /[\u0080-\uffff]/;
const NON_ASCII_ALL = /[\u0080-\uffff]/g;

/**
 * JSON text with every character beyond ASCII written as its `\uXXXX` escape (they stand only
 * inside strings): the thread that parses it then reads one-byte text. One character beyond
 * Latin-1 anywhere in a page's text would make the whole of it two-byte, which JSON.parse reads
 * at about half the speed.
 */
export function asciiJson(json: string): string {
  return NON_ASCII.test(json)
    ? json.replace(NON_ASCII_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : json;
}

/**
 * JSON text written piece by piece as ASCII (`asciiJson`) into one buffer, grown when full: the
 * page's JSON is never held as strings besides, nor joined from them.
 */
class Utf8Writer {
  private buffer: Uint8Array;
  private length = 0;

  constructor(capacity: number) {
    this.buffer = new Uint8Array(Math.max(1024, capacity));
  }

  write(text: string): void {
    let rest = asciiJson(text);
    for (;;) {
      const { read, written } = utf8.encodeInto(rest, this.buffer.subarray(this.length));
      this.length += written;
      if (read === rest.length) return;
      rest = rest.slice(read);
      const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + rest.length * 3));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
  }

  /** The bytes written (a view of the buffer, which may be longer). */
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

/**
 * Writes the container's child elements as the members of its JSON object, `"name":value` or
 * `"name":[values]` per name in the order the names first come (as the whole parse has them),
 * decoded a slice of adjacent same-named children at a time; a child in `passOver` is not
 * decoded, and stands as `PASSED_OVER_JSON`.
 */
function writeChildren(
  out: Utf8Writer,
  xml: Bytes,
  children: readonly Span[],
  passOver: ReadonlySet<number>,
): void {
  const byName = new Map<string, number[]>();
  children.forEach((child, index) => {
    let indexes = byName.get(child.name);
    if (!indexes) byName.set(child.name, (indexes = []));
    indexes.push(index);
  });
  let members = 0;
  for (const [name, indexes] of byName) {
    out.write(`${members++ === 0 ? '' : ','}${JSON.stringify(name)}:${indexes.length === 1 ? '' : '['}`);
    let values = 0;
    const put = (json: string) => {
      if (values++ > 0) out.write(',');
      out.write(json);
    };
    for (let i = 0; i < indexes.length;) {
      const first = indexes[i];
      if (passOver.has(first)) {
        put(PASSED_OVER_JSON);
        i++;
        continue;
      }
      // A plain record is read without the parser (see xml-plain.ts); others go to it, a slice at a time.
      const record = xml.toString('utf8', children[first].start, children[first].end);
      const plain = plainElement(record, 0, record.length);
      if (plain !== undefined) {
        put(JSON.stringify(plain));
        i++;
        continue;
      }
      let last = i;
      while (
        last + 1 < indexes.length &&
        indexes[last + 1] === indexes[last] + 1 &&
        !passOver.has(indexes[last + 1]) &&
        children[indexes[last + 1]].end - children[first].start <= SLICE_BYTES
      )
        last++;
      const slice = xml.toString('utf8', children[first].start, children[indexes[last]].end);
      const doc = xmlParser.parse(`<slice>${slice}</slice>`) as { slice: Tree };
      if (LAYOUT.test(slice)) dropLayoutText(doc);
      const decoded = doc.slice;
      // Adjacent children of one name, only layout between them: they decode to that name alone.
      if (!isTreeObject(decoded) || Object.keys(decoded).length !== 1 || decoded[name] === undefined) {
        throw new Error(
          `the <${name}> elements ${first + 1} to ${indexes[last] + 1} of the records' container ` +
            `decoded to something else`,
        );
      }
      const value = decoded[name];
      if (Array.isArray(value)) for (const item of value) put(JSON.stringify(item));
      else put(JSON.stringify(value));
      i = last + 1;
    }
    if (indexes.length !== 1) out.write(']');
  }
}

/** A marker no reply holds, standing for the container while the rest is decoded; and its JSON text. */
const MARK = '\u0000propsync:records\u0000';
const MARK_JSON = JSON.stringify(MARK);

/** A document whose records' container was found, with the rest of it decoded: ready to assemble. */
interface Prepared {
  found: Found;
  skeleton: TreeObject;
  holder: TreeObject;
  key: string;
}

/** Finds the container and decodes the rest of the document, or undefined when it must be decoded whole. */
function prepare(xml: Bytes, path: ContainerPath): Prepared | undefined {
  const found = path.length > 0 ? findContainer(xml, path) : undefined;
  if (!found || found.children.length === 0) return undefined;
  const skeleton = decodeXml(
    xml.toString('utf8', 0, found.contentStart) + xml.toString('utf8', found.contentEnd),
  ) as TreeObject;
  // The emptied container decodes to '': the records go there.
  let holder: Tree | undefined = skeleton[Object.keys(skeleton)[0]];
  for (let i = 0; i < path.length - 1 && isTreeObject(holder); i++) holder = holder[path[i]];
  const key = path[path.length - 1];
  if (!isTreeObject(holder) || holder[key] !== '') return undefined;
  return { found, skeleton, holder, key };
}

/**
 * The document's JSON text in UTF-8, its container's children decoded a slice at a time (those in `passOver`
 * not at all).
 */
function assemble(xml: Bytes, prepared: Prepared, passOver: ReadonlySet<number> = new Set()): Uint8Array {
  const { found, skeleton, holder, key } = prepared;
  holder[key] = MARK;
  const json = JSON.stringify(skeleton);
  const at = json.indexOf(MARK_JSON);
  // The JSON of a page is shorter than its XML: one buffer of the XML's length seldom grows.
  const out = new Utf8Writer(xml.length);
  out.write(json.slice(0, at));
  out.write('{');
  writeChildren(out, xml, found.children, passOver);
  out.write('}');
  out.write(json.slice(at + MARK_JSON.length));
  return out.bytes();
}

/**
 * The plain tree of an XML reply as JSON text in UTF-8, the records' container (at `path` below
 * the root) decoded a slice at a time. Throws what `decodeXml` throws on a broken document.
 */
export function decodeXmlToJson(reply: Uint8Array, path: ContainerPath): Uint8Array {
  const xml = bytesOf(reply);
  const prepared = prepare(xml, path);
  return prepared ? assemble(xml, prepared) : wholeJson(xml);
}

function bytesOf(reply: Uint8Array): Bytes {
  return Buffer.isBuffer(reply) ? reply : Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength);
}

/** The JSON text of the document decoded whole (where slicing cannot be sure), in UTF-8. */
function wholeJson(xml: Bytes): Uint8Array {
  return utf8.encode(asciiJson(JSON.stringify(decodeXml(xml.toString('utf8')))));
}

/**
 * The digest of one record's XML text (its UTF-8 bytes): the same text, under the same salt, always decodes
 * and loads the same.
 */
function textDigest(salt: string, xml: Bytes, span: Span): string {
  return createHash('sha1')
    .update(salt)
    .update('\n')
    .update(xml.subarray(span.start, span.end))
    .digest('base64');
}

/** A reply decoded by `decodeXmlRecognizing`. */
export interface RecognizedJson {
  /** The tree's JSON text in UTF-8; a record passed over stands as `PASSED_OVER_JSON`. */
  json: Uint8Array;
  /**
   * The digest of each record's text, in the order of the records (absent when the reply was
   * decoded whole); the records passed over are those `passOver` answered for.
   */
  digests?: string[];
}

/**
 * Like `decodeXmlToJson`, but first hands the digests of the records' texts (the `item`
 * children of the container, each digested with `salt`) to `passOver`, which answers which of
 * them need no decoding: those are left out, and stand as `PASSED_OVER_JSON` in their place.
 * A reply that is not plainly shaped is decoded whole, and nothing is asked.
 */
export async function decodeXmlRecognizing(
  reply: Uint8Array,
  path: ContainerPath,
  recognize: { item: string; salt: string; passOver: (digests: string[]) => Promise<readonly boolean[]> },
): Promise<RecognizedJson> {
  const xml = bytesOf(reply);
  const prepared = prepare(xml, path);
  if (!prepared) return { json: wholeJson(xml) };
  const records: number[] = [];
  prepared.found.children.forEach((child, index) => {
    if (child.name === recognize.item) records.push(index);
  });
  const digests = records.map((index) => textDigest(recognize.salt, xml, prepared.found.children[index]));
  const answer = digests.length > 0 ? await recognize.passOver(digests) : [];
  const skip = new Set(records.filter((_, index) => answer[index] === true));
  return { json: assemble(xml, prepared, skip), digests };
}
