/**
 * The task a decoding thread runs (see xml-decoder.ts): XML text in, the plain tree out as JSON
 * text, its records decoded a slice at a time (codec-xml-split.ts). JSON text is what crosses
 * back to the main thread because `JSON.parse` rebuilds a tree there far faster than a
 * structured clone of the same objects, and it is the very tree `decodeXml` makes: every leaf
 * is text, so no value changes on the way.
 */
import { decodeXmlToJson, type ContainerPath } from './codec-xml-split.js';

export interface XmlDecodeTask {
  text: string;
  /** Where the records' container sits below the root. */
  container: ContainerPath;
}

export default function decodeXmlTask(task: XmlDecodeTask): string {
  return decodeXmlToJson(task.text, task.container);
}
