import { sql } from 'kysely';
import { dedupeByKey, type LoadRow } from './bulk-load/index.js';
import {
  ACCOUNT_COLUMN,
  DIGEST_COLUMNS,
  SYNC_COLUMNS,
  type AnyDatabase,
  type SourceTable,
} from './schema.js';

/**
 * How a table's live rows compare with rows freshly normalized from the source, key by key:
 * the statement is built from the table's declaration, so any stream's table compares alike.
 */

/** One row that differs from the source: its key and the columns whose values differ. */
export interface DifferingRow {
  key: string;
  columns: string[];
}

/** What a comparison of one table found. */
export interface TableComparison {
  /** Rows looked at: the source's and the warehouse's, each key once. */
  checked: number;
  /** Keys the source lists that the warehouse has no live row of. */
  missing: string[];
  /** Keys of live warehouse rows the source no longer lists. */
  extra: string[];
  differing: DifferingRow[];
}

/**
 * Columns compared for content: every declared column but the account, the key and what the
 * loader sets itself (deletion mark, first and last sync times, run id, the record digests).
 * `raw` is compared too, as jsonb (key order and number spelling do not count).
 */
export function contentColumns(table: SourceTable): string[] {
  const bookkeeping = new Set<string>([
    ACCOUNT_COLUMN,
    ...DIGEST_COLUMNS,
    ...Object.keys(SYNC_COLUMNS).filter((column) => column !== 'raw'),
  ]);
  return Object.keys(table.columns).filter(
    (column) => !bookkeeping.has(column) && !table.key.includes(column),
  );
}

/** A key as shown to an operator: `lease_id=7` or `lease_id=7,customer_id=9`. */
export function keyText(table: SourceTable, values: readonly unknown[]): string {
  return table.key.map((column, index) => `${column}=${String(values[index])}`).join(',');
}

/** The column of `table` that names its parent record: the key of the parent table, the parent column of a child. */
export function parentKeyColumn(table: SourceTable): string {
  return table.parentColumn ?? table.key[0];
}

/** The declared type as `jsonb_to_recordset` is told it. */
function recordsetColumn(table: SourceTable, column: string) {
  return sql`${sql.id(column)} ${sql.raw(table.columns[column].type)}`;
}

/**
 * Compares the live rows of `table` (of `account`) that belong to the parent records `parents`
 * with `fresh`, the rows the source's records of those parents normalize to. Both sides are
 * read by Postgres in the declared types, so `12.5` and `12.50`, two spellings of one instant,
 * or a jsonb with its keys in another order are equal. Reads only.
 */
export async function compareTable(
  db: AnyDatabase,
  account: string,
  table: SourceTable,
  parents: readonly number[],
  fresh: readonly LoadRow[],
): Promise<TableComparison> {
  const rows = dedupeByKey(table, fresh);
  const content = contentColumns(table);
  const columns = [...table.key, ...content];
  const json = JSON.stringify(
    rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column] ?? null]))),
  );
  const pick = (alias: string) => sql.join(columns.map((column) => sql.ref(`${alias}.${column}`)));
  const joinOn = sql.join(
    table.key.map((column) => sql`f.${sql.id(column)} = w.${sql.id(column)}`),
    sql` and `,
  );
  const keyOut = sql.join(table.key.map((column) => sql`coalesce(f.${sql.id(column)}, w.${sql.id(column)})`));
  const differs = content.length
    ? sql.join(
        content.map(
          (column) =>
            sql`case when f.${sql.id(column)} is distinct from w.${sql.id(column)} then ${column}::text end`,
        ),
      )
    : sql`null::text`;
  const first = table.key[0];
  const { rows: result } = await sql<{
    checked: number;
    drift: { key: unknown[]; missing: boolean; extra: boolean; columns: string[] }[];
  }>`
    with f as (
      select * from jsonb_to_recordset(${json}::jsonb)
               as f(${sql.join(columns.map((column) => recordsetColumn(table, column)))})
    ),
    w as (
      select ${pick('t')} from ${sql.table(table.name)} t
      where t.${sql.id(ACCOUNT_COLUMN)} = ${account} and t.deleted_at is null
        and t.${sql.id(parentKeyColumn(table))} = any(${parents as number[]}::bigint[])
    ),
    j as (
      select jsonb_build_array(${keyOut}) as key,
        w.${sql.id(first)} is null as missing, f.${sql.id(first)} is null as extra,
        array_remove(array[${differs}], null) as columns
      from f full join w on ${joinOn}
    )
    select count(*)::int as checked,
      coalesce(jsonb_agg(jsonb_build_object('key', key, 'missing', missing, 'extra', extra, 'columns', columns)
                         order by key)
        filter (where missing or extra or cardinality(columns) > 0), '[]'::jsonb) as drift
    from j
  `.execute(db);
  const { checked, drift } = result[0];
  const out: TableComparison = { checked, missing: [], extra: [], differing: [] };
  for (const row of drift) {
    const key = keyText(table, row.key);
    if (row.missing) out.missing.push(key);
    else if (row.extra) out.extra.push(key);
    else out.differing.push({ key, columns: row.columns });
  }
  return out;
}

/**
 * The parent records of `scope` live in the warehouse: the parent key column of `table` (the
 * parent table, or a child naming its parent) where `column` is one of `values`.
 */
export async function parentsInScope(
  db: AnyDatabase,
  account: string,
  table: SourceTable,
  column: string,
  values: readonly number[],
): Promise<number[]> {
  const parent = parentKeyColumn(table);
  const { rows } = await sql<{ id: string | number }>`
    select distinct ${sql.id(parent)} as id from ${sql.table(table.name)}
    where ${sql.id(ACCOUNT_COLUMN)} = ${account} and deleted_at is null
      and ${sql.id(column)} = any(${values as number[]}::bigint[])
  `.execute(db);
  return rows.map((row) => Number(row.id));
}
