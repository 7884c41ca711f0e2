import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { prepared } from '../prepared.js';
import {
  ACCOUNT_COLUMN,
  type AnyDatabase,
  loadColumns,
  ROW_HASH_COLUMN,
  type SourceTable,
} from '../schema.js';
import { copyLine } from './encode.js';
import { keyText, type LoadRow } from './rows.js';
import { ident } from './sql-names.js';

/**
 * The digests of child rows that carry their own (`rowHash` tables): a page's rows that match
 * what is stored are neither sent nor merged. Why: docs/sync.md#rows-known-by-their-digest
 */

/** Sets each row's `row_hash`: the digest of its other columns' values as COPY sends them. */
export function digestRows(spec: SourceTable, rows: readonly LoadRow[]): void {
  const line = copyLine(loadColumns(spec).filter(([column]) => column !== ROW_HASH_COLUMN));
  for (const row of rows) row[ROW_HASH_COLUMN] = createHash('sha1').update(line(row)).digest('base64');
}

/**
 * The digests stored with the live rows of these parents (by `keyText`), rows without one left
 * out: those are sent and merged, and get theirs then.
 */
export async function storedRowDigests(
  db: AnyDatabase,
  spec: SourceTable,
  parents: readonly number[],
  account: string,
): Promise<Map<string, string>> {
  if (parents.length === 0 || !spec.parentColumn) return new Map();
  const { rows } = await prepared(sql<Record<string, unknown>>`
    select ${sql.join(spec.key.map(ident))}, ${ident(ROW_HASH_COLUMN)} as digest
      from ${sql.table(spec.name)}
     where ${ident(ACCOUNT_COLUMN)} = ${account}
       and ${ident(spec.parentColumn)} = any(${parents as number[]}::bigint[])
       and deleted_at is null and ${ident(ROW_HASH_COLUMN)} is not null`).execute(db);
  return new Map(rows.map((row) => [keyText(spec.key, row), row.digest as string]));
}
