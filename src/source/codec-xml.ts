/**
 * XML replies → the plain tree (see tree.ts), with fast-xml-parser configured to read what
 * the JSON form says: no value parsing (text stays text, leading zeros kept), attributes
 * grouped under `@attributes` (as the source's JSON has them), text kept untrimmed, repeated
 * elements as arrays, and a simple element as its text (`#text` only beside attributes).
 *
 * Character references decode to the characters they name, as JSON's `\u00e9` does: XML's
 * five named entities, and numeric references (`&#233;`, `&#x2019;`), which fast-xml-parser
 * decodes only with `htmlEntities` on (it then also knows a few HTML names such as `&nbsp;`
 * and `&copy;`, which no well-formed XML reply uses). References to characters XML forbids
 * (`&#0;`, C0 controls) are dropped by the parser; a raw control character goes through.
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

/**
 * A tag with an attribute: `<name` and white space, then an `=` before the tag ends. Text
 * cannot hold a raw `<`, so outside CDATA and comments (where a match only costs speed) this
 * finds every attribute of a document.
 */
const ATTRIBUTE = /<[^\s<>!?/]+\s[^<>]*=/;

/** Parsers by what the text holds: bit 1 attributes, bit 2 character references. */
const parsers: XMLParser[] = [];

/**
 * The parser for a text. Reading attributes and character references costs fast-xml-parser a
 * good part of its time even where there are none, so a text without them is read by a parser
 * that looks for neither; on such a text every parser gives the same tree.
 */
export function parserFor(text: string): XMLParser {
  const attributes = ATTRIBUTE.test(text);
  const references = text.includes('&');
  const key = (attributes ? 1 : 0) | (references ? 2 : 0);
  return (parsers[key] ??= new XMLParser({ ...XML_PARSER_OPTIONS, ignoreAttributes: !attributes, processEntities: references, htmlEntities: references }));
}

/**
 * Parses XML text into the plain tree. Throws when the text is not XML or is cut short: the
 * parser rejects broken tags, and a document must end by closing its root element (the
 * parser alone would accept a document cut between two elements).
 */
export function decodeXml(text: string): Tree {
  const doc = parserFor(text).parse(text) as Record<string, unknown>;
  const roots = Object.keys(doc);
  if (roots.length !== 1) throw new SyntaxError(`XML document has ${roots.length} root elements; expected one`);
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
