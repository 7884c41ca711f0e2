import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Warehouse } from '../../src/catalog/tables.js';
import { connect } from '../../src/warehouse/db.js';
import { prepared } from '../../src/warehouse/prepared.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// Statements marked `prepared` are kept prepared by Postgres on each connection of the pool:
// parsed once, then only bound and executed; any other statement stays unnamed.

let database: TestDatabase;
let db: Db;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
  db = connect<Warehouse>(database.url, { maxConnections: 1 });
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

const kept = async () =>
  (
    await sql<{ statement: string }>`
      select statement from pg_prepared_statements where name like 'propsync_%' order by statement`.execute(
      db,
    )
  ).rows.map((row) => row.statement);

const doubled = (value: number) => prepared(sql<{ twice: number }>`select ${value}::int * 2 as twice`);

describe('statements kept prepared', () => {
  it('are prepared once on a connection, and answer each execution with its own values', async () => {
    expect(await kept()).toEqual([]);
    const answers: number[] = [];
    for (const value of [1, 2, 3, 21]) answers.push((await doubled(value).execute(db)).rows[0].twice);
    expect(answers).toEqual([2, 4, 6, 42]);
    const statements = await kept();
    expect(statements).toHaveLength(1);
    expect(statements[0]).toContain('select $1::int * 2 as twice');
  });

  it('are one statement per text, and leave unmarked statements unnamed', async () => {
    await prepared(sql`select ${'a'}::text as other`).execute(db);
    await sql`select ${'b'}::text as unmarked`.execute(db);
    const statements = await kept();
    expect(statements).toHaveLength(2);
    expect(statements.some((text) => text.includes('unmarked'))).toBe(false);
  });

  it('work inside a transaction, and stay prepared after it rolls back', async () => {
    await db
      .transaction()
      .execute(async (trx) => {
        expect((await doubled(5).execute(trx)).rows[0].twice).toBe(10);
        throw new Error('roll back');
      })
      .catch(() => {});
    expect((await doubled(6).execute(db)).rows[0].twice).toBe(12);
    expect(await kept()).toHaveLength(2);
  });

  it('are sent unnamed when turned off (database.preparedStatements: false, for a pooler in transaction mode)', async () => {
    const unnamed = connect<Warehouse>(database.url, { maxConnections: 1, preparedStatements: false });
    try {
      expect((await doubled(7).execute(unnamed)).rows[0].twice).toBe(14);
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_prepared_statements`.execute(unnamed);
      expect(rows[0].n).toBe(0);
    } finally {
      await unnamed.destroy();
    }
  });
});
