/**
 * Readers of a decoded source record's shape: the record and its nested objects are object
 * nodes of the decoded tree (`TreeObject`, src/source/tree.ts).
 */
import { asList, RecordError } from '../source/field-readers.js';
import { isTreeObject, type TreeObject } from '../source/tree.js';

/** The record as an object, or a `RecordError` naming what it is instead. */
export function asObject(value: unknown, field: string): TreeObject {
  if (isTreeObject(value)) return value;
  throw new RecordError(field, value, 'an object');
}

/** An optional nested object (`lease.moveOutReason`), or an empty one when absent. */
export function nested(record: TreeObject, field: string): TreeObject {
  const value = record[field];
  if (value === undefined || value === null || value === '') return {};
  return asObject(value, field);
}

/**
 * The items of a plural container holding a singular key (`customers.customer`), whatever the
 * source did with it: absent, a bare object, an array. Accepts alternative item keys (r1's
 * `lineitem`).
 */
export function listOf(record: TreeObject, container: string, ...itemKeys: string[]): TreeObject[] {
  const holder = record[container];
  if (holder === undefined || holder === null || holder === '') return [];
  if (typeof holder === 'string')
    return asList(holder).map((item, index) => asObject(item, `${container}[${index}]`));
  const box = asObject(holder, container);
  const key = itemKeys.find((name) => box[name] !== undefined);
  return asList<unknown>(key ? box[key] : undefined).map((item, index) =>
    asObject(item, `${container}.${key}[${index}]`),
  );
}

/** The record without the given keys (the children that have tables of their own). */
export function without(record: TreeObject, keys: readonly string[]): TreeObject {
  const out: TreeObject = {};
  // The keys alone, not an [key, value] pair each: this runs for every record.
  for (const key of Object.keys(record)) if (!keys.includes(key)) out[key] = record[key];
  return out;
}

/** The record's `id` as text when it has a usable one, for quarantine entries. */
export function idOf(record: unknown, field = 'id'): string | undefined {
  if (!record || typeof record !== 'object') return undefined;
  const value = (record as Record<string, unknown>)[field];
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return value.trim();
  return undefined;
}
