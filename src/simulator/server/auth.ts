import { timingSafeEqual } from 'node:crypto';

/** The credential the simulator accepts. */
export interface Credential {
  username: string;
  password: string;
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
  return sameText(username, credential.username) && sameText(password, credential.password) ? username : undefined;
}
