/** A normalized record taken whole, its parts (`NormalizedRecord.parts`) folded in. */
import type { LoadRow } from '../warehouse/bulk-load/index.js';
import type { NormalizedRecord, RowsByTable } from './types.js';

/** A record's rows with those of each part that was read, its notes and theirs, and the parts that failed. */
export interface WholeRecord {
  rows: { [table: string]: LoadRow[] };
  notes: string[];
  failed: { label: string; error: unknown }[];
}

/** Folds a record's parts into it: what a reader that takes records whole (verify, a test) compares. */
export function wholeRecord(normalized: NormalizedRecord<RowsByTable>): WholeRecord {
  const whole: WholeRecord = { rows: {}, notes: [...(normalized.notes ?? [])], failed: [] };
  const add = (rows: RowsByTable) => {
    for (const [table, tableRows] of Object.entries(rows))
      for (const row of tableRows ?? []) (whole.rows[table] ??= []).push(row);
  };
  add(normalized.rows);
  for (const part of normalized.parts ?? []) {
    if ('error' in part) whole.failed.push(part);
    else {
      add(part.rows);
      whole.notes.push(...(part.notes ?? []));
    }
  }
  return whole;
}
