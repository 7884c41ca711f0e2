/**
 * The task a decoding thread runs (see xml-decoder.ts): the bytes of an XML reply in, the plain tree out as JSON
 * text, its records decoded a slice at a time (codec-xml-split.ts). JSON text is what crosses
 * back to the main thread because `JSON.parse` rebuilds a tree there far faster than a
 * structured clone of the same objects, and it is the very tree `decodeXml` makes: every leaf
 * is text, so no value changes on the way.
 */
import { decodeXmlToJson, type ContainerPath } from './codec-xml-split.js';

export interface XmlDecodeTask {
  /** The reply's UTF-8 bytes, moved to the thread. */
  bytes: Uint8Array;
  /** Where the records' container sits below the root. */
  container: ContainerPath;
}

export default function decodeXmlTask(task: XmlDecodeTask): string {
  const text = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength).toString('utf8');
  return decodeXmlToJson(text, task.container);
}
