import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MIGRATIONS_FOLDER,
  migrateDownAll,
  migrateToLatest,
  pendingMigrations,
} from '../../src/warehouse/migrate.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// The tables, columns and types below are the contract of the foundation issue with the
// dashboards; they are written out here on purpose instead of read from the table declarations
// (test/warehouse/declarations.test.ts compares those with the schema). Since issue 22 every
// table holds several source accounts: `account_id` leads every primary key and index.

const ID = ['smallint', 'integer', 'bigint'];
const TEXT = ['text', 'character varying'];
const DATE = 'date';
const MONEY = 'numeric(14,2)';
const BOOL = 'boolean';

type Contract = Record<string, { primaryKey: string[]; columns: Record<string, string | string[]> }>;

const SOURCE_TABLES: Contract = {
  leases: {
    primaryKey: ['account_id', 'lease_id'],
    columns: {
      lease_id: 'bigint',
      property_id: ID,
      lease_status_type_id: ID,
      lease_status: TEXT,
      unit_id: ID,
      unit_number: TEXT,
      building_name: TEXT,
      floor_plan_name: TEXT,
      occupancy_type: TEXT,
      is_month_to_month: BOOL,
      move_in_date: DATE,
      move_out_date: DATE,
      move_out_reason: TEXT,
      current_lease_interval_id: ID,
      is_other_income: BOOL,
    },
  },
  lease_intervals: {
    primaryKey: ['account_id', 'lease_interval_id'],
    columns: {
      lease_interval_id: ID,
      lease_id: ID,
      lease_interval_type_id: ID,
      lease_interval_type: TEXT,
      lease_interval_status: TEXT,
      start_date: DATE,
      end_date: DATE,
    },
  },
  ar_transactions: {
    primaryKey: ['account_id', 'ar_transaction_id'],
    columns: {
      ar_transaction_id: ID,
      lease_id: ID,
      property_id: ID,
      ar_code_id: ID,
      ar_code_name: TEXT,
      transaction_type_id: ID,
      transaction_date: DATE,
      post_date: DATE,
      post_month: DATE,
      due_date: DATE,
      amount: MONEY,
      amount_paid: MONEY,
      balance_due: MONEY,
      is_reversed: BOOL,
      deleted_at: 'timestamp with time zone',
    },
  },
  invoices: {
    primaryKey: ['account_id', 'invoice_id'],
    columns: {
      invoice_id: ID,
      invoice_number: 'text',
      invoice_type_id: ID,
      invoice_type: TEXT,
      vendor_id: ID,
      vendor_name: TEXT,
      invoice_date: DATE,
      post_date: DATE,
      post_month: DATE,
      due_date: DATE,
      amount: MONEY,
      amount_due: MONEY,
      is_posted: BOOL,
      is_on_hold: BOOL,
      is_exported: BOOL,
    },
  },
  voided_payments: {
    primaryKey: ['account_id', 'invoice_id', 'payment_id'],
    columns: {
      invoice_id: ID,
      payment_id: ID,
      payment_number: TEXT,
      amount: MONEY,
      payment_date: DATE,
      voided_on: DATE,
      void_reason: TEXT,
    },
  },
  lease_customers: { primaryKey: [], columns: { lease_id: ID } },
  lease_scheduled_charges: { primaryKey: [], columns: { lease_id: ID, amount: MONEY } },
  invoice_line_items: { primaryKey: [], columns: { invoice_id: ID, amount: MONEY } },
  invoice_payments: { primaryKey: [], columns: { invoice_id: ID, payment_id: ID, amount: MONEY } },
};

/** Columns that every source table has. */
const SYNC_COLUMNS = {
  account_id: 'text',
  raw: 'jsonb',
  first_synced_at: 'timestamp with time zone',
  last_synced_at: 'timestamp with time zone',
  last_run_id: ID,
};

const BOOKKEEPING: Record<string, Record<string, string | string[]>> = {
  sync_runs: {
    account_id: 'text',
    run_id: ID,
    started_at: 'timestamp with time zone',
    finished_at: 'timestamp with time zone',
    status: TEXT,
  },
  sync_work_units: {
    account_id: 'text',
    run_id: ID,
    stream: TEXT,
    window_from: DATE,
    window_to: DATE,
    status: TEXT,
  },
  sync_cursors: { account_id: 'text', stream: TEXT },
  quarantine: {
    account_id: 'text',
    raw: 'jsonb',
    reason: TEXT,
    stream: TEXT,
    property_id: ID,
    window_from: DATE,
    window_to: DATE,
    page: ID,
    run_id: ID,
  },
};

interface ColumnInfo {
  table_name: string;
  column_name: string;
  data_type: string;
  numeric_precision: number | null;
  numeric_scale: number | null;
}

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});

afterAll(async () => {
  await database?.drop();
});

async function tableNames(): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = current_schema() order by table_name`.execute(database.db);
  return rows.map((row) => row.table_name);
}

/** table → column → type as Postgres names it, with numeric precision spelled out. */
async function columnTypes(): Promise<Map<string, Map<string, string>>> {
  const { rows } = await sql<ColumnInfo>`
    select table_name, column_name, data_type, numeric_precision, numeric_scale
    from information_schema.columns where table_schema = current_schema()`.execute(database.db);
  const tables = new Map<string, Map<string, string>>();
  for (const row of rows) {
    const type =
      row.data_type === 'numeric' && row.numeric_precision != null
        ? `numeric(${row.numeric_precision},${row.numeric_scale})`
        : row.data_type;
    if (!tables.has(row.table_name)) tables.set(row.table_name, new Map());
    tables.get(row.table_name)!.set(row.column_name, type);
  }
  return tables;
}

async function primaryKeys(): Promise<Map<string, string[]>> {
  const { rows } = await sql<{ table_name: string; columns: string[] }>`
    select t.relname as table_name, array_agg(a.attname::text order by k.ord) as columns
    from pg_index x
    join pg_class t on t.oid = x.indrelid
    join pg_namespace n on n.oid = t.relnamespace and n.nspname = current_schema()
    cross join lateral unnest(x.indkey) with ordinality as k(attnum, ord)
    join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
    where x.indisprimary
    group by t.relname`.execute(database.db);
  return new Map(rows.map((row) => [row.table_name, row.columns]));
}

/** Every index, as table and its columns in order. */
async function indexes(): Promise<{ table: string; name: string; columns: string[] }[]> {
  const { rows } = await sql<{ table: string; name: string; columns: string[] }>`
    select t.relname as table, i.relname as name, array_agg(a.attname::text order by k.ord) as columns
    from pg_index x
    join pg_class i on i.oid = x.indexrelid
    join pg_class t on t.oid = x.indrelid
    join pg_namespace n on n.oid = t.relnamespace and n.nspname = current_schema()
    cross join lateral unnest(x.indkey) with ordinality as k(attnum, ord)
    join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
    group by t.relname, i.relname`.execute(database.db);
  return rows;
}

/** Everything a migration could change, as one comparable value. */
async function schemaSnapshot(): Promise<unknown> {
  const columns = await columnTypes();
  return {
    columns: [...columns].map(([table, cols]) => [table, [...cols].sort()]).sort(),
    indexes: (await indexes())
      .map((index) => `${index.table}.${index.name}(${index.columns.join(',')})`)
      .sort(),
  };
}

function expectType(actual: string | undefined, expected: string | string[], where: string): void {
  const allowed = Array.isArray(expected) ? expected : [expected];
  expect(allowed, `${where} is ${actual ?? 'missing'}`).toContain(actual);
}

describe('migrations on an empty database', () => {
  const migrationFiles = readdirSync(MIGRATIONS_FOLDER)
    .filter((name) => /^\d{4}_.+\.ts$/.test(name))
    .map((name) => name.replace(/\.ts$/, ''))
    .sort();
  let firstRun: string[];
  let afterFirst: unknown;

  it('starts from a database without any table', async () => {
    expect(await tableNames()).toEqual([]);
    expect(await pendingMigrations(database.db)).toEqual(migrationFiles);
    // Asking creates nothing.
    expect(await tableNames()).toEqual([]);
  });

  it('migrateToLatest applies every migration in order', async () => {
    ({ applied: firstRun } = await migrateToLatest(database.db));
    expect(firstRun).toEqual(migrationFiles);
    expect(firstRun.slice(0, 2)).toEqual(['0001_source_tables', '0002_sync_bookkeeping']);
    afterFirst = await schemaSnapshot();
  });

  it('creates the contract tables with their columns, types and keys', async () => {
    const types = await columnTypes();
    const keys = await primaryKeys();
    for (const [table, contract] of Object.entries(SOURCE_TABLES)) {
      const columns = types.get(table);
      expect(columns, `table ${table}`).toBeDefined();
      for (const [column, type] of Object.entries({ ...contract.columns, ...SYNC_COLUMNS }))
        expectType(columns!.get(column), type, `${table}.${column}`);
      if (contract.primaryKey.length)
        expect(keys.get(table), `primary key of ${table}`).toEqual(contract.primaryKey);
      else expect(keys.get(table)?.[0], `primary key of ${table} leads with the account`).toBe('account_id');
    }
    expect(types.get('leases')!.get('lease_id')).toBe('bigint');
  });

  it('keeps raw and the sync columns on every source table, and never a NULL raw', async () => {
    const { rows } = await sql<{ table_name: string; is_nullable: string }>`
      select table_name, is_nullable from information_schema.columns
      where table_schema = current_schema() and column_name = 'raw' and table_name = any(${Object.keys(SOURCE_TABLES)})`.execute(
      database.db,
    );
    expect(rows.map((row) => row.table_name).sort()).toEqual(Object.keys(SOURCE_TABLES).sort());
    expect(rows.every((row) => row.is_nullable === 'NO')).toBe(true);
  });

  it('creates the bookkeeping tables', async () => {
    const types = await columnTypes();
    for (const [table, columns] of Object.entries(BOOKKEEPING)) {
      expect(types.get(table), `table ${table}`).toBeDefined();
      for (const [column, type] of Object.entries(columns))
        expectType(types.get(table)!.get(column), type, `${table}.${column}`);
    }
  });

  it('creates the indexes that the dashboards need', async () => {
    const all = await indexes();
    const leading = (table: string, ...columns: string[][]) =>
      all.some(
        (index) => index.table === table && columns.every((options, i) => options.includes(index.columns[i])),
      );
    expect(
      leading('leases', ['account_id'], ['property_id'], ['lease_status_type_id', 'lease_status']),
      'leases by property and status',
    ).toBe(true);
    expect(
      leading('ar_transactions', ['account_id'], ['lease_id'], ['post_month']),
      'AR by lease and post month',
    ).toBe(true);
    expect(
      leading('invoices', ['account_id'], ['vendor_id'], ['post_date']),
      'invoices by vendor and post date',
    ).toBe(true);
  });

  it('stores money exactly and dates without time', async () => {
    await sql`insert into invoices (account_id, invoice_id, invoice_number, amount, amount_due, post_date, raw)
              values ('default', 9007199254740991, 'INV-1', 1234567890.125, 0.1, '2024-02-29', '{"a":1}')`.execute(
      database.db,
    );
    const row = await database.db
      .selectFrom('invoices')
      .select(['invoice_id', 'amount', 'amount_due', 'post_date', 'first_synced_at'])
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      invoice_id: 9007199254740991,
      amount: '1234567890.13',
      amount_due: '0.10',
      post_date: '2024-02-29',
    });
    expect(row.first_synced_at).toBeInstanceOf(Date);
    await sql`delete from invoices`.execute(database.db);
  });

  it('a second run applies nothing and changes nothing', async () => {
    expect(await pendingMigrations(database.db)).toEqual([]);
    expect(await migrateToLatest(database.db)).toEqual({ applied: [] });
    expect(await schemaSnapshot()).toEqual(afterFirst);
  });

  it('names the migrations not applied yet from the files, compiled or not', async () => {
    const last = migrationFiles[migrationFiles.length - 1];
    const { rows } = await sql<{
      name: string;
      timestamp: string;
    }>`select name, timestamp from kysely_migration where name = ${last}`.execute(database.db);
    await sql`delete from kysely_migration where name = ${last}`.execute(database.db);
    try {
      expect(await pendingMigrations(database.db)).toEqual([last]);
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${rows[0].name}, ${rows[0].timestamp})`.execute(
        database.db,
      );
    }
    const folder = mkdtempSync(join(tmpdir(), 'propsync-pending-'));
    try {
      for (const file of [
        '0001_source_tables.js',
        '0001_source_tables.d.ts',
        '0001_source_tables.js.map',
        '9998_next.ts',
        '9999_after.mjs',
        'README.md',
      ])
        writeFileSync(join(folder, file), '');
      expect(await pendingMigrations(database.db, folder)).toEqual(['9998_next', '9999_after']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('migrateDownAll reverts every migration, newest first, and leaves no table behind', async () => {
    const { applied } = await migrateDownAll(database.db);
    expect(applied).toEqual([...migrationFiles].reverse());
    expect(await tableNames()).toEqual([]);
  });

  it('migrates up again after going down', async () => {
    expect((await migrateToLatest(database.db)).applied).toEqual(migrationFiles);
    expect(await schemaSnapshot()).toEqual(afterFirst);
  });
});
