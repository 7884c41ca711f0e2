/** Paths that pino censors wherever they appear in a log event. */
export const REDACT_PATHS = [
  'password',
  '*.password',
  '*.*.password',
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  'headers.authorization',
  'config.source.password',
  'source.password',
];

/**
 * Hides the password of a URL (`postgres://user:secret@host` → `postgres://user:***@host`).
 * The user information ends at the last `@` before the path, as URL parsers read it, so a
 * password holding a raw `@` is hidden whole.
 */
export function redactUrl(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):[^/?#\s]*@/i, '$1:***@');
}

/**
 * Replaces every occurrence of the given secrets in a text with `***`: the last line of
 * defence for error messages and log lines that might quote a request.
 */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 3) continue;
    out = out.split(secret).join('***');
    const basic = Buffer.from(secret).toString('base64');
    if (basic.length > 4) out = out.split(basic).join('***');
  }
  return out;
}
