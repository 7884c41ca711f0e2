import { sql, type Kysely } from 'kysely';
import { ACCOUNT_COLUMN, type Column, type Table } from '../../src/warehouse/schema.js';

/** A column of a migrated database, spelled the way declarations spell it. */
export interface MigratedColumn {
  name: string;
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}

interface ColumnRow {
  table_name: string;
  column_name: string;
  data_type: string;
  udt_name: string;
  numeric_precision: number | null;
  numeric_scale: number | null;
  is_nullable: 'YES' | 'NO';
  column_default: string | null;
}

/** A column as `information_schema` describes it, spelled the way declarations spell types. */
function described(row: ColumnRow): MigratedColumn {
  const type =
    row.data_type === 'ARRAY'
      ? `${{ _int8: 'bigint', _text: 'text', _int4: 'integer' }[row.udt_name] ?? row.udt_name}[]`
      : row.data_type === 'numeric' && row.numeric_precision !== null
        ? `numeric(${row.numeric_precision},${row.numeric_scale})`
        : row.data_type === 'timestamp with time zone'
          ? 'timestamptz'
          : row.data_type;
  return {
    name: row.column_name,
    type,
    nullable: row.is_nullable === 'YES',
    hasDefault: row.column_default !== null,
  };
}

/** A declared column in the terms of `MigratedColumn`. */
export const declared = (name: string, column: Column): MigratedColumn => ({
  name,
  type: column.type,
  nullable: column.nullable,
  hasDefault: column.hasDefault,
});

/**
 * A table's declared columns and its migrated ones, for comparing in order: `account_id` set
 * apart from both. The declarations put it first; migration 0010 added it to tables that held
 * rows already, and Postgres appends an added column (putting it first would rewrite every
 * row), so where it stands in a migrated table is the migration's detail. It is checked on its
 * own: declared first, migrated as declared.
 */
export function comparableColumns(
  table: Table,
  migrated: readonly MigratedColumn[] | undefined,
): {
  declared: MigratedColumn[];
  migrated: MigratedColumn[];
  account: {
    declaredFirst: boolean;
    declared: MigratedColumn | undefined;
    migrated: MigratedColumn | undefined;
  };
} {
  const all = Object.entries(table.columns).map(([name, column]) => declared(name, column));
  const others = (columns: readonly MigratedColumn[]) =>
    columns.filter((column) => column.name !== ACCOUNT_COLUMN);
  return {
    declared: others(all),
    migrated: others(migrated ?? []),
    account: {
      declaredFirst: all[0]?.name === ACCOUNT_COLUMN,
      declared: all.find((column) => column.name === ACCOUNT_COLUMN),
      migrated: migrated?.find((column) => column.name === ACCOUNT_COLUMN),
    },
  };
}

/** The columns of every table of the current schema, in order, by table. */
export async function migratedColumns(db: Kysely<any>): Promise<Map<string, MigratedColumn[]>> {
  const { rows } = await sql<ColumnRow>`
    select table_name, column_name, data_type, udt_name, numeric_precision, numeric_scale, is_nullable, column_default
      from information_schema.columns
     where table_schema = current_schema()
     order by table_name, ordinal_position`.execute(db);
  const tables = new Map<string, MigratedColumn[]>();
  for (const row of rows) tables.set(row.table_name, [...(tables.get(row.table_name) ?? []), described(row)]);
  return tables;
}

/** The primary key columns of every table of the current schema, in order, by table. */
export async function migratedPrimaryKeys(db: Kysely<any>): Promise<Map<string, string[]>> {
  const { rows } = await sql<{ table_name: string; columns: string[] }>`
    select c.table_name, array_agg(k.column_name::text order by k.ordinal_position) as columns
      from information_schema.table_constraints c
      join information_schema.key_column_usage k
        on k.constraint_name = c.constraint_name and k.table_schema = c.table_schema and k.table_name = c.table_name
     where c.table_schema = current_schema() and c.constraint_type = 'PRIMARY KEY'
     group by c.table_name`.execute(db);
  return new Map(rows.map((row) => [row.table_name, row.columns]));
}
