/**
 * The encoding of a method's parameters to the strings the source expects: dates `MM/DD/YYYY`
 * (a `Date` read in the configured time zone), booleans `"0"`/`"1"`, id lists one
 * comma-separated string. Unknown or malformed parameters are rejected here, before any call.
 * Which parameters a method takes is said by its descriptor (`SourceMethod.params`).
 */
import { DateTime } from 'luxon';
import type { MethodVersion } from './settings.js';
import { isValidDate } from '../dates/calendar.js';
import { BadParameterError } from './errors.js';
import type { ParamKind, ParamValue, RequestParams, SourceMethod } from './types.js';

/** Encodes a parameter value of the given kind, or explains why it cannot. */
type Encoder = (value: ParamValue, timeZone: string) => string | { problem: string };

const pad2 = (n: number): string => String(n).padStart(2, '0');

function encodeId(value: ParamValue): string | { problem: string } {
  if (typeof value === 'number')
    return Number.isSafeInteger(value) && value >= 0
      ? String(value)
      : { problem: `${value} is not an id (a non-negative integer)` };
  if (typeof value === 'string' && /^\d{1,16}$/.test(value.trim())) return value.trim();
  return { problem: `${JSON.stringify(value)} is not an id (digits)` };
}

function encodeIdList(value: ParamValue): string | { problem: string } {
  const items = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? value.split(',')
      : [value as ParamValue];
  if (items.length === 0 || (items.length === 1 && String(items[0]).trim() === '')) {
    return { problem: 'is an empty list (leave the parameter out instead, which means no filter)' };
  }
  const out: string[] = [];
  for (const item of items) {
    const id = encodeId(typeof item === 'string' ? item.trim() : item);
    if (typeof id !== 'string') return { problem: `holds ${id.problem}` };
    out.push(id);
  }
  return out.join(',');
}

/** `Date`, `YYYY-MM-DD` or `MM/DD/YYYY` → `MM/DD/YYYY` (a Date read in the time zone). */
function encodeDate(value: ParamValue, timeZone: string): string | { problem: string } {
  let day: { year: number; month: number; day: number } | undefined;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return { problem: 'is an invalid Date' };
    day = DateTime.fromJSDate(value, { zone: timeZone });
  } else if (typeof value === 'string') {
    const text = value.trim();
    let m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
    if (m) day = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
    m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text);
    if (m) day = { year: Number(m[3]), month: Number(m[1]), day: Number(m[2]) };
  }
  if (!day || !isValidDate(day.year, day.month, day.day))
    return { problem: `${JSON.stringify(value)} is not a date (YYYY-MM-DD or a Date)` };
  return `${pad2(day.month)}/${pad2(day.day)}/${String(day.year).padStart(4, '0')}`;
}

/** `YYYY-MM`, `YYYY-MM-01`, `MM/YYYY`, `MM/01/YYYY` or a Date → `MM/YYYY`. */
function encodePostMonth(value: ParamValue, timeZone: string): string | { problem: string } {
  let year: number | undefined;
  let month: number | undefined;
  if (value instanceof Date) {
    const day = DateTime.fromJSDate(value, { zone: timeZone });
    if (day.isValid) [year, month] = [day.year, day.month];
  } else if (typeof value === 'string') {
    const text = value.trim();
    let m = /^(\d{4})-(\d{2})(?:-01)?$/.exec(text);
    if (m) [year, month] = [Number(m[1]), Number(m[2])];
    m = /^(\d{2})\/(?:01\/)?(\d{4})$/.exec(text);
    if (m) [year, month] = [Number(m[2]), Number(m[1])];
  }
  if (year === undefined || month === undefined || month < 1 || month > 12) {
    return { problem: `${JSON.stringify(value)} is not a post month (YYYY-MM, YYYY-MM-01 or MM/YYYY)` };
  }
  return `${pad2(month)}/${year}`;
}

function encodeBoolean(value: ParamValue): string | { problem: string } {
  if (value === true || value === 1 || value === '1') return '1';
  if (value === false || value === 0 || value === '0') return '0';
  return { problem: `${JSON.stringify(value)} is not a boolean (true/false or 0/1)` };
}

function encodeText(value: ParamValue): string | { problem: string } {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.trim() !== '') return value;
  return { problem: `${JSON.stringify(value)} is not a non-empty text` };
}

const ENCODERS: Readonly<Record<ParamKind, Encoder>> = {
  id: encodeId,
  idList: encodeIdList,
  text: encodeText,
  date: encodeDate,
  boolean: encodeBoolean,
  postMonth: encodePostMonth,
};

/**
 * The parameters of a request as the strings the source expects, in a stable order, checked
 * against the method's list for the version: an unknown name, a value of the wrong kind or a
 * missing required parameter throws `BadParameterError` naming it. `undefined` values are left
 * out. The method's `adapt` first rewrites what differs between versions.
 */
export function encodeParams(
  method: SourceMethod,
  version: MethodVersion,
  params: Readonly<RequestParams>,
  timeZone: string,
): Record<string, string> {
  const specs = method.params;
  const name = method.name;
  const input: RequestParams = method.adapt ? method.adapt({ ...params }, version) : { ...params };
  const out: Record<string, string> = {};
  const fail = (parameter: string, problem: string): never => {
    throw new BadParameterError(`parameter ${parameter} ${problem}`, { method: name, parameter });
  };
  for (const key of Object.keys(input)) {
    const spec = specs[key];
    if (!spec) {
      const known = Object.keys(specs).filter(
        (other) => !specs[other].versions || specs[other].versions.includes(version),
      );
      fail(key, `is not a parameter of ${name} ${version}; known: ${known.join(', ')}`);
    } else if (spec.versions && !spec.versions.includes(version) && input[key] !== undefined) {
      fail(key, `is not taken by ${name} ${version} (only ${spec.versions.join(', ')})`);
    }
  }
  for (const [key, spec] of Object.entries(specs)) {
    const value = input[key];
    if (value === undefined || value === null) {
      if (spec.required) fail(key, `is required by ${name}`);
      continue;
    }
    const encoded = ENCODERS[spec.kind](value, timeZone);
    if (typeof encoded !== 'string') fail(key, encoded.problem);
    else out[key] = encoded;
  }
  return out;
}
