import { sql, type Kysely } from 'kysely';
import type { Column } from '../../src/warehouse/schema.js';

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
  return { name: row.column_name, type, nullable: row.is_nullable === 'YES', hasDefault: row.column_default !== null };
}

/** A declared column in the terms of `MigratedColumn`. */
export const declared = (name: string, column: Column): MigratedColumn => ({ name, type: column.type, nullable: column.nullable, hasDefault: column.hasDefault });

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
