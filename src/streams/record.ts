import { asList, RecordError } from '../source/field-readers.js';

/** A decoded source record: a plain tree whose leaves are strings. */
export type Tree = Record<string, unknown>;

/** The record as an object, or a `RecordError` naming what it is instead. */
export function asTree(value: unknown, field: string): Tree {
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Tree;
  throw new RecordError(field, value, 'an object');
}

/** An optional nested object (`lease.moveOutReason`), or an empty one when absent. */
export function nested(record: Tree, field: string): Tree {
  const value = record[field];
  if (value === undefined || value === null || value === '') return {};
  return asTree(value, field);
}

/**
 * The items of a plural container holding a singular key (`customers.customer`), whatever the
 * source did with it: absent, a bare object, an array. Accepts alternative item keys (r1's
 * `lineitem`).
 */
export function listOf(record: Tree, container: string, ...itemKeys: string[]): Tree[] {
  const holder = record[container];
  if (holder === undefined || holder === null || holder === '') return [];
  if (typeof holder === 'string') return asList<Tree>(holder).map((item, index) => asTree(item, `${container}[${index}]`));
  const box = asTree(holder, container);
  const key = itemKeys.find((name) => box[name] !== undefined);
  return asList<unknown>(key ? box[key] : undefined).map((item, index) => asTree(item, `${container}.${key}[${index}]`));
}

/** The record without the given keys (the children that have tables of their own). */
export function without(record: Tree, keys: readonly string[]): Tree {
  const out: Tree = {};
  // The keys alone, not an [key, value] pair each: this runs for every record.
  for (const key of Object.keys(record)) if (!keys.includes(key)) out[key] = record[key];
  return out;
}

/** The record's `id` as text when it has a usable one, for quarantine entries. */
export function idOf(record: unknown, field = 'id'): string | undefined {
  if (!record || typeof record !== 'object') return undefined;
  const value = (record as Tree)[field];
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return value.trim();
  return undefined;
}
