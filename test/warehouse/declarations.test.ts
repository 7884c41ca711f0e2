import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAREHOUSE_TABLES } from '../../src/catalog/tables.js';
import { migrateToLatest } from '../../src/warehouse/migrate.js';
import { primaryKey, type Table } from '../../src/warehouse/schema.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { comparableColumns, migratedColumns, migratedPrimaryKeys } from '../support/migrated-schema.js';

// The table declarations against a freshly migrated database: the migrations are frozen
// history, the declarations are what the code believes; any drift fails here. Each stream's
// own tables are checked again, with how they name their parent, by test/streams/conformance.test.ts.

const DECLARED: readonly Table[] = WAREHOUSE_TABLES;

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
  for (const row of rows)
    byTable.set(row.table, [...(byTable.get(row.table) ?? []), row.columns.join(',')].sort());
  return byTable;
}

describe('table declarations', () => {
  it('declare exactly the tables the migrations create', async () => {
    const tables = [...(await migratedColumns(t.db)).keys()].filter(
      (name) => !MIGRATOR_TABLES.includes(name),
    );
    expect(DECLARED.map((table) => table.name).sort()).toEqual(tables.sort());
  });

  it('declare every column in order, with its type (precision included), nullability and default', async () => {
    const actual = await migratedColumns(t.db);
    for (const table of DECLARED) {
      const columns = comparableColumns(table, actual.get(table.name));
      expect(columns.declared, `columns of ${table.name}`).toEqual(columns.migrated);
      // Every table starts with its account: declared first, stored as declared (wherever 0010 put it).
      expect(columns.account.declaredFirst, `account_id first in ${table.name}`).toBe(true);
      expect(columns.account.migrated, `account_id of ${table.name}`).toEqual(columns.account.declared);
    }
  });

  it('declare each primary key and secondary index', async () => {
    const keys = await migratedPrimaryKeys(t.db);
    const indexes = await secondaryIndexes();
    for (const table of DECLARED) {
      expect(primaryKey(table), `primary key of ${table.name}`).toEqual(keys.get(table.name));
      expect(keys.get(table.name)?.[0], `primary key of ${table.name} leads with the account`).toBe(
        'account_id',
      );
      expect(
        (table.indexes ?? []).map((columns) => columns.join(',')).sort(),
        `indexes of ${table.name}`,
      ).toEqual(indexes.get(table.name) ?? []);
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
       where n.nspname = current_schema() and c.relkind = 'r' and col_description(c.oid, a.attnum) is null`.execute(
      t.db,
    );
    expect(rows.map((row) => row.object)).toEqual([]);
    const { rows: comment } = await sql<{
      text: string;
    }>`select col_description('invoices'::regclass, 2) as text`.execute(t.db);
    expect(comment[0].text).toBe("The vendor's invoice number.");
  });
});
