import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, ERROR_CODE } from './errors.js';
import type { ApiRoute } from './routes.js';

/** The Basic credential the simulator accepts at `/api/v1/<area>`. */
export interface Credential {
  username: string;
  password: string;
}

/** The API key the simulator's gateway accepts, for one org, at `/ext/orgs/<org>/v1/<area>`. */
export interface GatewayCredential {
  org: string;
  apiKey: string;
}

/** The credentials served: Basic auth, the gateway, or both (at least one). */
export interface Credentials {
  basic?: Credential;
  gateway?: GatewayCredential;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The user name of a request whose `Authorization: Basic ...` header matches the credential,
 * or undefined when the header is missing, malformed or wrong.
 */
export function authenticate(header: string | undefined, credential: Credential): string | undefined {
  if (!header) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const username = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  return sameText(username, credential.username) && sameText(password, credential.password)
    ? username
    : undefined;
}

/**
 * Whether a gateway call's `X-Api-Key` header and the org of its path match the credential;
 * both are compared in constant time, and both always, so that a wrong org and a wrong key
 * take the same time.
 */
export function authenticateGateway(
  apiKey: string | undefined,
  org: string,
  credential: GatewayCredential,
): boolean {
  const keyMatches = sameText(apiKey ?? '', credential.apiKey);
  const orgMatches = sameText(org, credential.org);
  return apiKey !== undefined && keyMatches && orgMatches;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Who is calling: the rate limits' name of the credential (per credential, as the source
 * counts) of a call whose credential matches its route, else an ApiError answered with HTTP
 * 401 and code 301. A gateway call must also say `{"auth":{"type":"apikey"}}` in its envelope
 * (`envelopeAuthType`, when the envelope could be read). The message never says which part was
 * wrong, nor quotes what was sent.
 */
export function callerOf(
  credentials: Credentials,
  route: ApiRoute,
  headers: IncomingHttpHeaders,
  envelopeAuthType: string | undefined,
): string {
  if (route.auth === 'basic') {
    const username =
      credentials.basic && authenticate(headerValue(headers, 'authorization'), credentials.basic);
    if (username === undefined) {
      throw new ApiError(
        ERROR_CODE.authenticationFailed,
        'Authentication failed: missing or wrong Basic credentials',
        401,
        {
          'WWW-Authenticate': 'Basic realm="propsync-simulator"',
        },
      );
    }
    return `basic:${username}`;
  }
  const gateway = credentials.gateway;
  if (!gateway || !authenticateGateway(headerValue(headers, 'x-api-key'), route.org, gateway)) {
    throw new ApiError(
      ERROR_CODE.authenticationFailed,
      'Authentication failed: missing or wrong API key for this org',
      401,
    );
  }
  if (envelopeAuthType !== undefined && envelopeAuthType !== 'apikey') {
    throw new ApiError(
      ERROR_CODE.authenticationFailed,
      `Authentication failed: the gateway takes {"auth":{"type":"apikey"}} in the envelope`,
      401,
    );
  }
  return `apikey:${gateway.org}`;
}
