import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_TABLES, WAREHOUSE_TABLES } from '../../src/catalog/tables.js';
import { migrateToLatest } from '../../src/warehouse/migrate.js';
import type { Column, SourceTable, Table } from '../../src/warehouse/schema.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// The table declarations against a freshly migrated database: the migrations are frozen
// history, the declarations are what the code believes; any drift fails here.

const DECLARED: readonly Table[] = WAREHOUSE_TABLES;
const STREAMS: readonly (readonly SourceTable[])[] = Object.values(STREAM_TABLES);

let t: TestDatabase;
beforeAll(async () => {
  // The migrations alone first (comments, written from the declarations, come in the last test).
  t = await createTestDatabase({ migrate: false });
  await migrateToLatest(t.db);
});
afterAll(async () => {
  await t?.drop();
});

/** The migrator's own tables, which no declaration describes. */
const MIGRATOR_TABLES = ['kysely_migration', 'kysely_migration_lock'];

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
function described(row: ColumnRow): { type: string; nullable: boolean; hasDefault: boolean } {
  const type =
    row.data_type === 'ARRAY'
      ? `${{ _int8: 'bigint', _text: 'text', _int4: 'integer' }[row.udt_name] ?? row.udt_name}[]`
      : row.data_type === 'numeric' && row.numeric_precision !== null
        ? `numeric(${row.numeric_precision},${row.numeric_scale})`
        : row.data_type === 'timestamp with time zone'
          ? 'timestamptz'
          : row.data_type;
  return { type, nullable: row.is_nullable === 'YES', hasDefault: row.column_default !== null };
}

const declared = (column: Column) => ({ type: column.type, nullable: column.nullable, hasDefault: column.hasDefault });

async function columnsByTable(): Promise<Map<string, ColumnRow[]>> {
  const { rows } = await sql<ColumnRow>`
    select table_name, column_name, data_type, udt_name, numeric_precision, numeric_scale, is_nullable, column_default
      from information_schema.columns
     where table_schema = current_schema()
     order by table_name, ordinal_position`.execute(t.db);
  const tables = new Map<string, ColumnRow[]>();
  for (const row of rows) tables.set(row.table_name, [...(tables.get(row.table_name) ?? []), row]);
  return tables;
}

async function primaryKeys(): Promise<Map<string, string[]>> {
  const { rows } = await sql<{ table_name: string; columns: string[] }>`
    select c.table_name, array_agg(k.column_name::text order by k.ordinal_position) as columns
      from information_schema.table_constraints c
      join information_schema.key_column_usage k
        on k.constraint_name = c.constraint_name and k.table_schema = c.table_schema and k.table_name = c.table_name
     where c.table_schema = current_schema() and c.constraint_type = 'PRIMARY KEY'
     group by c.table_name`.execute(t.db);
  return new Map(rows.map((row) => [row.table_name, row.columns]));
}

async function secondaryIndexes(): Promise<Map<string, string[]>> {
  const { rows } = await sql<{ table: string; columns: string[] }>`
    select t.relname as table, array_agg(a.attname::text order by k.ord) as columns
      from pg_index x
      join pg_class i on i.oid = x.indexrelid
      join pg_class t on t.oid = x.indrelid
      join pg_namespace n on n.oid = t.relnamespace and n.nspname = current_schema()
      cross join lateral unnest(x.indkey) with ordinality as k(attnum, ord)
      join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
     where not x.indisprimary
       -- An index is declared by its key columns (INCLUDE columns and a partial index's WHERE are the migration's detail).
       and k.ord <= x.indnkeyatts
     group by t.relname, i.relname`.execute(t.db);
  const byTable = new Map<string, string[]>();
  for (const row of rows) byTable.set(row.table, [...(byTable.get(row.table) ?? []), row.columns.join(',')].sort());
  return byTable;
}

describe('table declarations', () => {
  it('declare exactly the tables the migrations create', async () => {
    const tables = [...(await columnsByTable()).keys()].filter((name) => !MIGRATOR_TABLES.includes(name));
    expect(DECLARED.map((table) => table.name).sort()).toEqual(tables.sort());
  });

  it('declare every column in order, with its type (precision included), nullability and default', async () => {
    const actual = await columnsByTable();
    for (const table of DECLARED) {
      const rows = actual.get(table.name) ?? [];
      expect(Object.keys(table.columns), `columns of ${table.name}`).toEqual(rows.map((row) => row.column_name));
      for (const row of rows) {
        const column = table.columns[row.column_name];
        if (column) expect(declared(column), `${table.name}.${row.column_name}`).toEqual(described(row));
      }
    }
  });

  it('declare each primary key and secondary index', async () => {
    const keys = await primaryKeys();
    const indexes = await secondaryIndexes();
    for (const table of DECLARED) {
      expect(table.key, `primary key of ${table.name}`).toEqual(keys.get(table.name));
      expect((table.indexes ?? []).map((columns) => columns.join(',')).sort(), `indexes of ${table.name}`).toEqual(indexes.get(table.name) ?? []);
    }
  });

  it("name each child's parent by the parent's key", () => {
    for (const tables of STREAMS) {
      const [parent, ...children] = tables;
      expect(parent.sourceHash, `${parent.name} keeps the digest of its records`).toBe(true);
      expect(parent.parentColumn).toBeUndefined();
      for (const child of children) {
        expect(child.parentColumn, `parent column of ${child.name}`).toBe(parent.key[0]);
        expect(child.columns[child.parentColumn!]?.nullable, `${child.name}.${child.parentColumn}`).toBe(false);
        expect(child.sourceHash).toBe(false);
      }
    }
  });

  it('give every table and column of the schema a comment, once migrated (again: comments are rewritten)', async () => {
    expect(await migrateToLatest(t.db, WAREHOUSE_TABLES)).toEqual({ applied: [] });
    const { rows } = await sql<{ object: string }>`
      select c.relname as object from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = current_schema() and c.relkind = 'r' and obj_description(c.oid, 'pg_class') is null
      union all
      select c.relname || '.' || a.attname from pg_class c
        join pg_namespace n on n.oid = c.relnamespace
        join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
       where n.nspname = current_schema() and c.relkind = 'r' and col_description(c.oid, a.attnum) is null`.execute(t.db);
    expect(rows.map((row) => row.object)).toEqual([]);
    const { rows: comment } = await sql<{ text: string }>`select col_description('invoices'::regclass, 2) as text`.execute(t.db);
    expect(comment[0].text).toBe("The vendor's invoice number.");
  });
});
