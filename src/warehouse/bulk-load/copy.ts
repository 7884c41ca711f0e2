import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CompiledQuery, sql } from 'kysely';
import { escapeIdentifier } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { ACCOUNT_COLUMN, type AnyDatabase, loadColumns, type SourceTable } from '../schema.js';
import { copyChunks, copyText } from './encode.js';
import type { LoadRow } from './rows.js';
import { columnDefinitions } from './sql-names.js';

/** COPY of rows into a table or into the session's staging table of it. */

/**
 * Streams rows into a table with `COPY ... FROM STDIN` on the connection `db` runs on (a
 * transaction's, so the copy belongs to it). Kysely has no COPY, but its Postgres driver hands
 * the compiled query's text to pg's `client.query`, which also takes a submittable query such
 * as pg-copy-streams' stream: the stream is queued on that very client, and the statements
 * after it wait until it has ended.
 */
async function copyInto(db: AnyDatabase, copySql: string, chunks: Iterable<Buffer>): Promise<void> {
  const stream = copyFrom(copySql);
  await db.executeQuery(CompiledQuery.raw(stream as unknown as string));
  await pipeline(Readable.from(chunks), stream);
}

/** Unique violation: a key that is already in the table. */
const UNIQUE_VIOLATION = '23505';

/**
 * Copies rows that are expected to be new straight into the table: half the work of staging
 * and merging them, which is what a full load or a backfill writes. Under a savepoint, so that
 * when a key is already there (a row listed by two units, a parent that moved) the copy is undone
 * and `false` tells the caller to merge instead; any other error is the caller's.
 */
export async function copyNewRows(
  db: AnyDatabase,
  spec: SourceTable,
  unique: readonly LoadRow[],
  runId: number,
  account: string,
): Promise<boolean> {
  return copyNewTables(db, [{ spec, unique }], runId, account);
}

/**
 * `copyNewRows` of several tables' rows (one per key each) under one savepoint: a COPY a table, and
 * `false`, every copy undone, when a key of any of them is already there.
 */
export async function copyNewTables(
  db: AnyDatabase,
  tables: readonly { spec: SourceTable; unique: readonly LoadRow[] }[],
  runId: number,
  account: string,
): Promise<boolean> {
  await sql.raw('savepoint propsync_copy_new').execute(db);
  try {
    for (const { spec, unique } of tables)
      if (unique.length) await copyRows(db, spec, unique, runId, account);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== UNIQUE_VIOLATION) throw error;
    await sql.raw('rollback to savepoint propsync_copy_new; release savepoint propsync_copy_new').execute(db);
    return false;
  }
  await sql.raw('release savepoint propsync_copy_new').execute(db);
  return true;
}

/** COPY of rows into the table itself, with the account and the run. */
async function copyRows(
  db: AnyDatabase,
  spec: SourceTable,
  unique: readonly LoadRow[],
  runId: number,
  account: string,
): Promise<void> {
  const columns = loadColumns(spec);
  const columnList = [ACCOUNT_COLUMN, ...columns.map(([column]) => column), 'last_run_id']
    .map(escapeIdentifier)
    .join(', ');
  await copyInto(
    db,
    `copy ${escapeIdentifier(spec.name)} (${columnList}) from stdin`,
    copyChunks(unique, columns, `${copyText(account)}\t`, `\t${runId}`),
  );
}

/** The session's staging table of a source table (`pg_temp`, emptied at every commit). */
export function stagingTable(spec: SourceTable): string {
  return `pg_temp.${escapeIdentifier(`propsync_stage_${spec.name}`)}`;
}

/** The statements that make a table's staging table if the session has none, and empty it. */
function stagingStatements(spec: SourceTable): string {
  const definitions = columnDefinitions([[ACCOUNT_COLUMN, 'text'], ...loadColumns(spec)]);
  return (
    `create temp table if not exists ${stagingTable(spec)} (${definitions}) on commit delete rows; ` +
    `delete from ${stagingTable(spec)}`
  );
}

/** Makes and empties the staging tables of several tables in one round trip. */
export async function prepareStaging(db: AnyDatabase, specs: readonly SourceTable[]): Promise<void> {
  if (specs.length) await sql.raw(specs.map(stagingStatements).join('; ')).execute(db);
}

/** Streams rows into the table's (made and emptied) staging table with COPY. */
export async function stageRows(
  db: AnyDatabase,
  spec: SourceTable,
  unique: readonly LoadRow[],
  account: string,
): Promise<void> {
  const columns: [string, string][] = [[ACCOUNT_COLUMN, 'text'], ...loadColumns(spec)];
  const columnList = columns.map(([column]) => escapeIdentifier(column)).join(', ');
  await copyInto(
    db,
    `copy ${stagingTable(spec)} (${columnList}) from stdin`,
    copyChunks(unique, columns.slice(1), `${copyText(account)}\t`),
  );
}
