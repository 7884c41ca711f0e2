/** Paths that pino censors wherever they appear in a log event. */
export const REDACT_PATHS = [
  'password',
  '*.password',
  '*.*.password',
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  'headers.authorization',
  'sslpassword',
  '*.sslpassword',
  'config.source.password',
  'source.password',
  'apiKey',
  '*.apiKey',
  '*.*.apiKey',
  '*.*.*.apiKey',
  '*.*.*.password',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
];

/** The password in a URL's user information: `scheme://user:PASSWORD@`. */
const USERINFO_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):([^/?#\s]*)@/i;
/**
 * A password in a URL's query (`?password=`, `&sslpassword=`, any case), as libpq and pg read
 * them: the parameter's name kept, its value to the next `&`, `#` or blank.
 */
const QUERY_PASSWORD = /([?&](?:ssl)?password=)([^&#\s]*)/gi;

/**
 * Hides the passwords of a URL: the user information's (`postgres://user:secret@host` →
 * `postgres://user:***@host`) and the query's (`?password=secret`, `sslpassword=`, any case
 * → `?password=***`). The user information ends at the last `@` before the path, as URL
 * parsers read it, so a password holding a raw `@` is hidden whole.
 */
export function redactUrl(value: string): string {
  return value.replace(USERINFO_PASSWORD, '$1:***@').replace(QUERY_PASSWORD, '$1***');
}

/**
 * The passwords a URL holds (user information and query), as written and percent-decoded,
 * for `scrubSecrets`: a message that quotes one of them anywhere is cleaned too.
 */
export function urlPasswords(url: string | undefined): string[] {
  if (!url) return [];
  const found: string[] = [];
  const userinfo = USERINFO_PASSWORD.exec(url);
  if (userinfo?.[2]) found.push(userinfo[2]);
  for (const match of url.matchAll(QUERY_PASSWORD)) if (match[2]) found.push(match[2]);
  const out = new Set<string>();
  for (const secret of found) {
    out.add(secret);
    try {
      out.add(decodeURIComponent(secret.replace(/\+/g, ' ')));
      out.add(decodeURIComponent(secret));
    } catch {
      // Not valid percent-encoding: the text as written is what may be quoted.
    }
  }
  return [...out];
}

/**
 * Characters that move a terminal's cursor or change what it shows: C0 and C1 controls, DEL, bidirectional overrides.
 */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text that came from the source, made safe to print on a terminal: every control character
 * written as its escape (`\n`, `\t`, `\r`, `\u0000`, `\u001b`, `\u202e`), so that a record's
 * NUL or escape sequence shows as text instead of acting on the terminal.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** Letters only, and short: a secret that could be one of a message's own words ("wrong"). */
const WORD_LIKE = /^\p{L}{1,11}$/u;

/** Long enough that the text never holds it by chance: hidden wherever it stands, inside other text too. */
const DISTINCT_LENGTH = 8;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Where a secret stands whole in a text: not inside a longer run of letters and digits. A word-like
 * secret only where it stands as a value: quoted, after `=` or `:`, or the whole text.
 */
function wholeSecret(secret: string): RegExp {
  const value = escapeRegExp(secret);
  const around = '[\\p{L}\\p{N}_]';
  return WORD_LIKE.test(secret)
    ? new RegExp(`(?<=[=:'"\`])${value}(?!${around})|(?<!${around})${value}(?=['"\`])|^${value}$`, 'gu')
    : new RegExp(`(?<!${around})${value}(?!${around})`, 'gu');
}

/**
 * Replaces the given secrets in a text with `***`, by their exact value: the last line of defence for error
 * messages and log lines that might quote a request. A secret of 8 characters or more is hidden wherever it
 * stands; a shorter one where it stands whole (`7` in `page 7`, not in `17`), and one that is a short word
 * only where it stands as a value (`password="wrong"`), so that a password `wrong` never hides the source's
 * own word "wrong" while every quoting of it is hidden. The forms a request carries it in (base64, as in
 * the Basic token; percent-encoded) are hidden wherever they stand. Secrets of any length.
 */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret) continue;
    for (const form of new Set([Buffer.from(secret).toString('base64'), encodeURIComponent(secret)]))
      if (form !== secret && form.length >= 4) out = out.split(form).join('***');
    out =
      secret.length >= DISTINCT_LENGTH && !WORD_LIKE.test(secret)
        ? out.split(secret).join('***')
        : out.replace(wholeSecret(secret), '***');
  }
  return out;
}
