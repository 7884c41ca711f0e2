import { SYNC_COLUMNS, type Column, type PgType, type Table } from './schema.js';

/**
 * The domains of the declared column types, checked before a row is written: a value that a
 * column cannot hold (a NUL in text, an integer past its type, an amount past `numeric(14,2)`,
 * a date Postgres does not have) is reported with its column instead of failing the statement
 * that would carry the whole page. The bounds come from the column's declared type alone, so a
 * table's declaration is the one list of what its rows may hold.
 *
 * Text must be valid Unicode without NUL: a lone surrogate (half of a UTF-16 pair) is rejected,
 * not repaired, since neither `text` nor `jsonb` can hold it and a repair would change what the
 * source sent without anyone noticing.
 */

/** What is wrong with a row: the column, the offending value and what the column holds instead. */
export interface RowProblem {
  column: string;
  /** Inside a `jsonb` column, where the offending text sits (`customers.customer[0].firstName`). */
  path?: string;
  value: unknown;
  expected: string;
}

/** Integer types: their bounds. */
const INTEGER_BOUNDS: Partial<Record<PgType, [min: bigint, max: bigint]>> = {
  smallint: [-(2n ** 15n), 2n ** 15n - 1n],
  integer: [-(2n ** 31n), 2n ** 31n - 1n],
  bigint: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** Postgres's dates run from 4713 BC to 5874897 AD; the source's (and ISO's year numbers here) start at year 1. */
const DATE_MAX_YEAR = 5_874_897;
/** Postgres's timestamps end in 294276 AD. */
const TIMESTAMP_MAX_YEAR = 294_276;
/** An unconstrained `numeric`: up to 131072 digits before the point and 16383 after. */
const NUMERIC_LIMITS = { whole: 131_072, scale: 16_383 };

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a text cannot be stored in `text` or `jsonb`, or undefined when it can. */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'text without NUL characters (Postgres text cannot hold U+0000)';
  if (LONE_SURROGATE.test(text)) return 'valid Unicode text (it holds a lone UTF-16 surrogate)';
  return undefined;
}

/**
 * The first value of `row` that its column in `table` cannot hold, or undefined when every
 * value fits. Checks the columns a load writes (a source table's own columns and `raw`);
 * the columns the sync fills itself are left alone.
 */
export function checkRow(table: Table, row: Readonly<Record<string, unknown>>): RowProblem | undefined {
  for (const [column, declared] of Object.entries(table.columns)) {
    if (column in SYNC_COLUMNS && column !== 'raw') continue;
    const value = row[column];
    if (value === undefined || value === null) {
      if (!declared.nullable && !declared.hasDefault) return { column, value, expected: 'present (the column is not null)' };
      continue;
    }
    const problem = valueProblem(declared, value);
    if (problem) return { column, ...problem };
  }
  return undefined;
}

function valueProblem(column: Column, value: unknown): Omit<RowProblem, 'column'> | undefined {
  const type = column.type;
  const bounds = INTEGER_BOUNDS[type];
  if (bounds) return integerProblem(type, bounds, value);
  if (type === 'text') {
    if (typeof value !== 'string') return { value, expected: 'text' };
    const expected = textProblem(value);
    return expected ? { value, expected } : undefined;
  }
  if (type === 'date') return dayProblem(value, DATE_MAX_YEAR, 'a date');
  if (type === 'timestamptz') {
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? { value, expected: 'a timestamp' } : undefined;
    return dayProblem(value, TIMESTAMP_MAX_YEAR, 'a timestamp');
  }
  if (type === 'boolean') return typeof value === 'boolean' ? undefined : { value, expected: 'a boolean' };
  if (type === 'jsonb') return jsonProblem(value, '');
  if (type === 'numeric' || type.startsWith('numeric(')) return numericProblem(type, value);
  if (type === 'bigint[]' || type === 'text[]') {
    if (!Array.isArray(value)) return { value, expected: type };
    const item = type === 'bigint[]' ? ({ ...column, type: 'bigint' } as Column) : ({ ...column, type: 'text' } as Column);
    for (const element of value) {
      const problem = valueProblem(item, element);
      if (problem) return problem;
    }
  }
  return undefined;
}

function integerProblem(type: PgType, [min, max]: [bigint, bigint], value: unknown): Omit<RowProblem, 'column'> | undefined {
  const expected = `a ${type} (${min} to ${max})`;
  if (typeof value === 'number') {
    // A JS number past 2^53 has already lost digits: it is never written as if exact.
    if (!Number.isSafeInteger(value)) return { value, expected: `${expected} held exactly (at most ${Number.MAX_SAFE_INTEGER} in magnitude)` };
    return BigInt(value) < min || BigInt(value) > max ? { value, expected } : undefined;
  }
  if (typeof value === 'bigint') return value < min || value > max ? { value: String(value), expected } : undefined;
  if (typeof value === 'string' && /^-?\d{1,40}$/.test(value)) return BigInt(value) < min || BigInt(value) > max ? { value, expected } : undefined;
  return { value, expected };
}

const DAY = /^(\d{4,7})-(\d{2})-(\d{2})(?:$|T)/;

function dayProblem(value: unknown, maxYear: number, what: string): Omit<RowProblem, 'column'> | undefined {
  const expected = `${what} between years 1 and ${maxYear}`;
  const m = typeof value === 'string' ? DAY.exec(value) : null;
  if (!m) return { value, expected };
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const days = [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (year < 1 || year > maxYear || month < 1 || month > 12 || day < 1 || day > days[month - 1]) return { value, expected };
  return undefined;
}

const DECIMAL = /^-?(\d+)(?:\.(\d+))?$/;

/**
 * `numeric(p,s)`: at most p−s digits before the point and s after — digits past the scale are
 * refused even though Postgres would round them away, since money is kept exactly as sent
 * (trailing zeros past the scale change nothing and pass).
 */
function numericProblem(type: PgType, value: unknown): Omit<RowProblem, 'column'> | undefined {
  const typed = /^numeric\((\d+),(\d+)\)$/.exec(type);
  const [whole, scale] = typed ? [Number(typed[1]) - Number(typed[2]), Number(typed[2])] : [NUMERIC_LIMITS.whole, NUMERIC_LIMITS.scale];
  const expected = typed
    ? `a ${type} (at most ${whole} digits before the point and ${scale} after)`
    : `a numeric (at most ${whole} digits before the point and ${scale} after)`;
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  const m = typeof text === 'string' ? DECIMAL.exec(text) : null;
  if (!m) return { value, expected };
  const wholeDigits = m[1].replace(/^0+/, '').length;
  const fractionDigits = (m[2] ?? '').replace(/0+$/, '').length;
  return wholeDigits > whole || fractionDigits > scale ? { value, expected } : undefined;
}

/** A JSON tree `jsonb` can hold: every key and string free of NUL and lone surrogates, every number finite. */
function jsonProblem(value: unknown, path: string): Omit<RowProblem, 'column'> | undefined {
  if (typeof value === 'string') {
    const expected = textProblem(value);
    return expected ? { path, value, expected } : undefined;
  }
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : { path, value, expected: 'a finite number' };
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const problem = jsonProblem(item, `${path}[${index}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      const keyProblem = textProblem(key);
      if (keyProblem) return { path: at, value: key, expected: `a field name of ${keyProblem}` };
      const problem = jsonProblem(item, at);
      if (problem) return problem;
    }
  }
  return undefined;
}

/**
 * A JSON tree made storable in `jsonb`: NUL characters and lone surrogates (in keys and
 * strings) become U+FFFD. `changed` says whether anything was replaced, in which case the
 * original is kept beside it as escaped JSON text (see the quarantine's `raw_text`).
 */
export function storableJson(value: unknown): { value: unknown; changed: boolean } {
  let changed = false;
  const clean = (text: string): string => {
    if (textProblem(text) === undefined) return text;
    changed = true;
    return text.replace(/\u0000/g, '\uFFFD').replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD');
  };
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return clean(node);
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([key, item]) => [clean(key), walk(item)]));
    return node;
  };
  const out = walk(value);
  return { value: out, changed };
}
