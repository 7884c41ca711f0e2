import { sql, type RawBuilder } from 'kysely';
import { ACCOUNT_COLUMN, type AnyDatabase, type SourceTable } from '../schema.js';
import type { LoadRow } from './rows.js';
import { ident, sameKey } from './sql-names.js';

/** Rows marked deleted (never removed): children a parent no longer lists, parents no longer seen. */

/**
 * For parents fetched whole: marks deleted the child rows of those parents that the source no
 * longer lists (not among `keptRows`). Rows are never removed. Returns how many were marked.
 */
export async function markMissingChildren(
  db: AnyDatabase,
  spec: SourceTable,
  parentIds: readonly number[],
  keptRows: readonly LoadRow[],
  runId: number,
  account: string,
): Promise<number> {
  if (!spec.parentColumn || parentIds.length === 0) return 0;
  const kept = amongRows(spec, keptRows);
  const result = await markDeleted(
    spec,
    runId,
    account,
    sql`${ident(spec.parentColumn)} = any(${parentIds as number[]}::bigint[]) and not ${kept}`,
  ).execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * The table's row has the key of one of `rows` (their keys an array parameter a column). An
 * anti-join (hashed) under `not`, not `key <> all(array)`: that compares every row with every
 * kept key, which took half a second a page on a property's AR ledger.
 */
export function amongRows(spec: SourceTable, rows: readonly LoadRow[]): RawBuilder<unknown> {
  const keyArrays = spec.key.map((column) => rows.map((row) => row[column] as number));
  return sql`exists (
    select 1
      from unnest(${sql.join(keyArrays.map((values) => sql`${values}::bigint[]`))})
        as k(${sql.join(spec.key.map(ident))})
    where ${sameKey(spec, 'k')})`;
}

/**
 * The statement that marks deleted the live rows of an account in `spec` that `condition` names (rows are
 * never removed).
 */
export function markDeleted(
  spec: SourceTable,
  runId: number,
  account: string,
  condition: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return sql`update ${sql.table(spec.name)} set deleted_at = now(), last_synced_at = now(), last_run_id = ${runId}
    where ${ident(ACCOUNT_COLUMN)} = ${account} and deleted_at is null and ${condition}`;
}

/** Marks deleted the not-yet-deleted rows of `spec` whose `column` is among `values`. */
export async function markDeletedWhere(
  db: AnyDatabase,
  spec: SourceTable,
  column: string,
  values: readonly number[],
  runId: number,
  account: string,
): Promise<number> {
  if (values.length === 0) return 0;
  const result = await markDeleted(
    spec,
    runId,
    account,
    sql`${ident(column)} = any(${values as number[]}::bigint[])`,
  ).execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Marks deleted the parent rows in scope (`column` among `values`) whose key is not among the
 * keys `seen` (a subquery over the sync's record of keys), and their children. Returns how many
 * rows were marked.
 */
export async function markUnseenDeleted(
  db: AnyDatabase,
  tables: readonly SourceTable[],
  scope: { column: string; values: readonly number[] },
  seen: (key: RawBuilder<unknown>) => RawBuilder<boolean>,
  runId: number,
  account: string,
): Promise<number> {
  const [parent, ...children] = tables;
  const key = sql.ref(`p.${parent.key[0]}`);
  const { rows } = await sql<{ key: number }>`
    update ${sql.table(parent.name)} p set deleted_at = now(), last_synced_at = now(), last_run_id = ${runId}
    where p.${ident(ACCOUNT_COLUMN)} = ${account}
       and p.${ident(scope.column)} = any(${scope.values as number[]}::bigint[])
       and p.deleted_at is null and not (${seen(key)})
    returning ${key} as key
  `.execute(db);
  const gone = rows.map((row) => Number(row.key));
  let deleted = gone.length;
  for (const child of children)
    deleted += await markDeletedWhere(db, child, child.parentColumn!, gone, runId, account);
  return deleted;
}
