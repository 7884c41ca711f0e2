/**
 * One record's XML element read into the plain tree without fast-xml-parser, when the element
 * is plain: elements and text only, no attributes, comments, CDATA or processing instructions,
 * no text beside child elements but layout white space, no carriage return, and no character
 * reference but XML's five named ones and numeric ones to characters the parser keeps. What it
 * gives is the very value `decodeXml` reads the element as (see codec-xml.ts); anything else
 * gives `undefined`, and the caller decodes with the parser. Why: docs/source-client.md#plain-xml-records
 */
import type { Tree, TreeObject } from './tree.js';

/** Element names the parser renames or refuses (they could pollute prototypes); compared lower-cased. */
const RESERVED_NAMES = new Set([
  'hasownproperty',
  'tostring',
  'valueof',
  '__definegetter__',
  '__definesetter__',
  '__lookupgetter__',
  '__lookupsetter__',
  '__proto__',
  'constructor',
  'prototype',
]);
/** Names read here: plain ASCII names (anything else goes to the parser, which checks names its own way). */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/** The parser's nesting limit is 100; deeper elements go to it. */
const MAX_DEPTH = 90;

const REFERENCE = /&(?:#(\d{1,7})|#x([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Characters a numeric reference may name here: those the parser keeps as they are (it drops C0 and C1
 * controls and non-characters).
 */
function keptCharacter(code: number): boolean {
  return (
    code === 9 ||
    code === 10 ||
    code === 13 ||
    (code >= 0x20 && code <= 0x7e) ||
    (code >= 0xa0 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

/** An element's text with its references decoded, or undefined when it is not plain. */
function plainText(raw: string): string | undefined {
  if (raw.includes('\r')) return undefined;
  if (!raw.includes('&')) return raw;
  // Every `&` must start one of the references read here.
  if (raw.replace(REFERENCE, '').includes('&')) return undefined;
  let plain = true;
  const decoded = raw.replace(
    REFERENCE,
    (_match, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
      if (name !== undefined) return NAMED[name];
      const code = decimal !== undefined ? Number(decimal) : parseInt(hex!, 16);
      if (!keptCharacter(code)) {
        plain = false;
        return '';
      }
      return String.fromCodePoint(code);
    },
  );
  return plain ? decoded : undefined;
}

/** An open element: its name, its children so far, and whether text other than layout white space came in it. */
interface Open {
  name: string;
  children: TreeObject | undefined;
  text: string;
}

/**
 * Adds a child's value under its name: a second child of a name makes a list. False when the element holds
 * text beside children.
 */
function addChild(parent: Open, name: string, value: Tree): boolean {
  if (parent.text.trim() !== '') return false;
  const children = (parent.children ??= {});
  if (!Object.prototype.hasOwnProperty.call(children, name)) children[name] = value;
  else {
    const existing = children[name];
    if (Array.isArray(existing)) existing.push(value);
    else children[name] = [existing, value];
  }
  return true;
}

/**
 * The plain tree of the element spanning `start` to `end` (exclusive) of `text`, as `decodeXml`
 * reads the element's value (text, `''` when empty, or an object of its children, a repeated
 * child a list), or undefined when the element is not plain (see the module's note).
 */
export function plainElement(text: string, start: number, end: number): Tree | undefined {
  const open: Open[] = [];
  let pos = start;
  while (pos < end) {
    if (text.charCodeAt(pos) !== 0x3c) return undefined;
    const second = text.charCodeAt(pos + 1);
    if (second === 0x21 || second === 0x3f) return undefined;
    const close = text.indexOf('>', pos + 1);
    if (close < 0 || close >= end) return undefined;
    if (second === 0x2f) {
      const element = open.pop();
      if (!element || text.slice(pos + 2, close) !== element.name) return undefined;
      let value: Tree;
      if (element.children) value = element.children;
      else {
        const decoded = plainText(element.text);
        if (decoded === undefined) return undefined;
        value = decoded;
      }
      pos = close + 1;
      if (open.length === 0) return pos === end ? value : undefined;
      if (!addChild(open[open.length - 1], element.name, value)) return undefined;
    } else {
      const selfClosing = text.charCodeAt(close - 1) === 0x2f;
      const name = text.slice(pos + 1, selfClosing ? close - 1 : close);
      if (!PLAIN_NAME.test(name) || RESERVED_NAMES.has(name.toLowerCase())) return undefined;
      pos = close + 1;
      if (selfClosing) {
        if (open.length === 0) return pos === end ? '' : undefined;
        if (!addChild(open[open.length - 1], name, '')) return undefined;
      } else {
        if (open.length >= MAX_DEPTH) return undefined;
        open.push({ name, children: undefined, text: '' });
      }
    }
    if (open.length === 0) return undefined;
    // The text up to the next tag: an element's text, or layout white space between children.
    const next = text.indexOf('<', pos);
    if (next < 0 || next >= end) return undefined;
    if (next > pos) {
      const segment = text.slice(pos, next);
      const element = open[open.length - 1];
      if (element.children && segment.trim() !== '') return undefined;
      element.text += segment;
    }
    pos = next;
  }
  return undefined;
}
