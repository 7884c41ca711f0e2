/**
 * XML replies → the plain tree (see tree.ts), read as the JSON form says, character references
 * decoded. Why each parser option: docs/source-client.md#xml-character-references
 */
import { XMLParser } from 'fast-xml-parser';
import type { Tree } from './tree.js';

/** The parser options; exported for tests that check the configuration. */
export const XML_PARSER_OPTIONS = {
  ignoreAttributes: false,
  attributeNamePrefix: '',
  attributesGroupName: '@attributes',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: true,
  htmlEntities: true,
  removeNSPrefix: false,
  alwaysCreateTextNode: false,
  // No callbacks are passed, so no path is needed; with `jPath: true` the parser builds a path
  // string at every tag all the same (a quarter of its time on large replies).
  jPath: false,
} as const;

/** The configured parser; also used by codec-xml-split.ts on slices of a document. */
export const xmlParser = new XMLParser(XML_PARSER_OPTIONS);

/**
 * Parses XML text into the plain tree. Throws when the text is not XML or is cut short: the
 * parser rejects broken tags, and a document must end by closing its root element (the
 * parser alone would accept a document cut between two elements).
 */
export function decodeXml(text: string): Tree {
  const doc = xmlParser.parse(text) as Record<string, unknown>;
  const roots = Object.keys(doc);
  if (roots.length !== 1)
    throw new SyntaxError(`XML document has ${roots.length} root elements; expected one`);
  const end = text.trimEnd();
  const emptyRoot = doc[roots[0]] === '' && end.endsWith('/>');
  if (!end.endsWith(`</${roots[0]}>`) && !emptyRoot) {
    throw new SyntaxError(`XML document ends before its root element <${roots[0]}> is closed (truncated)`);
  }
  // Layout whitespace only exists between a `>` and the next `<`: a compact document (as the
  // source sends) needs no pass over the tree to remove it.
  if (LAYOUT.test(text)) dropLayoutText(doc);
  return doc as Tree;
}

/** Whitespace between two tags: the document may be pretty-printed. */
export const LAYOUT = />\s+</;

/**
 * Removes, in place, the whitespace-only `#text` that indentation between child elements
 * leaves in an element that has children (a pretty-printed document).
 */
export function dropLayoutText(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) if (item !== null && typeof item === 'object') dropLayoutText(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  const text = record['#text'];
  if (typeof text === 'string' && text.trim() === '') {
    let others = 0;
    for (const key in record) if (key !== '#text') others++;
    if (others > 0) delete record['#text'];
  }
  for (const key in record) {
    const child = record[key];
    if (child !== null && typeof child === 'object') dropLayoutText(child);
  }
}
