/**
 * The two ways of reaching the source, and every difference between them: Basic auth at
 * `/api/v1/{area}` with the envelope as multipart form parts, and the vendor's API-key gateway
 * at `/ext/orgs/{org}/v1/{area}` with `X-Api-Key` and the envelope as a JSON body. The rest of
 * the client (envelope, pacing, paging, retries, decoding) is the same for both and asks this
 * module, never the mode. Why: docs/source-client.md#the-api-key-gateway
 */
import FormData from 'form-data';
import type { Format, SourceAuth } from './settings.js';

/** The body of one call and the headers that go with it (content type, credential). */
export interface AuthRequest {
  body: Buffer;
  headers: Record<string, string>;
}

/** What an auth mode makes of a call. */
export interface AuthMode {
  /** The envelope's `auth.type` (`{"auth":{"type":"basic"}}` or `"apikey"`). */
  readonly envelopeAuthType: SourceAuth['type'];
  /** The path of an area's calls under the service base, before the query. */
  pathOf(area: string): string;
  /** The body and headers of a call carrying the envelope's text in its content type. */
  request(envelope: string, contentType: string): AuthRequest;
  /** Texts that must never leave the client: scrubbed from every error it throws or logs. */
  readonly secrets: readonly string[];
  /** What an operator checks when the source refuses the credential. */
  readonly credentialHint: string;
}

/** Text a header value cannot hold (CR, LF and other controls), or that would be trimmed from it. */
const NOT_A_HEADER_VALUE = /[\u0000-\u001f\u007f]|^\s|\s$/;

/**
 * Why these auth settings cannot be used with this format, or undefined when they can. The
 * gateway takes the envelope only as a JSON body and answers in JSON, so it cannot carry an
 * XML envelope: `format: xml` is refused with an API key. Never quotes a secret.
 */
export function authSettingsProblem(auth: SourceAuth, format: Format): string | undefined {
  if (auth.type === 'basic') {
    if (!auth.username) return 'the Basic auth user name is empty';
    if (!auth.password) return 'the Basic auth password is empty';
    return undefined;
  }
  if (!auth.org) return 'the API-key gateway org is empty';
  if (!/^[A-Za-z0-9._-]+$/.test(auth.org) || /^\.+$/.test(auth.org))
    return 'the API-key gateway org must be letters, digits, -, _ or . (not dots alone)';
  if (!auth.apiKey) return 'the API key is empty';
  if (NOT_A_HEADER_VALUE.test(auth.apiKey))
    return 'the API key holds a control character or leading or trailing blanks; it cannot go in the X-Api-Key header';
  if (format === 'xml')
    return (
      'format xml cannot be used with an API key: the gateway takes the envelope as a JSON body ' +
      'and answers in JSON; use format json'
    );
  return undefined;
}

/**
 * Basic auth: `Authorization: Basic base64(username:password)`, the envelope as multipart parts
 * `requestBody` and `requestContentType`.
 */
function basicMode(username: string, password: string, hint?: string): AuthMode {
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  return {
    envelopeAuthType: 'basic',
    pathOf: (area) => `/api/v1/${encodeURIComponent(area)}`,
    request(envelope, contentType) {
      const form = new FormData();
      form.append('requestBody', envelope);
      form.append('requestContentType', contentType);
      return {
        body: form.getBuffer(),
        headers: { ...(form.getHeaders() as Record<string, string>), authorization },
      };
    },
    // The password alone, and with its user name (scrubSecrets also hides the base64 of each: the Basic token).
    secrets: [password, `${username}:${password}`],
    credentialHint: hint ?? 'check source.username and source.password',
  };
}

/** The API-key gateway: `X-Api-Key: KEY`, the envelope itself as the JSON body. */
function apiKeyMode(org: string, apiKey: string, hint?: string): AuthMode {
  const orgPath = `/ext/orgs/${encodeURIComponent(org)}/v1`;
  return {
    envelopeAuthType: 'apikey',
    pathOf: (area) => `${orgPath}/${encodeURIComponent(area)}`,
    request(envelope, contentType) {
      return {
        body: Buffer.from(envelope, 'utf8'),
        headers: { 'content-type': contentType, 'x-api-key': apiKey },
      };
    },
    secrets: [apiKey],
    credentialHint: hint ?? `check the API key and the org ('${org}') of the gateway`,
  };
}

/**
 * The auth mode of a client's settings. Throws when they cannot be used (see
 * `authSettingsProblem`: an empty credential, or `format: xml` with an API key).
 */
export function authModeOf(auth: SourceAuth, format: Format, credentialHint?: string): AuthMode {
  const problem = authSettingsProblem(auth, format);
  if (problem) throw new Error(`source settings: ${problem}`);
  return auth.type === 'basic'
    ? basicMode(auth.username, auth.password, credentialHint)
    : apiKeyMode(auth.org, auth.apiKey, credentialHint);
}
