import { sql, type RawBuilder } from 'kysely';
import { prepared } from '../prepared.js';
import {
  ACCOUNT_COLUMN,
  type AnyDatabase,
  digestColumnsOf,
  hasRowHash,
  loadColumns,
  primaryKey,
  ROW_HASH_COLUMN,
  type SourceTable,
} from '../schema.js';
import { copyNewRows, copyNewTables, prepareStaging, stageRows, stagingTable } from './copy.js';
import { inlineJson } from './encode.js';
import { amongRows, markDeleted, markMissingChildren } from './mark-deleted.js';
import { digestRows, storedRowDigests } from './row-digests.js';
import { dedupeByKey, keyText, type LoadRow, type UpsertCounts } from './rows.js';
import { columnDefinitions, ident, sameKey } from './sql-names.js';

/** Upserts: rows copied or merged into their tables, in one statement per page. */

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
  const unique = uniqueRows(spec, rows);
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
 * One table's part of a merge: its rows to write (one per key), and the parents whose other rows
 * to mark deleted; with `kept`, every row the parents list (those to write, and those passed over
 * as unchanged).
 */
interface MergePart {
  spec: SourceTable;
  unique: readonly LoadRow[];
  parents?: readonly number[];
  kept?: readonly LoadRow[];
}

/** One row per key, in key order (`dedupeByKey`), each with its digest when its table keeps one. */
function uniqueRows(spec: SourceTable, rows: readonly LoadRow[]): LoadRow[] {
  const unique = dedupeByKey(spec, rows);
  if (hasRowHash(spec)) digestRows(spec, unique);
  return unique;
}

/**
 * A child table's part with the rows whose digest is the one stored left out (they would change
 * nothing), kept for marking the parents' other rows deleted.
 */
async function withoutUnchanged(db: AnyDatabase, part: MergePart, account: string): Promise<MergePart> {
  if (!part.parents || !hasRowHash(part.spec)) return part;
  const stored = await storedRowDigests(db, part.spec, part.parents, account);
  if (stored.size === 0) return part;
  const changed = part.unique.filter(
    (row) => stored.get(keyText(part.spec.key, row)) !== row[ROW_HASH_COLUMN],
  );
  return { ...part, unique: changed, kept: part.unique };
}

/**
 * The digests of a parent's rows whose data are unchanged but whose digests differ (cleared by
 * `privacy apply`, or a record whose children alone changed): set in place, the row not counted
 * as written. Disjoint from the upsert's rows (those whose data differ), so no row is touched twice.
 */
function digestRefresh(
  spec: SourceTable,
  stage: RawBuilder<unknown>,
  index: number,
  account: string,
  { data, digests }: { data: readonly string[]; digests: readonly string[] },
): RawBuilder<unknown> {
  const stored = (columns: readonly string[]) => sql.join(columns.map((column) => sql`t.${ident(column)}`));
  const staged = (columns: readonly string[]) =>
    sql.join(
      columns.map((column) => (column === 'deleted_at' ? sql`null::timestamptz` : sql`s.${ident(column)}`)),
    );
  const matching = sql.join(
    primaryKey(spec).map((column) => sql`t.${ident(column)} = s.${ident(column)}`),
    sql` and `,
  );
  return sql`${sql.raw(`digests_${index}`)} as (
      update ${sql.table(spec.name)} t
         set ${sql.join(digests.map((column) => sql`${ident(column)} = s.${ident(column)}`))}
        from ${stage} s
       where ${matching} and t.${ident(ACCOUNT_COLUMN)} = ${account}
         and (${stored(digests)}) is distinct from (${staged(digests)})
         and (${stored(data)}) is not distinct from (${staged(data)})
      returning 1
    )`;
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
  for (const [index, { spec, unique, parents, kept: listed }] of parts.entries()) {
    const columns = loadColumns(spec);
    const all = [ACCOUNT_COLUMN, ...columns.map(([column]) => column)];
    const key = primaryKey(spec);
    const names = sql.join(all.map((column) => ident(column)));
    const table = sql.table(spec.name);
    const stage = sql.raw(inline ? `staged_${index}` : stagingTable(spec));
    if (inline) {
      ctes.push(sql`${stage} as (
        select ${account}::text as ${ident(ACCOUNT_COLUMN)}, s.*
          from json_to_recordset(${inlineJson(unique, columns)}::json)
            as s(${sql.raw(columnDefinitions(columns))})
      )`);
    }
    const updatable = all.filter((column) => !key.includes(column));
    const assignments = sql.join(
      updatable.map((column) => sql`${ident(column)} = excluded.${ident(column)}`),
    );
    // A row is written when its data differ; digests alone are refreshed apart (below), unwritten.
    const digests = digestColumnsOf(spec);
    const data = [...updatable.filter((column) => !digests.includes(column)), 'deleted_at'];
    const current = sql.join(data.map((column) => sql`${sql.raw(spec.name)}.${ident(column)}`));
    const incoming = sql.join(data.map((column) => sql`excluded.${ident(column)}`));
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
    if (digests.length) ctes.push(digestRefresh(spec, stage, index, account, { data, digests }));
    const marks = parents && spec.parentColumn;
    if (marks) {
      const kept = listed
        ? amongRows(spec, listed)
        : sql`exists (select 1 from ${stage} s where ${sameKey(spec, 's')})`;
      const unlisted = sql`${ident(spec.parentColumn!)} = any(${parents as number[]}::bigint[]) and not ${kept}`;
      ctes.push(sql`${gone} as (${markDeleted(spec, runId, account, unlisted)} returning 1)`);
    }
    counts.push(sql`(select count(*) filter (where inserted) from ${written})::int as ${sql.raw(`inserted_${index}`)},
      (select count(*) filter (where not inserted) from ${written})::int as ${sql.raw(`updated_${index}`)},
      ${marks ? sql`(select count(*) from ${gone})::int` : sql`0`} as ${sql.raw(`deleted_${index}`)}`);
  }
  const statement = sql<Record<string, number>>`with ${sql.join(ctes)} select ${sql.join(counts)}`;
  // Kept prepared unless it holds a parameter array of the page's keys: planned once for any size, a
  // generic plan would search such an array row by row, where a custom one hashes it.
  const { rows } = await (parts.some((part) => part.kept) ? statement : prepared(statement)).execute(db);
  return parts.map((part, index) => {
    const inserted = rows[0][`inserted_${index}`];
    const updated = rows[0][`updated_${index}`];
    return {
      inserted,
      updated,
      // Rows passed over by their digest count as unchanged, as those the merge left alone.
      unchanged: (part.kept ?? part.unique).length - inserted - updated,
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
  const parts: MergePart[] = [];
  for (const { spec, rows, parents } of tables)
    parts.push(await withoutUnchanged(db, { spec, unique: uniqueRows(spec, rows), parents }, account));
  return stageAndMerge(db, parts, runId, account);
}

/**
 * `upsertStaged` for rows most likely all new (a page none of whose parents the warehouse holds):
 * every table's rows copied straight in under one savepoint, nothing marked deleted (no row can
 * name a parent that was not there); merged by `upsertStaged` instead, should a key be there
 * after all (a child that moved to a new parent, a row of another unit).
 */
export async function copyOrMerge(
  db: AnyDatabase,
  tables: readonly StagedTable[],
  runId: number,
  account: string,
): Promise<UpsertCounts[]> {
  const parts = tables.map(({ spec, rows, parents }) => ({ spec, unique: uniqueRows(spec, rows), parents }));
  if (await copyNewTables(db, parts, runId, account))
    return parts.map(({ unique, parents }) => ({
      inserted: unique.length,
      updated: 0,
      unchanged: 0,
      ...(parents && { deleted: 0 }),
    }));
  return stageAndMerge(db, parts, runId, account);
}
