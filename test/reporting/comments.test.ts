import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReportingDocs, REPORTING_DOCS_PATH } from '../../src/reporting/reporting-docs.js';
import { REPORTING_VIEWS } from '../../src/reporting/views.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe('descriptions of the reporting layer', () => {
  it('every view of schema reporting and every column of it has a comment', async () => {
    const { rows } = await sql<{ relation: string; column: string | null; comment: string | null }>`
      select c.relname as relation, null as column, obj_description(c.oid, 'pg_class') as comment
        from pg_class c
       where c.relnamespace = 'reporting'::regnamespace and c.relkind in ('v', 'm', 'r')
      union all
      select c.relname, a.attname, col_description(c.oid, a.attnum)
        from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
       where c.relnamespace = 'reporting'::regnamespace and c.relkind in ('v', 'm', 'r')`.execute(
      database.db,
    );
    expect(rows.length).toBeGreaterThan(100);
    expect(
      rows
        .filter((row) => !row.comment?.trim())
        .map((row) => (row.column ? `${row.relation}.${row.column}` : row.relation)),
    ).toEqual([]);
    const { rows: today } = await sql<{
      comment: string | null;
    }>`select obj_description('reporting.today()'::regprocedure, 'pg_proc') as comment`.execute(database.db);
    expect(today[0].comment).toMatch(/time zone/);
  });

  it('the declarations name exactly the views and columns the database has, in order, each read from reporting_private', async () => {
    const relations = async (schema: string) =>
      (
        await sql<{ relation: string; kind: string; columns: string[] }>`
          select c.relname as relation, c.relkind::text as kind, array_agg(a.attname::text order by a.attnum) as columns
            from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
           where c.relnamespace = ${schema}::regnamespace and c.relkind in ('v', 'm')
           group by c.relname, c.relkind
           order by c.relname`.execute(database.db)
      ).rows;
    const declared = [...REPORTING_VIEWS].sort((a, b) => a.name.localeCompare(b.name));
    // What readers see: a view each (materialized views cannot carry row-level security) ...
    expect(await relations('reporting')).toEqual(
      declared.map((view) => ({
        relation: view.name,
        kind: 'v',
        columns: view.columns.map((column) => column.name),
      })),
    );
    // ... over the query of the same name and columns, materialized where declared so (beside
    // each account's today, which the views read: migrations/0019_account_days.ts).
    const queries = (await relations('reporting_private')).filter(
      (view) => view.relation !== 'account_today',
    );
    expect(queries).toEqual(
      declared.map((view) => ({
        relation: view.name,
        kind: view.materialized ? 'm' : 'v',
        columns: view.columns.map((column) => column.name),
      })),
    );
  });

  it('a view comment says what the view is for and, when materialized, that each sync refreshes it', async () => {
    const { rows } = await sql<{
      comment: string;
    }>`select obj_description('reporting.ar_activity_monthly'::regclass, 'pg_class') as comment`.execute(
      database.db,
    );
    expect(rows[0].comment).toMatch(/^Per property, post month and AR code/);
    expect(rows[0].comment).toMatch(/refreshed at the end of each sync/);
  });

  it(`${REPORTING_DOCS_PATH} is what the declarations generate (run node bin/run-ts.mjs src/reporting/write-docs.ts)`, () => {
    const path = resolve(dirname(fileURLToPath(import.meta.url)), '../..', REPORTING_DOCS_PATH);
    expect(readFileSync(path, 'utf8')).toBe(renderReportingDocs());
  });
});
