/**
 * The source's quirks, handled once. Streams read decoded records only through these helpers;
 * each takes the raw value and the field's name, returns the typed value (`null` when the
 * field is absent or empty) and throws `RecordError` (field and offending value) when the value
 * is not of the field's kind, so that one bad record can be quarantined without stopping a run.
 */
import { isValidDate } from '../dates/calendar.js';
import { RecordError } from './errors.js';

export { RecordError } from './errors.js';

/**
 * While `tracingFields` runs, the field each helper below read a value from, by the value it
 * returned: a check made later on the typed rows (a column's domain) can then name the source
 * field its offending value came from. Normalization is synchronous, so one trace at a time.
 */
let fieldTrace: Map<unknown, string> | undefined;

/** A field helper that notes, while tracing, which field its result came from. */
function noted<T>(
  read: (value: unknown, field: string) => T | null,
): (value: unknown, field: string) => T | null {
  return (value, field) => {
    const result = read(value, field);
    if (fieldTrace && result !== null && !fieldTrace.has(result)) fieldTrace.set(result, field);
    return result;
  };
}

/** Runs `work` (a normalization) and returns its result with the source field each typed value was read from. */
export function tracingFields<T>(work: () => T): { result: T; fieldOf(value: unknown): string | undefined } {
  const trace = new Map<unknown, string>();
  const outer = fieldTrace;
  fieldTrace = trace;
  try {
    return { result: work(), fieldOf: (value) => trace.get(value) };
  } finally {
    fieldTrace = outer;
  }
}

/** Texts the source sends instead of an empty list (matched case-insensitively at the start). */
export const NO_RECORDS_TEXTS = ['No records found'] as const;

function isNoRecordsText(value: string): boolean {
  const lower = value.trimStart().toLowerCase();
  return NO_RECORDS_TEXTS.some((text) => lower.startsWith(text.toLowerCase()));
}

/** `undefined`, `null` and the empty string: a field that is absent. */
function isAbsent(value: unknown): value is undefined | null | '' {
  return value === undefined || value === null || value === '';
}

/**
 * A list whatever its shape: absent, empty or "No records found ..." → `[]`; a bare object
 * (one element sent without its array) → `[object]`; an array as it is.
 */
export function asList<T = unknown>(value: unknown): T[] {
  if (Array.isArray(value)) return value as T[];
  if (isAbsent(value)) return [];
  if (typeof value === 'string' && isNoRecordsText(value)) return [];
  return [value as T];
}

/** Spellings of true that the source uses (compared case-insensitively). */
export const TRUE_TEXTS = ['1', 't', 'true'] as const;
/** Spellings of false (compared case-insensitively). */
export const FALSE_TEXTS = ['0', 'f', 'false'] as const;

/**
 * A boolean from 0/1, `"0"`/`"1"`, `"t"`/`"f"`, `"true"`/`"false"` or true/false; `null`
 * when absent or empty.
 */
export const asBoolean = noted(function asBoolean(value: unknown, field: string): boolean | null {
  if (isAbsent(value)) return null;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (value === 1) return true;
    if (value === 0) return false;
  } else if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if ((TRUE_TEXTS as readonly string[]).includes(text)) return true;
    if ((FALSE_TEXTS as readonly string[]).includes(text)) return false;
  }
  throw new RecordError(field, value, 'a boolean (0/1, t/f, true/false)');
});

const pad2 = (n: number): string => String(n).padStart(2, '0');
const pad4 = (n: number): string => String(n).padStart(4, '0');

/**
 * The number written by the characters of `text` from `start` to `end`, or -1 when there are
 * none or one is not an ASCII digit: the field readers scan characters rather than run regexes.
 */
function digitsAt(text: string, start: number, end: number): number {
  if (end <= start) return -1;
  let n = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i) - 48;
    if (code < 0 || code > 9) return -1;
    n = n * 10 + code;
  }
  return n;
}

/** The parts of a real date, or undefined (`digitsAt`'s -1 is no year, month or day). */
function validDay(
  year: number,
  month: number,
  day: number,
): { year: number; month: number; day: number } | undefined {
  return isValidDate(year, month, day) ? { year, month, day } : undefined;
}

/**
 * Parses `MM/DD/YYYY` (one or two digits of month and day) or an already ISO `YYYY-MM-DD` into its parts, or undefined.
 */
function parseDay(text: string): { year: number; month: number; day: number } | undefined {
  const first = text.indexOf('/');
  if (first === -1) {
    if (text.length !== 10 || text.charCodeAt(4) !== 45 /* - */ || text.charCodeAt(7) !== 45)
      return undefined;
    return validDay(digitsAt(text, 0, 4), digitsAt(text, 5, 7), digitsAt(text, 8, 10));
  }
  const second = text.indexOf('/', first + 1);
  if (first > 2 || second - first < 2 || second - first > 3 || text.length - second !== 5) return undefined;
  return validDay(
    digitsAt(text, second + 1, text.length),
    digitsAt(text, 0, first),
    digitsAt(text, first + 1, second),
  );
}

/** A date `MM/DD/YYYY` → `YYYY-MM-DD` (the calendar checked); `null` when absent or empty. */
export const asDate = noted(function asDate(value: unknown, field: string): string | null {
  if (isAbsent(value)) return null;
  const text = typeof value === 'string' ? value.trim() : '';
  const parts = parseDay(text);
  if (!parts) throw new RecordError(field, value, 'a date MM/DD/YYYY');
  // An ISO day (a US one has no '-') is already written as it would be.
  if (text.charCodeAt(4) === 45 /* - */) return text;
  return `${pad4(parts.year)}-${pad2(parts.month)}-${pad2(parts.day)}`;
});

/** UTC offsets of the Mountain Time abbreviations the source writes after datetimes. */
export const MOUNTAIN_OFFSETS = { MDT: '-06:00', MST: '-07:00' } as const;

const DATETIME =
  /^(\d{1,2})\/(\d{1,2})\/(\d{4})[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(MDT|MST)?$/i;

/**
 * A datetime `MM/DD/YYYY HH:MM:SS[.ffffff] MDT|MST` → ISO 8601 with its offset
 * (`2024-07-01T09:30:00.123456-06:00`): MDT is UTC−6, MST UTC−7, which also settles the
 * repeated hour of the autumn change. Without an abbreviation the wall time is read in
 * America/Denver. `null` when absent or empty.
 */
export const asDateTime = noted(function asDateTime(value: unknown, field: string): string | null {
  if (isAbsent(value)) return null;
  const m = typeof value === 'string' ? DATETIME.exec(value.trim()) : null;
  if (!m) throw new RecordError(field, value, 'a datetime MM/DD/YYYY HH:MM:SS MDT|MST');
  const [year, month, day, hour, minute, second] = [m[3], m[1], m[2], m[4], m[5], m[6] ?? '0'].map(Number);
  if (!isValidDate(year, month, day) || hour > 23 || minute > 59 || second > 59) {
    throw new RecordError(field, value, 'a valid datetime MM/DD/YYYY HH:MM:SS MDT|MST');
  }
  const fraction = m[7] ? `.${m[7]}` : '';
  const wall = `${pad4(year)}-${pad2(month)}-${pad2(day)}T${pad2(hour)}:${pad2(minute)}:${pad2(second)}${fraction}`;
  const zone = m[8]?.toUpperCase() as keyof typeof MOUNTAIN_OFFSETS | undefined;
  return `${wall}${zone ? MOUNTAIN_OFFSETS[zone] : denverOffset(year, month, day, hour)}`;
});

/**
 * The UTC offset of a wall time in America/Denver (US rules since 2007: daylight time from the
 * second Sunday of March 02:00 to the first Sunday of November 02:00; the repeated hour is
 * read as daylight time).
 */
function denverOffset(year: number, month: number, day: number, hour: number): string {
  const nthSunday = (m: number, n: number): number => {
    const first = new Date(Date.UTC(year, m - 1, 1)).getUTCDay();
    return 1 + ((7 - first) % 7) + (n - 1) * 7;
  };
  const start = nthSunday(3, 2);
  const end = nthSunday(11, 1);
  const key = month * 10_000 + day * 100 + hour;
  const daylight = key >= 3 * 10_000 + start * 100 + 2 && key < 11 * 10_000 + end * 100 + 2;
  return daylight ? MOUNTAIN_OFFSETS.MDT : MOUNTAIN_OFFSETS.MST;
}

const POST_MONTH = /^(\d{1,2})\/(?:(\d{1,2})\/)?(\d{4})$/;

/** A post month `MM/01/YYYY` or `MM/YYYY` → `YYYY-MM-01`; `null` when absent or empty. */
export const asPostMonth = noted(function asPostMonth(value: unknown, field: string): string | null {
  if (isAbsent(value)) return null;
  const m = typeof value === 'string' ? POST_MONTH.exec(value.trim()) : null;
  const month = m ? Number(m[1]) : 0;
  if (!m || month < 1 || month > 12 || (m[2] !== undefined && Number(m[2]) !== 1)) {
    throw new RecordError(field, value, 'a post month MM/01/YYYY or MM/YYYY');
  }
  return `${m[3]}-${pad2(month)}-01`;
});

const MONEY = /^([+-]?)\s*(\$?)\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * Money as an exact decimal string: `"1470.00"`, a JSON number's text (`-12.5`), an optional
 * `$` with the sign before or after it (`"$-2500.00"`, `"-$2500.00"`) and thousands commas
 * → `"1470.00"`, `"-12.5"`, `"-2500.00"`. Digits are kept as sent (no float arithmetic, no
 * rounding); `null` when absent or empty.
 */
export const asMoney = noted(function asMoney(value: unknown, field: string): string | null {
  if (isAbsent(value)) return null;
  let text: string;
  if (typeof value === 'string') {
    const plain = plainMoney(value);
    if (plain !== undefined) return plain;
    text = value.trim().replace(/,(?=\d{3}(?:\D|$))/g, '');
  } else if (typeof value === 'number' && Number.isFinite(value)) {
    text = String(value);
    const plain = plainMoney(text);
    if (plain !== undefined) return plain;
  } else throw new RecordError(field, value, 'an amount of money');
  const m = MONEY.exec(text);
  if (!m || (m[1] && m[3]) || (m[4] === '' && (m[5] === undefined || m[5] === ''))) {
    throw new RecordError(field, value, 'an amount of money (a decimal such as 1470.00 or $-2500.00)');
  }
  let whole = m[4];
  let fraction = m[5] ?? '';
  if (m[6] !== undefined) {
    const shift = Number(m[6]);
    if (Math.abs(shift) > 40) throw new RecordError(field, value, 'an amount of money of a sensible size');
    const digits = whole + fraction;
    const point = whole.length + shift;
    if (point <= 0) {
      whole = '0';
      fraction = '0'.repeat(-point) + digits;
    } else if (point >= digits.length) {
      whole = digits + '0'.repeat(point - digits.length);
      fraction = '';
    } else {
      whole = digits.slice(0, point);
      fraction = digits.slice(point);
    }
  }
  whole = whole.replace(/^0+(?=\d)/, '') || '0';
  const magnitude = fraction ? `${whole}.${fraction}` : whole;
  const zero = /^[0.]*$/.test(magnitude);
  return m[1] === '-' || m[3] === '-' ? signed(magnitude, !zero) : magnitude;
});

/** A negative amount's text: zero has no sign. */
function signed(magnitude: string, nonZero: boolean): string {
  return nonZero ? `-${magnitude}` : magnitude;
}

/**
 * The amount of the plain money text the source sends nearly always, `[+-]digits[.digits]`
 * (no spaces, `$`, commas or exponent), read by one scan; undefined for any other text, which
 * `asMoney` reads (or refuses) with its full grammar. Gives what that grammar gives for it.
 */
function plainMoney(text: string): string | undefined {
  const length = text.length;
  const sign = text.charCodeAt(0);
  const start = sign === 45 /* - */ || sign === 43 /* + */ ? 1 : 0;
  let point = -1;
  let nonZero = false;
  for (let i = start; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === 46 /* . */ && point === -1) point = i;
    else if (code < 48 || code > 57) return undefined;
    else if (code !== 48) nonZero = true;
  }
  const wholeEnd = point === -1 ? length : point;
  const fractionStart = point === -1 ? length : point + 1;
  if (wholeEnd === start && fractionStart === length) return undefined;
  // Leading zeros go, but the last digit before the point stays.
  let wholeStart = start;
  while (wholeStart < wholeEnd - 1 && text.charCodeAt(wholeStart) === 48) wholeStart++;
  const whole = wholeStart === wholeEnd ? '0' : text.slice(wholeStart, wholeEnd);
  const magnitude = fractionStart === length ? whole : `${whole}.${text.slice(fractionStart)}`;
  return sign === 45 ? signed(magnitude, nonZero) : magnitude;
}

/**
 * An id: a string of digits or a non-negative integer → number; `null` when absent or empty.
 * Ids are held as JS numbers, exact up to 2^53−1: a longer id (a 25-digit one, or one past
 * what `bigint` holds) is an error naming the field, never a rounded number.
 */
export const asId = noted(function asId(value: unknown, field: string): number | null {
  if (isAbsent(value)) return null;
  const range = `an id within range (at most ${Number.MAX_SAFE_INTEGER})`;
  if (typeof value === 'number' && Number.isInteger(value)) {
    if (value > Number.MAX_SAFE_INTEGER) throw new RecordError(field, value, range);
    // -0 is the id 0, as its text "0" reads.
    if (value >= 0) return value === 0 ? 0 : value;
  }
  const digits = typeof value === 'string' ? value.trim() : undefined;
  const id = digits === undefined ? -1 : digitsAt(digits, 0, digits.length);
  if (id < 0) throw new RecordError(field, value, 'an id (digits)');
  if (!Number.isSafeInteger(id)) throw new RecordError(field, value, range);
  return id;
});

/** An integer (optional sign) as a string or a number → number; `null` when absent or empty. */
export const asInt = noted(function asInt(value: unknown, field: string): number | null {
  if (isAbsent(value)) return null;
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return value;
  } else if (typeof value === 'string' && /^[+-]?\d{1,16}$/.test(value.trim())) {
    const n = Number(value.trim());
    if (Number.isSafeInteger(n)) return n;
  }
  throw new RecordError(field, value, 'an integer');
});

/**
 * Text as sent (not trimmed); numbers and booleans as their text; `null` when absent or
 * empty. Objects and lists are not text.
 */
export const asText = noted(function asText(value: unknown, field: string): string | null {
  if (isAbsent(value)) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  throw new RecordError(field, value, 'text');
});

/** The value of a field that must be present: throws `RecordError` when it is `null`. */
export function required<T>(value: T | null, field: string): T {
  if (value === null) throw new RecordError(field, value, 'present (the field is required)');
  return value;
}
