import { XMLParser } from 'fast-xml-parser';
import { ApiError, ERROR_CODE } from './errors.js';

/** Wire formats of the source: the reply is in the format of the request. */
export type WireFormat = 'json' | 'xml';

/** `Content-Type` of a reply in each format. */
export const CONTENT_TYPE: Record<WireFormat, string> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};

/**
 * The format named by a content type (`application/json; CHARSET=UTF-8`, `application/xml`,
 * `text/xml`, compared case-insensitively), or undefined when it names neither.
 */
export function formatOfContentType(contentType: string | undefined): WireFormat | undefined {
  if (!contentType) return undefined;
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'application/json' || mediaType.endsWith('+json') || mediaType === 'text/json')
    return 'json';
  if (mediaType === 'application/xml' || mediaType === 'text/xml' || mediaType.endsWith('+xml')) return 'xml';
  return undefined;
}

/** The format of a body by its first character, for a body whose content type says nothing. */
export function sniffFormat(text: string): WireFormat {
  return text.trimStart().startsWith('<') ? 'xml' : 'json';
}

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};
const XML_SPECIAL_ANY = /[&<>"'\u0080-\uffff]/;
const XML_SPECIAL_ALL = /[&<>"']|[^\u0000-\u007f]/gu;

/**
 * Escapes XML's five special characters, and writes every character past ASCII as a numeric
 * character reference, as the real service does: decimal up to U+00FF (`&#233;`), hexadecimal
 * above (`&#x2019;`). Control characters (a NUL in the data) go through raw.
 */
export function escapeXml(text: string): string {
  if (!XML_SPECIAL_ANY.test(text)) return text;
  return text.replace(XML_SPECIAL_ALL, (c) => {
    const named = XML_ESCAPES[c];
    if (named) return named;
    const code = c.codePointAt(0)!;
    return code <= 0xff ? `&#${code};` : `&#x${code.toString(16).toUpperCase()};`;
  });
}

/**
 * XML text gathered as the strings that make it up (names, tags, escaped values: most of them
 * strings that exist already), joined a few thousand at a time. Joined with `+=` instead, a reply
 * was a rope of millions of nodes, which the collector copied and marked until it was flattened:
 * three times the CPU of the text itself.
 */
class XmlText {
  private parts: string[] = [];
  private readonly joined: string[] = [];

  add(text: string): void {
    this.parts.push(text);
    if (this.parts.length >= 4096) {
      this.joined.push(this.parts.join(''));
      this.parts = [];
    }
  }

  text(): string {
    this.joined.push(this.parts.join(''));
    return this.joined.join('');
  }
}

function writeElement(out: XmlText, name: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    // Repeated elements are the list.
    for (const item of value) writeElement(out, name, item);
    return;
  }
  out.add('<');
  out.add(name);
  if (typeof value !== 'object') {
    out.add('>');
    out.add(escapeXml(String(value)));
  } else {
    const record = value as Record<string, unknown>;
    const attributes = record['@attributes'];
    if (attributes && typeof attributes === 'object') {
      for (const key in attributes as Record<string, unknown>) {
        const attr = (attributes as Record<string, unknown>)[key];
        if (attr === undefined || attr === null) continue;
        out.add(' ');
        out.add(key);
        out.add('="');
        out.add(escapeXml(String(attr)));
        out.add('"');
      }
    }
    out.add('>');
    for (const key in record) {
      if (key === '@attributes') continue;
      if (key === '#text') out.add(escapeXml(String(record[key])));
      else writeElement(out, key, record[key]);
    }
  }
  out.add('</');
  out.add(name);
  out.add('>');
}

/**
 * XML text of a tree shaped like the JSON reply: one element per key, arrays as repeated
 * elements, `@attributes` as the element's attributes, scalars as text.
 */
export function toXml(rootName: string, tree: unknown): string {
  const out = new XmlText();
  out.add('<?xml version="1.0" encoding="UTF-8"?>');
  writeElement(out, rootName, tree);
  return out.text();
}

/** Text of a reply envelope (`{"response": {...}}`) in a format. */
export function serializeEnvelope(
  format: WireFormat,
  envelope: { response: Record<string, unknown> },
): string {
  return format === 'json' ? JSON.stringify(envelope) : toXml('response', envelope.response);
}

/** A request envelope after decoding, every value as sent. */
export interface RequestEnvelope {
  /** `auth.type` (`basic`, `apikey`), when the envelope holds one as text. */
  authType?: string;
  requestId?: string;
  methodName?: string;
  version?: string;
  params: Record<string, string>;
}

const xmlParser = new XMLParser({
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreAttributes: true,
  trimValues: true,
  processEntities: true,
});

function asText(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new ApiError(
    ERROR_CODE.invalidParameter,
    `Invalid parameter '${field}': expected a single text value`,
  );
}

/**
 * Decodes the request envelope (`{"auth","requestId","method":{"name","version","params"}}`
 * or `<request>` with the same children) from its JSON or XML text. Throws an ApiError (code
 * 400 naming `requestBody`) when the text cannot be read as an envelope.
 */
export function parseRequestEnvelope(format: WireFormat, text: string): RequestEnvelope {
  let root: unknown;
  try {
    if (format === 'json') root = JSON.parse(text);
    else {
      const doc = xmlParser.parse(text, true) as Record<string, unknown>;
      root = doc.request;
      if (root === undefined) throw new Error('no <request> root element');
    }
  } catch (error) {
    throw new ApiError(
      ERROR_CODE.invalidParameter,
      `Invalid parameter 'requestBody': not a ${format.toUpperCase()} request envelope (${(error as Error).message})`,
    );
  }
  if (!root || typeof root !== 'object' || Array.isArray(root)) {
    throw new ApiError(
      ERROR_CODE.invalidParameter,
      `Invalid parameter 'requestBody': expected an object holding 'method'`,
    );
  }
  const record = root as Record<string, unknown>;
  const method = record.method;
  if (!method || typeof method !== 'object' || Array.isArray(method)) {
    throw new ApiError(
      ERROR_CODE.invalidParameter,
      `Invalid parameter 'method': expected an object with 'name' and 'params'`,
      200,
    );
  }
  const methodRecord = method as Record<string, unknown>;
  const rawParams = methodRecord.params;
  const params: Record<string, string> = {};
  if (rawParams !== undefined && rawParams !== null && rawParams !== '') {
    if (typeof rawParams !== 'object' || Array.isArray(rawParams)) {
      throw new ApiError(
        ERROR_CODE.invalidParameter,
        `Invalid parameter 'params': expected one value per parameter`,
      );
    }
    for (const [key, value] of Object.entries(rawParams as Record<string, unknown>)) {
      const text = asText(value, key);
      if (text !== undefined) params[key] = text;
    }
  }
  const auth = record.auth;
  const authType =
    auth && typeof auth === 'object' && !Array.isArray(auth)
      ? (auth as Record<string, unknown>).type
      : undefined;
  return {
    ...(typeof authType === 'string' ? { authType } : {}),
    requestId: asText(record.requestId, 'requestId'),
    methodName: asText(methodRecord.name, 'method.name'),
    version: asText(methodRecord.version, 'method.version'),
    params,
  };
}
