import type { LoadRow } from './rows.js';

/** Rows as text for Postgres: COPY's text format, or the JSON of an inline merge. */

/** Rows per COPY chunk: the text of one chunk is all that is held at once, whatever the page size. */
const COPY_CHUNK_ROWS = 500;

/**
 * One value in COPY's text format: backslash, tab, newline and CR escaped. A scan of the
 * character codes finds whether there is any (rarely); text without one is returned as it is.
 */
export function copyText(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 92 || code === 9 || code === 10 || code === 13)
      return value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!);
  }
  return value;
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * JSON text in COPY's text format. JSON.stringify writes tab, newline and CR inside strings as
 * escapes, so a backslash is the only character of it that COPY needs escaped.
 */
function copyJson(value: unknown): string {
  const json = JSON.stringify(value) as string | undefined;
  // Nothing JSON can say (a function, say): written as the text Postgres will refuse, as before.
  if (json === undefined) return 'undefined';
  return json.indexOf('\\') === -1 ? json : json.replaceAll('\\', '\\\\');
}

/** A scalar as Postgres reads it from text (what `json_to_recordset` made of its JSON before). */
function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** An array literal (`{1,2}`, `{"a","b \\"c\\""}`) for an array column. */
function arrayText(values: readonly unknown[]): string {
  const items = values.map((item) =>
    item === null || item === undefined ? 'NULL' : `"${scalarText(item).replace(/[\\"]/g, (c) => `\\${c}`)}"`,
  );
  return `{${items.join(',')}}`;
}

/** A value of a scalar column: a number's text needs no escaping. */
function copyScalar(value: unknown): string {
  return typeof value === 'number' ? String(value) : copyText(scalarText(value));
}

/** A value of an array column as Postgres reads it from text: an array literal, or whatever else it is as text. */
function arrayValueText(value: unknown): string {
  return Array.isArray(value) ? arrayText(value) : scalarText(value);
}

/** A value of an array column in COPY text. */
function copyArray(value: unknown): string {
  return copyText(arrayValueText(value));
}

/** How a column's values travel, by its type: jsonb as JSON, arrays as array literals, the rest as their text. */
type ColumnKind = 'json' | 'array' | 'scalar';

function columnKind(type: string): ColumnKind {
  if (type === 'jsonb' || type === 'json') return 'json';
  return type.endsWith('[]') ? 'array' : 'scalar';
}

/** A column's (non-null) value in COPY text, by its kind. */
const COPY_ENCODERS: Record<ColumnKind, (value: unknown) => string> = {
  json: copyJson,
  array: copyArray,
  scalar: copyScalar,
};

/**
 * A column's (non-null) value in the JSON of an inline merge (`inlineJson`), by its kind: a JSON
 * column's value as JSON, any other as the text COPY sends before its escaping.
 */
const INLINE_ENCODERS: Record<ColumnKind, (value: unknown) => unknown> = {
  json: (value) => value,
  array: arrayValueText,
  scalar: scalarText,
};

/**
 * The rows as COPY text (`\\N` for null), a chunk of rows at a time, each chunk one buffer of its
 * UTF-8 bytes; `prefix` starts and `suffix` ends every line (constant columns). Written byte by
 * byte: a line joined as a string is a rope of a node or two per value, and the garbage of those
 * was a fifth of a full load's collections.
 */
export function* copyChunks(
  rows: readonly LoadRow[],
  columns: readonly [string, string][],
  prefix: string,
  suffix = '',
): Generator<Buffer> {
  const line = lineWriter(columns);
  const end = `${suffix}\n`;
  let size = 1 << 16;
  for (let start = 0; start < rows.length; start += COPY_CHUNK_ROWS) {
    const out = new TextBytes(size);
    for (let r = start; r < Math.min(rows.length, start + COPY_CHUNK_ROWS); r++) {
      out.text(prefix);
      line(rows[r], out);
      out.text(end);
    }
    const chunk = out.bytes();
    // The next chunk's buffer sized for this one's text, so that it seldom grows.
    size = Math.max(size, chunk.length + (chunk.length >> 3));
    yield chunk;
  }
}

/**
 * A row's values in the columns' order as the UTF-8 bytes of one line of COPY text, without its
 * newline: the bytes `copyChunks` sends for it. The buffer given is valid until the next call.
 */
export function copyLine(columns: readonly [string, string][]): (row: LoadRow) => Buffer {
  const line = lineWriter(columns);
  const out = new TextBytes(1 << 10);
  return (row) => {
    out.clear();
    line(row, out);
    return out.bytes();
  };
}

/** Writes a row's values in the columns' order, tab-separated, into `out`. */
function lineWriter(columns: readonly [string, string][]): (row: LoadRow, out: TextBytes) => void {
  const names = columns.map(([name]) => name);
  const encoders = columns.map(([, type]) => COPY_ENCODERS[columnKind(type)]);
  return (row, out) => {
    for (let i = 0; i < names.length; i++) {
      const value = row[names[i]];
      if (i > 0) out.text('\t');
      out.text(value === null || value === undefined ? '\\N' : encoders[i](value));
    }
  };
}

/** Strings shorter than this are written by a loop here, not by Buffer#write: most values of a row. */
const SHORT_TEXT = 24;

/** Text written as UTF-8 into one buffer, grown into a fresh one as it fills. */
class TextBytes {
  #buffer: Buffer;
  #length = 0;

  constructor(size: number) {
    this.#buffer = Buffer.allocUnsafe(size);
  }

  text(value: string): void {
    const n = value.length;
    // Three bytes at most for each UTF-16 unit (four for a surrogate pair's two).
    if (this.#length + n * 3 > this.#buffer.length) this.#grow(n * 3);
    const buffer = this.#buffer;
    if (n < SHORT_TEXT) {
      const at = this.#length;
      let i = 0;
      for (; i < n; i++) {
        const code = value.charCodeAt(i);
        if (code > 127) break;
        buffer[at + i] = code;
      }
      if (i === n) {
        this.#length = at + n;
        return;
      }
    }
    this.#length += buffer.write(value, this.#length);
  }

  /** The bytes written since it was made or cleared. */
  bytes(): Buffer {
    return this.#buffer.subarray(0, this.#length);
  }

  /** Starts again at the buffer's first byte (what `bytes` gave before is overwritten). */
  clear(): void {
    this.#length = 0;
  }

  #grow(more: number): void {
    const next = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#length + more));
    this.#buffer.copy(next, 0, 0, this.#length);
    this.#buffer = next;
  }
}

/**
 * Rows as the JSON text of one parameter, read back by `json_to_recordset` as its columns: a
 * jsonb column's value as JSON, any other the very text COPY sends (before COPY's escaping), so
 * that each column's type reads it with the same input function as from COPY.
 */
export function inlineJson(rows: readonly LoadRow[], columns: readonly [string, string][]): string {
  const encoders = columns.map(([, type]) => INLINE_ENCODERS[columnKind(type)]);
  return JSON.stringify(
    rows.map((row) => {
      const object: Record<string, unknown> = {};
      columns.forEach(([column], index) => {
        const value = row[column];
        object[column] = value === null || value === undefined ? null : encoders[index](value);
      });
      return object;
    }),
  );
}
