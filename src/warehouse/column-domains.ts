import { daysInMonth } from '../dates/calendar.js';
import { ACCOUNT_COLUMN, SYNC_COLUMNS, type PgType, type Table } from './schema.js';

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

/** `String.prototype.isWellFormed` (Node 20; ES2024, newer than the `lib` this project compiles against). */
type WellFormedText = string & { isWellFormed(): boolean };

/** Why a text cannot be stored in `text` or `jsonb`, or undefined when it can. */
export function textProblem(text: string): string | undefined {
  if (text.indexOf('\u0000') !== -1) return 'text without NUL characters (Postgres text cannot hold U+0000)';
  // A native scan (false exactly when a lone surrogate is present) instead of a look-around regex.
  if (!(text as WellFormedText).isWellFormed())
    return 'valid Unicode text (it holds a lone UTF-16 surrogate)';
  return undefined;
}

/** What is wrong with one value of a column, without the column's name. */
type ValueProblem = Omit<RowProblem, 'column'>;
/** The check of one column's values: a column's own null never reaches it, an array's null elements do. */
type ValueCheck = (value: unknown) => ValueProblem | undefined;

/** A column a load writes, with its check compiled from the declaration. */
interface ColumnCheck {
  column: string;
  /** Null is refused: not null and without default. */
  required: boolean;
  check: ValueCheck;
}

/** The compiled checks of each table, made once per declaration rather than dispatched on the type per value. */
const TABLE_CHECKS = new WeakMap<Table, readonly ColumnCheck[]>();

/** The checks of the columns a load writes in `table` (its own columns and `raw`), compiled on first use. */
function tableChecks(table: Table): readonly ColumnCheck[] {
  let checks = TABLE_CHECKS.get(table);
  if (!checks) {
    checks = Object.entries(table.columns)
      .filter(([column]) => column !== ACCOUNT_COLUMN && (!(column in SYNC_COLUMNS) || column === 'raw'))
      .map(([column, declared]) => ({
        column,
        required: !declared.nullable && !declared.hasDefault,
        check: valueCheck(declared.type),
      }));
    TABLE_CHECKS.set(table, checks);
  }
  return checks;
}

/**
 * The first value of `row` that its column in `table` cannot hold, or undefined when every
 * value fits. Checks the columns a load writes (a source table's own columns and `raw`);
 * the columns the sync fills itself are left alone.
 */
export function checkRow(table: Table, row: Readonly<Record<string, unknown>>): RowProblem | undefined {
  const checks = tableChecks(table);
  for (let i = 0; i < checks.length; i++) {
    const { column, required, check } = checks[i];
    const value = row[column];
    if (value === undefined || value === null) {
      if (required) return { column, value, expected: 'present (the column is not null)' };
      continue;
    }
    const problem = check(value);
    if (problem) return { column, ...problem };
  }
  return undefined;
}

/** The check of a declared type's values; a type without a domain to check accepts anything. */
function valueCheck(type: PgType): ValueCheck {
  const bounds = INTEGER_BOUNDS[type];
  if (bounds) return integerCheck(type, bounds);
  switch (type) {
    case 'text':
      return textCheck;
    case 'date':
      return dayCheck(DATE_MAX_YEAR, 'a date');
    case 'timestamptz': {
      const day = dayCheck(TIMESTAMP_MAX_YEAR, 'a timestamp');
      return (value) =>
        value instanceof Date
          ? Number.isNaN(value.getTime())
            ? { value, expected: 'a timestamp' }
            : undefined
          : day(value);
    }
    case 'boolean':
      return (value) => (typeof value === 'boolean' ? undefined : { value, expected: 'a boolean' });
    case 'jsonb':
      return jsonCheck;
    case 'bigint[]':
    case 'text[]':
      return arrayCheck(type, type === 'bigint[]' ? valueCheck('bigint') : textCheck);
  }
  if (type === 'numeric' || type.startsWith('numeric(')) return numericCheck(type);
  return () => undefined;
}

function textCheck(value: unknown): ValueProblem | undefined {
  if (typeof value !== 'string') return { value, expected: 'text' };
  const expected = textProblem(value);
  return expected ? { value, expected } : undefined;
}

/** An array column: the first element (nulls included) its element type cannot hold. */
function arrayCheck(type: PgType, item: ValueCheck): ValueCheck {
  return (value) => {
    if (!Array.isArray(value)) return { value, expected: type };
    for (let i = 0; i < value.length; i++) {
      const problem = item(value[i]);
      if (problem) return problem;
    }
    return undefined;
  };
}

function integerCheck(type: PgType, [min, max]: [bigint, bigint]): ValueCheck {
  const expected = `a ${type} (${min} to ${max})`;
  const inexact = `${expected} held exactly (at most ${Number.MAX_SAFE_INTEGER} in magnitude)`;
  // A safe integer is within ±2^53, so compared as a number it is compared exactly with any bound.
  const [low, high] = [Number(min), Number(max)];
  return (value) => {
    if (typeof value === 'number') {
      // A JS number past 2^53 has already lost digits: it is never written as if exact.
      if (!Number.isSafeInteger(value)) return { value, expected: inexact };
      return value < low || value > high ? { value, expected } : undefined;
    }
    if (typeof value === 'bigint')
      return value < min || value > max ? { value: String(value), expected } : undefined;
    if (typeof value === 'string' && /^-?\d{1,40}$/.test(value))
      return BigInt(value) < min || BigInt(value) > max ? { value, expected } : undefined;
    return { value, expected };
  };
}

const isDigit = (code: number): boolean => code >= 48 && code <= 57;

/** The number written by the two digits at `at`, or -1 when they are not two digits. */
function twoDigits(text: string, at: number): number {
  const tens = text.charCodeAt(at);
  const ones = text.charCodeAt(at + 1);
  return isDigit(tens) && isDigit(ones) ? (tens - 48) * 10 + (ones - 48) : -1;
}

/**
 * Whether `text` starts with a real day `YYYY-MM-DD` (4 to 7 year digits) between years 1 and
 * `maxYear`, followed by its end or `T`: a scan of the characters instead of a regex match.
 */
function isDayWithin(text: string, maxYear: number): boolean {
  let year = 0;
  let at = 0;
  while (at < text.length && isDigit(text.charCodeAt(at))) year = year * 10 + (text.charCodeAt(at++) - 48);
  if (at < 4 || at > 7 || text.charCodeAt(at) !== 45 /* - */ || text.charCodeAt(at + 3) !== 45) return false;
  const month = twoDigits(text, at + 1);
  const day = twoDigits(text, at + 4);
  const end = at + 6;
  if (month < 0 || day < 0 || (end < text.length && text.charCodeAt(end) !== 84) /* T */) return false;
  return (
    year >= 1 && year <= maxYear && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)
  );
}

function dayCheck(maxYear: number, what: string): ValueCheck {
  const expected = `${what} between years 1 and ${maxYear}`;
  return (value) =>
    typeof value === 'string' && isDayWithin(value, maxYear) ? undefined : { value, expected };
}

/**
 * `numeric(p,s)`: at most p−s digits before the point and s after — digits past the scale are
 * refused even though Postgres would round them away, since money is kept exactly as sent
 * (trailing zeros past the scale change nothing and pass).
 */
function numericCheck(type: PgType): ValueCheck {
  const typed = /^numeric\((\d+),(\d+)\)$/.exec(type);
  const [whole, scale] = typed
    ? [Number(typed[1]) - Number(typed[2]), Number(typed[2])]
    : [NUMERIC_LIMITS.whole, NUMERIC_LIMITS.scale];
  const expected = typed
    ? `a ${type} (at most ${whole} digits before the point and ${scale} after)`
    : `a numeric (at most ${whole} digits before the point and ${scale} after)`;
  return (value) => {
    const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
    return typeof text === 'string' && decimalFits(text, whole, scale) ? undefined : { value, expected };
  };
}

/**
 * Whether `text` is a decimal `-?digits[.digits]` with at most `whole` significant digits
 * before the point (leading zeros do not count) and `scale` after (trailing zeros do not count).
 */
function decimalFits(text: string, whole: number, scale: number): boolean {
  const length = text.length;
  let at = text.charCodeAt(0) === 45 /* - */ ? 1 : 0;
  const wholeStart = at;
  let significant = -1;
  for (; at < length && isDigit(text.charCodeAt(at)); at++)
    if (significant < 0 && text.charCodeAt(at) !== 48) significant = at;
  const wholeEnd = at;
  if (wholeEnd === wholeStart) return false;
  let fractionDigits = 0;
  if (at < length) {
    if (text.charCodeAt(at) !== 46 /* . */) return false;
    const fractionStart = ++at;
    for (; at < length && isDigit(text.charCodeAt(at)); at++)
      if (text.charCodeAt(at) !== 48) fractionDigits = at - fractionStart + 1;
    if (at === fractionStart || at < length) return false;
  }
  const wholeDigits = significant < 0 ? 0 : wholeEnd - significant;
  return wholeDigits <= whole && fractionDigits <= scale;
}

/**
 * A `jsonb` value: checked first by a walk that builds nothing, since nearly every tree is
 * clean; only a tree with a problem is walked again to name where it sits.
 */
function jsonCheck(value: unknown): ValueProblem | undefined {
  return isStorableJson(value) ? undefined : jsonProblem(value, '');
}

/** Whether `jsonProblem` finds nothing in `value` (the same walk, without paths). */
function isStorableJson(value: unknown): boolean {
  if (typeof value === 'string') return textProblem(value) === undefined;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isStorableJson(value[i])) return false;
    return true;
  }
  if (value && typeof value === 'object') {
    const tree = value as Record<string, unknown>;
    // for-in also visits inherited enumerable keys: a superset of what jsonProblem walks, so a
    // clean answer here is clean there (a false alarm only costs the second walk).
    for (const key in tree) if (textProblem(key) !== undefined || !isStorableJson(tree[key])) return false;
  }
  return true;
}

/** A JSON tree `jsonb` can hold: every key and string free of NUL and lone surrogates, every number finite. */
function jsonProblem(value: unknown, path: string): ValueProblem | undefined {
  if (typeof value === 'string') {
    const expected = textProblem(value);
    return expected ? { path, value, expected } : undefined;
  }
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : { path, value, expected: 'a finite number' };
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
    if (node && typeof node === 'object')
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [clean(key), walk(item)]));
    return node;
  };
  const out = walk(value);
  return { value: out, changed };
}
