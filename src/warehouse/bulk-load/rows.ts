import type { SourceTable } from '../schema.js';

/** The rows a load writes, and the keeping of one row per key. */

/** A row of a source table as normalization produced it: its columns plus the source record as `raw`. */
export type LoadRow = Record<string, unknown> & { raw: unknown };

/** What an upsert did. */
export interface UpsertCounts {
  inserted: number;
  updated: number;
  unchanged: number;
  /** Rows marked deleted (with `UpsertOptions.parents`). */
  deleted?: number;
}

/**
 * Keeps the last row of each key, so one statement never touches a row twice, in key order, so
 * that concurrent transactions lock shared rows in the same order.
 */
export function dedupeByKey(spec: SourceTable, rows: readonly LoadRow[]): LoadRow[] {
  const byKey = new Map<unknown, LoadRow>();
  const keyOf = keyFunction(spec.key, rows);
  for (const row of rows) byKey.set(keyOf(row), row);
  const compare = (a: LoadRow, b: LoadRow) => {
    for (const k of spec.key) {
      const x = a[k] as number | string;
      const y = b[k] as number | string;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
  return [...byKey.values()].sort(compare);
}

/**
 * What tells two rows' keys apart: the number itself for one numeric column (two numbers are
 * the same key exactly when their texts are, 0 and -0 included), else the text of the key
 * columns.
 */
function keyFunction(key: readonly string[], rows: readonly LoadRow[]): (row: LoadRow) => unknown {
  const [first] = key;
  if (key.length === 1 && rows.every((row) => typeof row[first] === 'number')) return (row) => row[first];
  return (row) => keyText(key, row);
}

/** A row's key columns as one text, the same for a row as normalized and as read back. */
export function keyText(key: readonly string[], row: Record<string, unknown>): string {
  return key.map((k) => String(row[k])).join('\u0000');
}
