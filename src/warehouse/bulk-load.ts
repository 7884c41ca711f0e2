import { sql, type Kysely } from 'kysely';
import type { TableSpec } from './table-specs.js';

/** A typed row for a source table: its columns plus the source record as `raw`. */
export type LoadRow = Record<string, unknown> & { raw: unknown };

/** What an upsert did. */
export interface UpsertCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

const ident = (name: string) => sql.ref(name);

/**
 * Keeps the last row of each key, so one statement never touches a row twice, in key order, so
 * that concurrent transactions lock shared rows in the same order.
 */
export function dedupeByKey(spec: TableSpec, rows: readonly LoadRow[]): LoadRow[] {
  const byKey = new Map<string, LoadRow>();
  for (const row of rows) byKey.set(spec.key.map((k) => String(row[k])).join('\u0000'), row);
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
 * Set-based upsert of one table's rows: one statement whatever the number of rows, the rows
 * passed as one JSON parameter and read with `json_to_recordset`, `INSERT ... ON CONFLICT DO UPDATE ... WHERE` the row
 * differs, so a row whose content did not change is not written at all (no new row version).
 * A row seen again after being marked deleted is revived. `last_synced_at`/`last_run_id` move
 * only on rows actually written.
 */
export async function upsertRows(db: Kysely<any>, spec: TableSpec, rows: readonly LoadRow[], runId: number): Promise<UpsertCounts> {
  const unique = dedupeByKey(spec, rows);
  if (unique.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
  const all = [...Object.keys(spec.columns), 'raw'];
  const definitions = sql.join(all.map((column) => sql`${ident(column)} ${sql.raw(column === 'raw' ? 'jsonb' : spec.columns[column])}`));
  const names = sql.join(all.map((column) => ident(column)));
  const table = sql.table(spec.name);
  const updatable = all.filter((column) => !spec.key.includes(column));
  const assignments = sql.join(updatable.map((column) => sql`${ident(column)} = excluded.${ident(column)}`));
  const current = sql.join([...updatable, 'deleted_at'].map((column) => sql`${sql.raw(spec.name)}.${ident(column)}`));
  const incoming = sql.join([...updatable, 'deleted_at'].map((column) => sql`excluded.${ident(column)}`));
  // The batch travels as one JSON document (serialized natively, parsed by Postgres into typed
  // columns), which is several times cheaper than one array parameter per column.
  const result = await sql<{ inserted: number; updated: number }>`
    with written as (
      insert into ${table} (${names}, last_run_id)
      select ${names}, ${runId}::bigint from json_to_recordset(${JSON.stringify(unique)}::json) as i(${definitions})
      on conflict (${sql.join(spec.key.map(ident))}) do update set
        ${assignments}, deleted_at = null, last_synced_at = now(), last_run_id = excluded.last_run_id
      where (${current}) is distinct from (${incoming})
      returning (xmax = 0) as inserted
    )
    select count(*) filter (where inserted)::int as inserted, count(*) filter (where not inserted)::int as updated from written
  `.execute(db);
  const { inserted, updated } = result.rows[0];
  return { inserted, updated, unchanged: unique.length - inserted - updated };
}

/**
 * For parents fetched whole: marks deleted the child rows of those parents that the source no
 * longer lists (not among `keptRows`). Rows are never removed. Returns how many were marked.
 */
export async function markMissingChildren(
  db: Kysely<any>,
  spec: TableSpec,
  parentIds: readonly number[],
  keptRows: readonly LoadRow[],
  runId: number,
): Promise<number> {
  if (!spec.parentColumn || parentIds.length === 0) return 0;
  const table = sql.table(spec.name);
  const keyArrays = spec.key.map((column) => keptRows.map((row) => row[column] as number));
  const keep =
    spec.key.length === 1
      ? sql`not (${ident(spec.key[0])} = any(${keyArrays[0]}::bigint[]))`
      : sql`not exists (
          select 1 from unnest(${sql.join(keyArrays.map((values) => sql`${values}::bigint[]`))}) as k(${sql.join(spec.key.map(ident))})
          where ${sql.join(
            spec.key.map((column) => sql`k.${ident(column)} = ${sql.raw(spec.name)}.${ident(column)}`),
            sql` and `,
          )})`;
  const result = await sql`
    update ${table} set deleted_at = now(), last_synced_at = now(), last_run_id = ${runId}
    where ${ident(spec.parentColumn)} = any(${parentIds as number[]}::bigint[]) and deleted_at is null and ${keep}
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Marks deleted the not-yet-deleted rows of `spec` whose `column` is among `values`. */
export async function markDeletedWhere(db: Kysely<any>, spec: TableSpec, column: string, values: readonly number[], runId: number): Promise<number> {
  if (values.length === 0) return 0;
  const result = await sql`
    update ${sql.table(spec.name)} set deleted_at = now(), last_synced_at = now(), last_run_id = ${runId}
    where ${ident(column)} = any(${values as number[]}::bigint[]) and deleted_at is null
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
