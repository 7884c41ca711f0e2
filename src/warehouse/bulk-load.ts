import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import { escapeIdentifier } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import {
  ACCOUNT_COLUMN,
  type AnyDatabase,
  loadColumns,
  primaryKey,
  SOURCE_HASH_COLUMN,
  SOURCE_TEXT_HASH_COLUMN,
  type SourceTable,
} from './schema.js';

/**
 * Loading of a stream's tables, whichever the stream: the table is chosen at run time, so the
 * statements are built from its declaration (`schema.ts`) and run on any typed database. Every
 * statement is one account's: it writes that account's id and touches no other account's rows.
 */

/** A row of a source table as normalization produced it: its columns plus the source record as `raw`. */
export type LoadRow = Record<string, unknown> & { raw: unknown };

/** What an upsert did. */
export interface UpsertCounts {
  inserted: number;
  updated: number;
  unchanged: number;
  /** Rows marked deleted (with `UpsertOptions.parents`). */
  deleted?: number;
}

const ident = (name: string) => sql.ref(name);

/**
 * Keeps the last row of each key, so one statement never touches a row twice, in key order, so
 * that concurrent transactions lock shared rows in the same order.
 */
export function dedupeByKey(spec: SourceTable, rows: readonly LoadRow[]): LoadRow[] {
  const byKey = new Map<unknown, LoadRow>();
  const keyOf = keyFunction(spec.key, rows);
  for (const row of rows) byKey.set(keyOf(row), row);
  const compare = (a: LoadRow, b: LoadRow) => {
    for (const k of spec.key) {
      const x = a[k] as number | string;
      const y = b[k] as number | string;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
  return [...byKey.values()].sort(compare);
}

/**
 * What tells two rows' keys apart: the number itself for one numeric column (two numbers are
 * the same key exactly when their texts are, 0 and -0 included), else the text of the key
 * columns.
 */
function keyFunction(key: readonly string[], rows: readonly LoadRow[]): (row: LoadRow) => unknown {
  const [first] = key;
  if (key.length === 1 && rows.every((row) => typeof row[first] === 'number')) return (row) => row[first];
  return (row) => key.map((k) => String(row[k])).join('\u0000');
}

/** Rows per COPY chunk: the text of one chunk is all that is held at once, whatever the page size. */
const COPY_CHUNK_ROWS = 500;

/**
 * One value in COPY's text format: backslash, tab, newline and CR escaped. A scan of the
 * character codes finds whether there is any (rarely); text without one is returned as it is.
 */
function copyText(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 92 || code === 9 || code === 10 || code === 13)
      return value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!);
  }
  return value;
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * JSON text in COPY's text format. JSON.stringify writes tab, newline and CR inside strings as
 * escapes, so a backslash is the only character of it that COPY needs escaped.
 */
function copyJson(value: unknown): string {
  const json = JSON.stringify(value) as string | undefined;
  // Nothing JSON can say (a function, say): written as the text Postgres will refuse, as before.
  if (json === undefined) return 'undefined';
  return json.indexOf('\\') === -1 ? json : json.replaceAll('\\', '\\\\');
}

/** A scalar as Postgres reads it from text (what `json_to_recordset` made of its JSON before). */
function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** An array literal (`{1,2}`, `{"a","b \\"c\\""}`) for an array column. */
function arrayText(values: readonly unknown[]): string {
  const items = values.map((item) =>
    item === null || item === undefined ? 'NULL' : `"${scalarText(item).replace(/[\\"]/g, (c) => `\\${c}`)}"`,
  );
  return `{${items.join(',')}}`;
}

/** A value of a scalar column: a number's text needs no escaping. */
function copyScalar(value: unknown): string {
  return typeof value === 'number' ? String(value) : copyText(scalarText(value));
}

/** A value of an array column as Postgres reads it from text: an array literal, or whatever else it is as text. */
function arrayValueText(value: unknown): string {
  return Array.isArray(value) ? arrayText(value) : scalarText(value);
}

/** A value of an array column in COPY text. */
function copyArray(value: unknown): string {
  return copyText(arrayValueText(value));
}

/** How a column's values travel, by its type: jsonb as JSON, arrays as array literals, the rest as their text. */
type ColumnKind = 'json' | 'array' | 'scalar';

function columnKind(type: string): ColumnKind {
  if (type === 'jsonb' || type === 'json') return 'json';
  return type.endsWith('[]') ? 'array' : 'scalar';
}

/** A column's (non-null) value in COPY text, by its kind. */
const COPY_ENCODERS: Record<ColumnKind, (value: unknown) => string> = {
  json: copyJson,
  array: copyArray,
  scalar: copyScalar,
};

/**
 * A column's (non-null) value in the JSON of an inline merge (`inlineJson`), by its kind: a JSON
 * column's value as JSON, any other as the text COPY sends before its escaping.
 */
const INLINE_ENCODERS: Record<ColumnKind, (value: unknown) => unknown> = {
  json: (value) => value,
  array: arrayValueText,
  scalar: scalarText,
};

/**
 * The rows as COPY text (`\\N` for null), a chunk of rows at a time; `prefix` starts and `suffix` ends every
 * line (constant columns).
 */
function* copyChunks(
  rows: readonly LoadRow[],
  columns: readonly [string, string][],
  prefix: string,
  suffix = '',
): Generator<string> {
  const names = columns.map(([name]) => name);
  const encoders = columns.map(([, type]) => COPY_ENCODERS[columnKind(type)]);
  for (let start = 0; start < rows.length; start += COPY_CHUNK_ROWS) {
    let text = '';
    for (let r = start; r < Math.min(rows.length, start + COPY_CHUNK_ROWS); r++) {
      const row = rows[r];
      text += prefix;
      for (let i = 0; i < names.length; i++) {
        const value = row[names[i]];
        if (i > 0) text += '\t';
        text += value === null || value === undefined ? '\\N' : encoders[i](value);
      }
      text += `${suffix}\n`;
    }
    yield text;
  }
}

/**
 * Streams rows into a table with `COPY ... FROM STDIN` on the connection `db` runs on (a
 * transaction's, so the copy belongs to it). Kysely has no COPY, but its Postgres driver hands
 * the compiled query's text to pg's `client.query`, which also takes a submittable query such
 * as pg-copy-streams' stream: the stream is queued on that very client, and the statements
 * after it wait until it has ended.
 */
async function copyInto(db: AnyDatabase, copySql: string, chunks: Iterable<string>): Promise<void> {
  const stream = copyFrom(copySql);
  await db.executeQuery(CompiledQuery.raw(stream as unknown as string));
  await pipeline(Readable.from(chunks), stream);
}

/**
 * Set-based upsert of one table's rows: the rows are streamed with COPY into a temporary
 * staging table of the session (emptied at commit), then one `INSERT ... SELECT ... ON CONFLICT
 * DO UPDATE ... WHERE` the row differs, so a row whose content did not change is not written at
 * all (no new row version). A row seen again after being marked deleted is revived.
 * `last_synced_at`/`last_run_id` move only on rows actually written. Everything runs on `db`'s
 * connection, so inside the page's transaction; rows are merged in key order. With `parents`,
 * the same statement marks deleted those parents' other rows (`markMissingChildren`).
 */
export async function upsertRows(
  db: AnyDatabase,
  spec: SourceTable,
  rows: readonly LoadRow[],
  runId: number,
  options: UpsertOptions,
): Promise<UpsertCounts> {
  const unique = dedupeByKey(spec, rows);
  if (unique.length === 0) {
    const deleted = options.parents
      ? await markMissingChildren(db, spec, options.parents, [], runId, options.account)
      : 0;
    return { inserted: 0, updated: 0, unchanged: 0, ...(options.parents && { deleted }) };
  }
  // Staging, copy and merge need one connection and one transaction (the staging table empties at commit).
  if (!db.isTransaction)
    return db.transaction().execute((trx) => writeUnique(trx, spec, unique, runId, options));
  return writeUnique(db, spec, unique, runId, options);
}

/** How to write. */
export interface UpsertOptions {
  /** The account the rows belong to (written as their `account_id`). */
  account: string;
  /**
   * The rows are most likely new (their parents were not in the warehouse): they are copied
   * straight into the table, and merged through staging only when one of them is there after all.
   */
  fresh?: boolean;
  /**
   * The parents whose children the rows are, all of them as the source lists them now: their
   * other rows are marked deleted, and counted as `deleted`.
   */
  parents?: readonly number[];
}

async function writeUnique(
  db: AnyDatabase,
  spec: SourceTable,
  unique: readonly LoadRow[],
  runId: number,
  options: UpsertOptions,
): Promise<UpsertCounts> {
  if (options.fresh && (await copyNewRows(db, spec, unique, runId, options.account))) {
    const deleted = options.parents
      ? await markMissingChildren(db, spec, options.parents, unique, runId, options.account)
      : 0;
    return { inserted: unique.length, updated: 0, unchanged: 0, ...(options.parents && { deleted }) };
  }
  return mergeRows(db, spec, unique, runId, options);
}

/** Unique violation: a key that is already in the table. */
const UNIQUE_VIOLATION = '23505';

/**
 * Copies rows that are expected to be new straight into the table: half the work of staging
 * and merging them, which is what a full load or a backfill writes. Under a savepoint, so that
 * when a key is already there (a row listed by two units, a parent that moved) the copy is undone
 * and `false` tells the caller to merge instead; any other error is the caller's.
 */
async function copyNewRows(
  db: AnyDatabase,
  spec: SourceTable,
  unique: readonly LoadRow[],
  runId: number,
  account: string,
): Promise<boolean> {
  const columns = loadColumns(spec);
  const columnList = [ACCOUNT_COLUMN, ...columns.map(([column]) => column), 'last_run_id']
    .map(escapeIdentifier)
    .join(', ');
  await sql.raw('savepoint propsync_copy_new').execute(db);
  try {
    await copyInto(
      db,
      `copy ${escapeIdentifier(spec.name)} (${columnList}) from stdin`,
      copyChunks(unique, columns, `${copyText(account)}\t`, `\t${runId}`),
    );
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== UNIQUE_VIOLATION) throw error;
    await sql.raw('rollback to savepoint propsync_copy_new; release savepoint propsync_copy_new').execute(db);
    return false;
  }
  await sql.raw('release savepoint propsync_copy_new').execute(db);
  return true;
}

/** The session's staging table of a source table (`pg_temp`, emptied at every commit). */
function stagingTable(spec: SourceTable): string {
  return `pg_temp.${escapeIdentifier(`propsync_stage_${spec.name}`)}`;
}

/** Column definitions (`"name" type, ...`), as a table or a record set declares them. */
function columnDefinitions(columns: readonly [string, string][]): string {
  return columns.map(([column, type]) => `${escapeIdentifier(column)} ${type}`).join(', ');
}

/** The statements that make a table's staging table if the session has none, and empty it. */
function stagingStatements(spec: SourceTable): string {
  const definitions = columnDefinitions([[ACCOUNT_COLUMN, 'text'], ...loadColumns(spec)]);
  return `create temp table if not exists ${stagingTable(spec)} (${definitions}) on commit delete rows; delete from ${stagingTable(spec)}`;
}

/** Makes and empties the staging tables of several tables in one round trip. */
async function prepareStaging(db: AnyDatabase, specs: readonly SourceTable[]): Promise<void> {
  if (specs.length) await sql.raw(specs.map(stagingStatements).join('; ')).execute(db);
}

async function mergeRows(
  db: AnyDatabase,
  spec: SourceTable,
  unique: readonly LoadRow[],
  runId: number,
  options: UpsertOptions,
): Promise<UpsertCounts> {
  const [counts] = await stageAndMerge(
    db,
    [{ spec, unique, parents: options.parents }],
    runId,
    options.account,
  );
  return counts;
}

/**
 * Rows up to this many in all (a nightly page's changed records, say) travel inside the merge
 * statement, not through staging tables: one round trip instead of two a table and one more.
 */
const INLINE_MAX_ROWS = 250;

/**
 * Merges the tables' rows in one statement. Few rows are its parameter; more are first copied
 * into the tables' staging tables (made and emptied in one round trip; they exist once per
 * session and empty at every commit), a COPY per table.
 */
async function stageAndMerge(
  db: AnyDatabase,
  parts: readonly MergePart[],
  runId: number,
  account: string,
): Promise<UpsertCounts[]> {
  const inline = parts.reduce((count, part) => count + part.unique.length, 0) <= INLINE_MAX_ROWS;
  if (!inline) {
    await prepareStaging(
      db,
      parts.map((part) => part.spec),
    );
    for (const { spec, unique } of parts) if (unique.length) await stageRows(db, spec, unique, account);
  }
  return mergeStaged(db, parts, { inline, runId, account });
}

/**
 * Rows as the JSON text of one parameter, read back by `json_to_recordset` as its columns: a
 * jsonb column's value as JSON, any other the very text COPY sends (before COPY's escaping), so
 * that each column's type reads it with the same input function as from COPY.
 */
function inlineJson(rows: readonly LoadRow[], columns: readonly [string, string][]): string {
  const encoders = columns.map(([, type]) => INLINE_ENCODERS[columnKind(type)]);
  return JSON.stringify(
    rows.map((row) => {
      const object: Record<string, unknown> = {};
      columns.forEach(([column], index) => {
        const value = row[column];
        object[column] = value === null || value === undefined ? null : encoders[index](value);
      });
      return object;
    }),
  );
}

/** Streams rows into the table's (made and emptied) staging table with COPY. */
async function stageRows(
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

/** One table's part of a merge: its rows (one per key), and the parents whose other rows to mark deleted. */
interface MergePart {
  spec: SourceTable;
  unique: readonly LoadRow[];
  parents?: readonly number[];
}

/**
 * Merges several tables' rows in one statement, each table its own CTEs: the upsert of its rows
 * and, with `parents`, the marking of those parents' rows not among them. The rows are read from
 * the tables' staging tables or, `inline`, from the statement's own JSON parameter. Each table's
 * CTEs touch only its rows, the upsert only the rows' keys and the marking only others, so no
 * row is touched twice.
 */
async function mergeStaged(
  db: AnyDatabase,
  parts: readonly MergePart[],
  { inline, runId, account }: { inline: boolean; runId: number; account: string },
): Promise<UpsertCounts[]> {
  const ctes: RawBuilder<unknown>[] = [];
  const counts: RawBuilder<unknown>[] = [];
  for (const [index, { spec, unique, parents }] of parts.entries()) {
    const columns = loadColumns(spec);
    const all = [ACCOUNT_COLUMN, ...columns.map(([column]) => column)];
    const key = primaryKey(spec);
    const names = sql.join(all.map((column) => ident(column)));
    const table = sql.table(spec.name);
    const stage = sql.raw(inline ? `staged_${index}` : stagingTable(spec));
    if (inline) {
      ctes.push(sql`${stage} as (
        select ${account}::text as ${ident(ACCOUNT_COLUMN)}, s.* from json_to_recordset(${inlineJson(unique, columns)}::json) as s(${sql.raw(columnDefinitions(columns))})
      )`);
    }
    const updatable = all.filter((column) => !key.includes(column));
    const assignments = sql.join(
      updatable.map((column) => sql`${ident(column)} = excluded.${ident(column)}`),
    );
    const current = sql.join(
      [...updatable, 'deleted_at'].map((column) => sql`${sql.raw(spec.name)}.${ident(column)}`),
    );
    const incoming = sql.join([...updatable, 'deleted_at'].map((column) => sql`excluded.${ident(column)}`));
    const written = sql.raw(`written_${index}`);
    const gone = sql.raw(`gone_${index}`);
    ctes.push(sql`${written} as (
      insert into ${table} (${names}, last_run_id)
      select ${names}, ${runId}::bigint from ${stage} order by ${sql.join(key.map(ident))}
      on conflict (${sql.join(key.map(ident))}) do update set
        ${assignments}, deleted_at = null, last_synced_at = now(), last_run_id = excluded.last_run_id
      where (${current}) is distinct from (${incoming})
      returning (xmax = 0) as inserted
    )`);
    const marks = parents && spec.parentColumn;
    if (marks) {
      const kept = sql`exists (select 1 from ${stage} s where ${sameKey(spec, 's')})`;
      ctes.push(
        sql`${gone} as (${markDeleted(spec, runId, account, sql`${ident(spec.parentColumn!)} = any(${parents as number[]}::bigint[]) and not ${kept}`)} returning 1)`,
      );
    }
    counts.push(sql`(select count(*) filter (where inserted) from ${written})::int as ${sql.raw(`inserted_${index}`)},
      (select count(*) filter (where not inserted) from ${written})::int as ${sql.raw(`updated_${index}`)},
      ${marks ? sql`(select count(*) from ${gone})::int` : sql`0`} as ${sql.raw(`deleted_${index}`)}`);
  }
  const { rows } = await sql<
    Record<string, number>
  >`with ${sql.join(ctes)} select ${sql.join(counts)}`.execute(db);
  return parts.map((part, index) => {
    const inserted = rows[0][`inserted_${index}`];
    const updated = rows[0][`updated_${index}`];
    return {
      inserted,
      updated,
      unchanged: part.unique.length - inserted - updated,
      ...(part.parents && { deleted: rows[0][`deleted_${index}`] }),
    };
  });
}

/** One table's rows for `upsertStaged`, and the parents whose rows they are (for children). */
export interface StagedTable {
  spec: SourceTable;
  rows: readonly LoadRow[];
  parents?: readonly number[];
}

/**
 * Upserts several tables' rows in one merge statement, whatever the number of tables, which
 * also marks deleted, for the tables given `parents`, those parents' rows not among them (an
 * empty table's included). Up to `INLINE_MAX_ROWS` rows in all are its parameter; more are first
 * copied into staging tables (one round trip makes and empties them, a COPY per table with rows
 * fills them). For rows that may be in the warehouse (an incremental's pages); in a transaction.
 */
export async function upsertStaged(
  db: AnyDatabase,
  tables: readonly StagedTable[],
  runId: number,
  account: string,
): Promise<UpsertCounts[]> {
  return stageAndMerge(
    db,
    tables.map(({ spec, rows, parents }) => ({ spec, unique: dedupeByKey(spec, rows), parents })),
    runId,
    account,
  );
}

/**
 * For parents fetched whole: marks deleted the child rows of those parents that the source no
 * longer lists (not among `keptRows`). Rows are never removed. Returns how many were marked.
 */
export async function markMissingChildren(
  db: AnyDatabase,
  spec: SourceTable,
  parentIds: readonly number[],
  keptRows: readonly LoadRow[],
  runId: number,
  account: string,
): Promise<number> {
  if (!spec.parentColumn || parentIds.length === 0) return 0;
  const keyArrays = spec.key.map((column) => keptRows.map((row) => row[column] as number));
  // An anti-join (hashed), not `key <> all(array)`: that compares every row with every kept key,
  // which took half a second a page on a property's AR ledger.
  const kept = sql`exists (
    select 1 from unnest(${sql.join(keyArrays.map((values) => sql`${values}::bigint[]`))}) as k(${sql.join(spec.key.map(ident))})
    where ${sameKey(spec, 'k')})`;
  const result = await markDeleted(
    spec,
    runId,
    account,
    sql`${ident(spec.parentColumn)} = any(${parentIds as number[]}::bigint[]) and not ${kept}`,
  ).execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * The statement that marks deleted the live rows of an account in `spec` that `condition` names (rows are
 * never removed).
 */
function markDeleted(
  spec: SourceTable,
  runId: number,
  account: string,
  condition: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return sql`update ${sql.table(spec.name)} set deleted_at = now(), last_synced_at = now(), last_run_id = ${runId}
    where ${ident(ACCOUNT_COLUMN)} = ${account} and deleted_at is null and ${condition}`;
}

/** `alias`'s key columns equal to those of the table's row. */
function sameKey(spec: SourceTable, alias: string): RawBuilder<unknown> {
  return sql.join(
    spec.key.map((column) => sql`${sql.ref(`${alias}.${column}`)} = ${sql.raw(spec.name)}.${ident(column)}`),
    sql` and `,
  );
}

/** Marks deleted the not-yet-deleted rows of `spec` whose `column` is among `values`. */
export async function markDeletedWhere(
  db: AnyDatabase,
  spec: SourceTable,
  column: string,
  values: readonly number[],
  runId: number,
  account: string,
): Promise<number> {
  if (values.length === 0) return 0;
  const result = await markDeleted(
    spec,
    runId,
    account,
    sql`${ident(column)} = any(${values as number[]}::bigint[])`,
  ).execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Marks deleted the parent rows in scope (`column` among `values`) whose key is not among the
 * keys `seen` (a subquery over the sync's record of keys), and their children. Returns how many
 * rows were marked.
 */
export async function markUnseenDeleted(
  db: AnyDatabase,
  tables: readonly SourceTable[],
  scope: { column: string; values: readonly number[] },
  seen: (key: RawBuilder<unknown>) => RawBuilder<boolean>,
  runId: number,
  account: string,
): Promise<number> {
  const [parent, ...children] = tables;
  const key = sql.ref(`p.${parent.key[0]}`);
  const { rows } = await sql<{ key: number }>`
    update ${sql.table(parent.name)} p set deleted_at = now(), last_synced_at = now(), last_run_id = ${runId}
    where p.${ident(ACCOUNT_COLUMN)} = ${account} and p.${ident(scope.column)} = any(${scope.values as number[]}::bigint[]) and p.deleted_at is null and not (${seen(key)})
    returning ${key} as key
  `.execute(db);
  const gone = rows.map((row) => Number(row.key));
  let deleted = gone.length;
  for (const child of children)
    deleted += await markDeletedWhere(db, child, child.parentColumn!, gone, runId, account);
  return deleted;
}

/**
 * The rows `row` reads for each of `values` (an array parameter), key by key: each key's lookup
 * is a subquery Postgres may not merge into the join (`offset 0`), so that it reads the index
 * that holds account and key. Merged, the planner weighs one read of the account's rows against
 * the keys' lookups, and where its statistics take the account's rows for few (a table never
 * measured, an account new to it) it reads them all, for every page of a load that makes them many.
 */
function eachKey<Row>(
  values: RawBuilder<unknown>,
  row: (value: RawBuilder<unknown>) => RawBuilder<unknown>,
): RawBuilder<Row> {
  return sql<Row>`select t.* from unnest(${values}) as k(v) cross join lateral (${row(sql.ref('k.v'))} offset 0) as t`;
}

/** What the warehouse holds of some parent keys. */
export interface StoredParents {
  /** The digest stored with each key whose row is not marked deleted. */
  digests: Map<number, string>;
  /** Every key that has a row, deleted or not. */
  present: Set<number>;
}

/** What the warehouse holds of the given parent keys: their rows' digests, and which have a row at all. */
export async function storedParents(
  db: AnyDatabase,
  parent: SourceTable,
  keys: readonly number[],
  account: string,
): Promise<StoredParents> {
  const stored: StoredParents = { digests: new Map(), present: new Set() };
  if (keys.length === 0) return stored;
  const key = ident(parent.key[0]);
  const { rows } = await eachKey<{ key: number; digest: string | null; live: boolean }>(
    sql`${keys as number[]}::bigint[]`,
    (
      id,
    ) => sql`select ${key} as key, ${ident(SOURCE_HASH_COLUMN)} as digest, deleted_at is null as live from ${sql.table(parent.name)}
      where ${ident(ACCOUNT_COLUMN)} = ${account} and ${key} = ${id}`,
  ).execute(db);
  for (const row of rows) {
    stored.present.add(Number(row.key));
    if (row.live && row.digest !== null) stored.digests.set(Number(row.key), row.digest);
  }
  return stored;
}

/**
 * The keys (as text) of the live parent rows last loaded from exactly these record texts, by
 * the text's digest (`source_text_hash`, indexed).
 */
export async function storedTextDigests(
  db: AnyDatabase,
  parent: SourceTable,
  digests: readonly string[],
  account: string,
): Promise<Map<string, string>> {
  if (digests.length === 0) return new Map();
  const { rows } = await eachKey<{ key: string; digest: string }>(
    sql`${digests as string[]}::text[]`,
    (
      digest,
    ) => sql`select ${ident(parent.key[0])}::text as key, ${ident(SOURCE_TEXT_HASH_COLUMN)} as digest from ${sql.table(parent.name)}
      where ${ident(ACCOUNT_COLUMN)} = ${account} and ${ident(SOURCE_TEXT_HASH_COLUMN)} = ${digest} and deleted_at is null`,
  ).execute(db);
  return new Map(rows.map((row) => [row.digest, row.key]));
}
