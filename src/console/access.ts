import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { ConsoleConfig } from '../config/console.js';
import { isLoopbackHost } from '../config/insecure-http.js';
import { ConfigError } from '../config/load.js';

/** The shortest console password or token accepted: a guessable one would open residents' data. */
export const MIN_SECRET_LENGTH = 12;

/** Who may read the console: everyone who reaches it (loopback only), or who shows the credential. */
export interface ConsoleAccess {
  /** Whether the request carries the configured credential (always, without auth). */
  allows(request: Pick<IncomingMessage, 'headers'>): boolean;
  /** The `WWW-Authenticate` of a refusal, or null without auth. */
  challenge: string | null;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Compares in constant time (both sides hashed first, so their lengths do not show). */
function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * The console's access for a server on `host`, its secret read from `env`. Stops the start with
 * what to fix (a ConfigError: exit 2) when the secret is missing or short, or when `host` is not
 * this machine and no auth is set: quarantined records may hold residents' data.
 */
export function consoleAccess(
  settings: ConsoleConfig,
  host: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ConsoleAccess {
  const auth = settings.auth;
  if (!auth) {
    if (!isLoopbackHost(host))
      throw new ConfigError([
        `console: would serve the console without auth on ${host}, which is not this machine; set console.auth ` +
          '(type: basic with username and passwordEnv, or type: bearer with tokenEnv), listen on 127.0.0.1, ' +
          'or turn the console off (console.enabled: false, PROPSYNC_CONSOLE_ENABLED=false)',
      ]);
    return { allows: () => true, challenge: null };
  }
  const variable = auth.type === 'basic' ? auth.passwordEnv : auth.tokenEnv;
  const key = auth.type === 'basic' ? 'console.auth.passwordEnv' : 'console.auth.tokenEnv';
  const secret = env[variable] ?? '';
  const unset = 'is not set (or is empty)';
  const what = auth.type === 'basic' ? 'password' : 'token';
  if (secret.length < MIN_SECRET_LENGTH)
    throw new ConfigError([
      `${key}: names ${variable}, which ${secret ? `holds fewer than ${MIN_SECRET_LENGTH} characters` : unset}; ` +
        `expected ${variable} to hold the console's ${what}, ${MIN_SECRET_LENGTH} characters or more`,
    ]);
  if (auth.type === 'bearer') {
    return {
      challenge: 'Bearer realm="propsync console"',
      allows: ({ headers }) => {
        const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
        return match !== null && sameSecret(match[1], secret);
      },
    };
  }
  const expected = `${auth.username}:${secret}`;
  return {
    challenge: 'Basic realm="propsync console", charset="UTF-8"',
    allows: ({ headers }) => {
      const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(headers.authorization ?? '');
      return match !== null && sameSecret(Buffer.from(match[1], 'base64').toString('utf8'), expected);
    },
  };
}
