/**
 * The request envelope, as JSON or XML text, from a method, its version and its typed
 * parameters (encoded and checked by `encodeParams`).
 */
import type { AuthType, Format, MethodVersion } from './settings.js';
import { encodeParams } from './params.js';
import type { RequestParams, SourceMethod } from './types.js';

/** The `requestContentType` part (and raw-body Content-Type) of each format. */
export const CONTENT_TYPES = {
  json: 'application/json; CHARSET=UTF-8',
  xml: 'application/xml; CHARSET=UTF-8',
} as const satisfies Record<Format, string>;

/** What an envelope is made of. */
export interface EnvelopeInput {
  method: SourceMethod;
  version: MethodVersion;
  requestId: string;
  params: Readonly<RequestParams>;
  /** Zone of date parameters given as `Date` (the configured time zone). */
  timeZone: string;
  /** The envelope's `auth.type`, the auth mode's (default `basic`). */
  authType?: AuthType;
}

/** A built envelope: its text, and the encoded parameters (for logs and tests). */
export interface Envelope {
  format: Format;
  text: string;
  contentType: string;
  params: Record<string, string>;
}

/** Escapes text for an XML element's content. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c as keyof typeof XML_ESCAPES]);
}
const XML_ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' } as const;

/**
 * The envelope in JSON: `{"auth":{"type":"basic"},"requestId":..,"method":{"name","version","params"}}`
 * (`"apikey"` on the gateway).
 */
export function jsonEnvelope(
  requestId: string,
  method: string,
  version: MethodVersion,
  params: Record<string, string>,
  authType: AuthType = 'basic',
): string {
  return JSON.stringify({ auth: { type: authType }, requestId, method: { name: method, version, params } });
}

/** The envelope in XML: `<request>` with `<auth>`, `<requestId>` and `<method>` (one element per parameter). */
export function xmlEnvelope(
  requestId: string,
  method: string,
  version: MethodVersion,
  params: Record<string, string>,
  authType: AuthType = 'basic',
): string {
  const children = Object.entries(params)
    .map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`)
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<request><auth><type>${authType}</type></auth><requestId>${escapeXml(requestId)}</requestId>` +
    `<method><name>${method}</name><version>${version}</version><params>${children}</params></method></request>`
  );
}

/**
 * Builds the envelope of one call in the given format. Throws `BadParameterError` for an
 * unknown or malformed parameter, before anything is sent.
 */
export function buildEnvelope(format: Format, input: EnvelopeInput): Envelope {
  const params = encodeParams(input.method, input.version, input.params, input.timeZone);
  const text =
    format === 'xml'
      ? xmlEnvelope(input.requestId, input.method.name, input.version, params, input.authType)
      : jsonEnvelope(input.requestId, input.method.name, input.version, params, input.authType);
  return { format, text, contentType: CONTENT_TYPES[format], params };
}
