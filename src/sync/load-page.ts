import { createHash } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { MethodVersion } from '../source/settings.js';
import type { CompletionAction, RowsByTable, StreamDefinition, WorkUnitPlan } from '../streams/types.js';
import type { Db } from '../catalog/tables.js';
import { RecordError, tracingFields } from '../source/field-readers.js';
import {
  copyOrMerge,
  markUnseenDeleted,
  storedParents,
  storedTextDigests,
  upsertStaged,
  type LoadRow,
  type UpsertCounts,
} from '../warehouse/bulk-load/index.js';
import { checkRow } from '../warehouse/column-domains.js';
import { SOURCE_HASH_COLUMN, SOURCE_TEXT_HASH_COLUMN } from '../warehouse/schema.js';
import { KnownRecord, type RecordRecognizer } from '../source/types.js';
import { isValueError, sqlState } from '../warehouse/connection-errors.js';
import { inTransaction } from '../warehouse/transaction.js';
import { ROW_COUNTERS, zeroCounts } from '../warehouse/run-counters.js';
import { writeCursors } from './cursors.js';
import {
  quarantineInsert,
  resolveKeylessForUnit,
  resolveQuarantined,
  type QuarantineEntry,
} from './quarantine.js';
import { Bookkeeping } from './page-bookkeeping.js';
import type { RowCounts } from './types.js';
import { crashPoint } from './crash-points.js';
import { protectRecord, type PrivacyPolicy } from './privacy/policy.js';
import { pageRetryLockKey } from './lock.js';
import { WarehouseConstraintError } from './errors.js';
import { checkpointPage, forgetSeen, recordSeen, seenBy } from './work-units.js';
import type { FirstLoad } from './first-load.js';
import { messageOf } from '../log/errors.js';

/** One page to load, with where it sits in its unit. */
export interface PageToLoad {
  /** The source account the page is of. */
  account: string;
  stream: StreamDefinition;
  plan: WorkUnitPlan;
  runId: number;
  unitId: number;
  pageNo: number;
  /** The page's records; a `KnownRecord` is one the source client passed over, held as it is. */
  records: readonly unknown[];
  /** The digest of each record's text, by index, when the client digested the reply (stored with the parent row). */
  textDigests?: readonly string[];
  version: MethodVersion;
  calls: number;
  retries: number;
  bytes: number;
  /** Page to fetch next (written as the checkpoint). */
  nextPage: number;
  /** On the first page of a pass: the total its listing announced (null: none), kept with the checkpoint. */
  listingTotal?: number | null;
  /** The unit's listing is complete: run its completion actions and mark it done. */
  complete: boolean;
  /** The listing changed while it was paged and is read again from page 1: forget what it saw. */
  restart?: boolean;
  /** Checked last in the page's transaction (the stream's lock still held); throws to roll the page back. */
  guard?: (trx: Db) => Promise<void>;
  /** The personal-data policy, applied to each record before anything of it is digested, written or quarantined. */
  privacy?: PrivacyPolicy;
  /** The stream's first load for the account (`FirstLoad`): a page of keys not written before needs no lookup. */
  firstLoad?: FirstLoad;
}

/** What loading a page did, plus the quarantine lines and the records' notes for the log. */
export interface PageLoaded extends RowCounts {
  problems: string[];
  /** What the stream noted of records it loaded (`NormalizedRecord.notes`). */
  notes?: string[];
}

/**
 * Loads one page in one transaction: normalizes each record (a bad one goes to quarantine and
 * the rest load), upserts every table set-based, marks deleted the children that parents
 * fetched whole no longer list, records the keys seen, and writes the unit's checkpoint —
 * with the unit's completion actions (cursors, deletions) when this page completes it. A crash
 * at any instant therefore repeats at most this page and loses nothing.
 */
export async function loadPage(db: Db, page: PageToLoad): Promise<PageLoaded> {
  const { stream, plan } = page;
  const quarantined: Quarantined[] = [];
  const seenKeys: number[] = [];
  const ready: ReadyRecord[] = [];
  if (page.privacy && !page.privacy.keepsAll)
    for (const record of page.records)
      if (!(record instanceof KnownRecord)) protectRecord(page.privacy, stream.personal, record);
  const keys = page.records.map((record) => parsedKey(stream, record));
  const toDecide = keys.flatMap((key, index) =>
    key.id === undefined || page.records[index] instanceof KnownRecord ? [] : [key.id],
  );
  const stored = page.firstLoad?.claim(toDecide)
    ? { digests: new Map<number, string>(), present: new Set<number>() }
    : await storedParents(db, stream.tables[0], toDecide, page.account);
  let skipped = 0;
  // Where on the page each key was last passed over as the row already stands.
  const passedAt = new Map<number, number>();
  const passedOver = (id: number | undefined, index: number) => {
    skipped += 1;
    if (id !== undefined) passedAt.set(id, index);
  };
  for (const [index, record] of page.records.entries()) {
    const key = keys[index];
    if (key.id !== undefined) seenKeys.push(key.id);
    if (record instanceof KnownRecord) {
      // Passed over undecoded: its text is the very text of the row as it stands.
      passedOver(key.id, index);
      continue;
    }
    try {
      if (key.error) throw key.error;
      const text = page.textDigests?.[index];
      const held = key.id !== undefined && stored.present.has(key.id);
      // A record the warehouse has no row of is known by its text's digest alone (a first load's,
      // a backfill's): its tree's digest is taken the first time it comes back changed.
      const digest = held || text === undefined ? recordDigest(record, page.version) : null;
      // A record identical to the one last loaded (children included) changes no row: skip it.
      if (held && stored.digests.get(key.id!) === digest) {
        passedOver(key.id, index);
        continue;
      }
      ready.push({ index, ...checkedRecord(stream, record, page.version, { tree: digest, text }) });
    } catch (error) {
      quarantined.push(quarantineOf(page, keys[index], index, messageOf(error)));
    }
  }

  // A record the page lists again later holds what the row should be: a copy before one passed
  // over is not written over the row.
  const toWrite = ready.filter((copy) => (passedAt.get(copy.key) ?? -1) < copy.index);
  skipped += ready.length - toWrite.length;

  // Records none of which the warehouse has seen (a full load, a backfill): their rows are copied in, not merged.
  const fresh = toWrite.every((record) => !stored.present.has(record.key));
  // Rows are written set-based; should Postgres refuse a value, the page is loaded again record by record.
  const load = (oneByOne: boolean) =>
    inTransaction(
      db,
      async (trx) => {
        const written = await writeRecords(trx, stream, toWrite, {
          account: page.account,
          runId: page.runId,
          fresh,
          oneByOne,
        });
        const entries = [
          ...quarantined,
          ...written.refused.map(({ record, message }) =>
            quarantineOf(page, keys[record.index], record.index, `Postgres refused the record: ${message}`),
          ),
          ...written.loaded.flatMap((record) =>
            (record.rejected ?? []).map(({ label, reason }) =>
              quarantineOf(
                page,
                keys[record.index],
                record.index,
                `${reason} (${label} left out; the rest of the record loaded)`,
              ),
            ),
          ),
        ];
        const counts: PageLoaded = {
          ...zeroCounts(ROW_COUNTERS),
          records: page.records.length,
          rowsInserted: written.inserted,
          rowsUpdated: written.updated,
          rowsUnchanged: skipped + written.unchanged,
          rowsDeleted: written.deleted,
          quarantined: entries.length,
          problems: entries.map((entry) => entry.line),
          notes: written.loaded.flatMap((record) => record.notes ?? []),
        };
        // A record loaded without a part is not loaded whole: its entries stay open.
        const loadedKeys = written.loaded
          .filter((record) => !record.rejected)
          .map((record) => String(record.key));
        const bookkeeping = new Bookkeeping();
        bookkeeping.add(
          quarantineInsert(
            trx,
            entries.map((entry) => entry.entry),
            new Set(loadedKeys),
          ),
          resolveQuarantined(trx, {
            account: page.account,
            stream: stream.name,
            keys: loadedKeys,
            runId: page.runId,
          }),
        );
        // A unit read whole on this page saw this page's keys: they are read from the statement, not stored
        // (nothing reads a done unit's keys later).
        const seen: SeenKeys =
          page.pageNo === 1 && page.complete ? { keys: seenKeys } : { unitId: page.unitId };
        if (plan.trackSeen && page.restart) await forgetSeen(trx, page.account, page.unitId);
        else if (plan.trackSeen && !('keys' in seen))
          bookkeeping.add(recordSeen(page.account, page.unitId, stream.entity, seenKeys));
        if (page.complete)
          counts.rowsDeleted += await complete(trx, stream, page, plan.onComplete, bookkeeping, seen);
        const checkpoint = checkpointPage(trx, {
          unitId: page.unitId,
          nextPage: page.nextPage,
          done: page.complete,
          listingTotal: page.listingTotal,
          progress: { ...counts, pages: 1, calls: page.calls, retries: page.retries, bytes: page.bytes },
        });
        // Once the unit completes clean, the keyless entries of its family's earlier units are resolved.
        const keyless = page.complete
          ? (ran: RawBuilder<unknown>) =>
              resolveKeylessForUnit(
                trx,
                { account: page.account, unitKey: plan.unitKey, runId: page.runId },
                sql<boolean>`(select quarantined from ${ran}) = 0`,
              )
          : undefined;
        await bookkeeping.runWith(trx, checkpoint, keyless);
        await page.guard?.(trx);
        crashPoint('mid-commit');
        return counts;
      },
      { retriesOneAtATime: pageRetryLockKey(page.account) },
    );
  const loaded = await load(false)
    .catch((error: unknown) => {
      if (error instanceof RefusedRows) return load(true);
      throw error;
    })
    .catch((error: unknown) => {
      throw isConstraintError(error) ? new WarehouseConstraintError(page.pageNo, error) : error;
    });
  crashPoint('after-commit');
  return loaded;
}

/**
 * A record's key as the source sent it (text, for the quarantine) and as a bigint id when it is one; a key
 * that cannot be read is the record's error.
 */
interface RecordKey {
  text?: string;
  id?: number;
  error?: unknown;
}

/**
 * A record's key as text: the one the client gave a record it passed over (`KnownRecord`), else the stream's
 * reading of the record.
 */
export function keyOfRecord(stream: StreamDefinition, record: unknown): string | undefined {
  return record instanceof KnownRecord ? record.key : stream.recordKey(record);
}

function parsedKey(stream: StreamDefinition, record: unknown): RecordKey {
  try {
    const text = keyOfRecord(stream, record);
    return { text, id: safeId(text) };
  } catch (error) {
    return { error };
  }
}

/** An id that a bigint column holds and a JS number carries exactly, or undefined. */
function safeId(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,16}$/.test(text)) return undefined;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** A record normalized and checked against its tables' declarations, ready to write. */
interface ReadyRecord {
  /** Its place in the page. */
  index: number;
  key: number;
  rows: Map<string, LoadRow[]>;
  notes?: string[];
  /** Its parts left out (`NormalizedRecord.parts`), each with why: the record loads without them. */
  rejected?: { label: string; reason: string }[];
}

/**
 * Normalizes a record and checks every row against its table's declared column domains, so
 * that a value a column cannot hold is this record's error (naming the source field it came
 * from, and the column) rather than the page's, or its part's error when the row is of a part.
 * A record with a part left out carries no digests: it is read again by the next run.
 */
function checkedRecord(
  stream: StreamDefinition,
  record: unknown,
  version: MethodVersion,
  digests: { tree: string | null; text?: string },
): Omit<ReadyRecord, 'index'> {
  const normalized = stream.normalize(record, { version });
  const check = (of: RowsByTable) => checkedRows(stream, record, version, of);
  const rows = new Map<string, LoadRow[]>(check(normalized.rows));
  const notes = [...(normalized.notes ?? [])];
  const rejected: { label: string; reason: string }[] = [];
  for (const part of normalized.parts ?? []) {
    try {
      if ('error' in part) throw part.error;
      for (const [table, tableRows] of check(part.rows)) {
        const into = rows.get(table)!;
        for (const row of tableRows) into.push(row);
      }
      notes.push(...(part.notes ?? []));
    } catch (error) {
      rejected.push({ label: part.label, reason: messageOf(error) });
    }
  }
  const parentRow = rows.get(stream.tables[0].name)?.[0];
  if (parentRow) {
    parentRow[SOURCE_HASH_COLUMN] = rejected.length ? null : digests.tree;
    parentRow[SOURCE_TEXT_HASH_COLUMN] = rejected.length ? null : (digests.text ?? null);
  }
  return {
    key: normalized.key,
    rows,
    ...(notes.length && { notes }),
    ...(rejected.length && { rejected }),
  };
}

/** Rows by table, each checked against its table's column domains; throws the first problem as a `RecordError`. */
function checkedRows(
  stream: StreamDefinition,
  record: unknown,
  version: MethodVersion,
  rows: RowsByTable,
): [string, LoadRow[]][] {
  return stream.tables.map((table, position) => {
    const tableRows = rows[table.name] ?? [];
    for (const row of tableRows) {
      const problem = checkRow(table, row);
      if (!problem) continue;
      const where =
        problem.path === undefined
          ? fieldOf(stream, record, version, problem.value)
          : position === 0
            ? problem.path
            : `${table.name}.${problem.column}.${problem.path}`;
      throw new RecordError(
        where ?? `${table.name}.${problem.column}`,
        problem.value,
        `${problem.expected} for column ${table.name}.${problem.column}`,
      );
    }
    return [table.name, tableRows];
  });
}

/**
 * The source field a value of the record was read from. Normalization is a pure function of the
 * record, so it is traced only for a record that has a problem, by normalizing it once more.
 */
function fieldOf(
  stream: StreamDefinition,
  record: unknown,
  version: MethodVersion,
  value: unknown,
): string | undefined {
  return tracingFields(() => stream.normalize(record, { version })).fieldOf(value);
}

/** What writing a page's records did, and the records Postgres refused. */
interface Written extends UpsertCounts {
  deleted: number;
  loaded: ReadyRecord[];
  refused: { record: ReadyRecord; message: string }[];
}

/**
 * Writes the records' rows set-based (`oneByOne` false): should Postgres refuse a value (a data
 * exception, SQLSTATE class 22, that the checks above did not foresee), it throws `RefusedRows`,
 * and the page's transaction, rolled back, is run again with `oneByOne`: each record is then
 * written under a savepoint of its own, so that only the records Postgres refuses are left out,
 * with its message. (No savepoint around the set: it would cost every page two round trips for
 * what is rare.) A constraint of the warehouse (class 23) is not a record's fault: it fails the page.
 */
async function writeRecords(
  trx: Db,
  stream: StreamDefinition,
  records: readonly ReadyRecord[],
  how: WriteOptions,
): Promise<Written> {
  if (records.length === 0)
    return { inserted: 0, updated: 0, unchanged: 0, deleted: 0, loaded: [], refused: [] };
  if (!how.oneByOne) {
    try {
      return { ...(await writeRows(trx, stream, records, how)), loaded: [...records], refused: [] };
    } catch (error) {
      throw isValueError(error) ? new RefusedRows(error) : error;
    }
  }
  const written: Written = { inserted: 0, updated: 0, unchanged: 0, deleted: 0, loaded: [], refused: [] };
  for (const record of records) {
    await sql`savepoint record_rows`.execute(trx);
    try {
      const counts = await writeRows(trx, stream, [record], how);
      await sql`release savepoint record_rows`.execute(trx);
      written.inserted += counts.inserted;
      written.updated += counts.updated;
      written.unchanged += counts.unchanged;
      written.deleted += counts.deleted;
      written.loaded.push(record);
    } catch (error) {
      if (!isValueError(error)) throw error;
      await sql`rollback to savepoint record_rows`.execute(trx);
      written.refused.push({ record, message: refusal(error) });
    }
  }
  return written;
}

/** The run writing, and whether none of the records' parents is in the warehouse (see `UpsertOptions`). */
interface WriteOptions {
  account: string;
  runId: number;
  fresh: boolean;
  /** Each record under a savepoint of its own (see `writeRecords`). */
  oneByOne?: boolean;
}

/**
 * Upserts every table's rows of the records, and marks deleted the children their parents no
 * longer list. Records some of which the warehouse holds (an incremental's) are merged in one
 * statement for all tables (`upsertStaged`). Records none of which it holds (a full load's) are
 * copied straight in (`copyOrMerge`): no other row can name one of their parents (children are
 * only ever written with their parent, and rows are never removed), so there is nothing to mark,
 * and the search is skipped; it matters on a full load, when the tables grow faster than
 * Postgres's statistics and that search would read a whole table.
 */
async function writeRows(
  trx: Db,
  stream: StreamDefinition,
  records: readonly ReadyRecord[],
  { account, runId, fresh }: WriteOptions,
): Promise<UpsertCounts & { deleted: number }> {
  // A record without one of its parts leaves its other children as they stand: what it lists is not all there is.
  const parents = records.filter((record) => !record.rejected).map((record) => record.key);
  const tables = stream.tables.map((table, index) => ({
    spec: table,
    rows: records.flatMap((record) => record.rows.get(table.name) ?? []),
    parents: index === 0 ? undefined : parents,
  }));
  const counts = { inserted: 0, updated: 0, unchanged: 0, deleted: 0 };
  for (const written of await (fresh ? copyOrMerge : upsertStaged)(trx, tables, runId, account)) {
    counts.inserted += written.inserted;
    counts.updated += written.updated;
    counts.unchanged += written.unchanged;
    counts.deleted += written.deleted ?? 0;
  }
  return counts;
}

/** An integrity constraint of the warehouse refused a statement (SQLSTATE class 23). */
function isConstraintError(error: unknown): boolean {
  return sqlState(error)?.startsWith('23') === true;
}

/** Postgres refused a value of the rows being written: its message, with the detail it gave. */
class RefusedRows extends Error {
  constructor(cause: unknown) {
    super(refusal(cause));
  }
}

/** What Postgres said when it refused a value: its message, the column and the detail it gave. */
function refusal(cause: unknown): string {
  const { message, detail, column } = cause as { message: string; detail?: string; column?: string };
  return [message, column ? `column ${column}` : '', detail ?? ''].filter(Boolean).join('; ');
}

/** A quarantine entry, and its line for the log naming the record, its property, the page and the reason. */
interface Quarantined {
  entry: QuarantineEntry;
  line: string;
}

function quarantineOf(page: PageToLoad, key: RecordKey, index: number, reason: string): Quarantined {
  const { stream, plan } = page;
  const record = page.records[index];
  const property = plan.propertyIds.length === 1 ? plan.propertyIds[0] : propertyOf(record);
  return {
    entry: {
      account: page.account,
      runId: page.runId,
      workUnitId: page.unitId,
      stream: stream.name,
      entity: stream.entity,
      recordKey: key.text,
      propertyId: safeId(property),
      windowFrom: plan.window?.from,
      windowTo: plan.window?.to,
      page: page.pageNo,
      reason,
      raw: record,
    },
    line:
      `${stream.entity} ${key.text ?? '(no id)'} of property ${property ?? plan.propertyIds.join(',')} ` +
      `on page ${page.pageNo} of ${plan.unitKey} quarantined: ${reason}`,
  };
}

/** The keys a unit saw: this page's, or those its pages stored (`recordSeen`). */
type SeenKeys = { keys: readonly number[] } | { unitId: number };

/**
 * A completing page's actions: its cursors join the page's bookkeeping; marking unseen rows deleted
 * reads the stored seen keys, so the bookkeeping gathered so far is run first when they are stored.
 * Returns the rows marked deleted.
 */
async function complete(
  db: Db,
  stream: StreamDefinition,
  page: PageToLoad,
  actions: readonly CompletionAction[],
  bookkeeping: Bookkeeping,
  seen: SeenKeys,
): Promise<number> {
  const cursors = actions.flatMap((action) => (action.type === 'cursor' ? [action] : []));
  bookkeeping.add(
    writeCursors(db, { account: page.account, stream: stream.name, runId: page.runId, cursors }),
  );
  const wasSeen =
    'keys' in seen
      ? (key: RawBuilder<unknown>) => sql<boolean>`${key} = any(${seen.keys as number[]}::bigint[])`
      : (key: RawBuilder<unknown>) => seenBy(page.account, seen.unitId, stream.entity, key);
  let deleted = 0;
  for (const action of actions) {
    if (action.type === 'mark-unseen-deleted') {
      if (!('keys' in seen)) await bookkeeping.flush(db);
      deleted += await markUnseenDeleted(db, stream.tables, action.scope, wasSeen, page.runId, page.account);
    }
  }
  return deleted;
}

/** Bump when normalization changes, so that records loaded by an older propsync are loaded again. */
const NORMALIZATION_VERSION = '1';

/** Digest of a whole decoded record: JSON and XML decode to the same tree, so to the same digest. */
function recordDigest(record: unknown, version: string): string {
  return createHash('sha1')
    .update(NORMALIZATION_VERSION)
    .update(version)
    .update(JSON.stringify(record))
    .digest('base64');
}

/**
 * What lets the source client pass over, undecoded, the records whose text is the very text a
 * live parent row was last loaded from: the text's digest is salted with what else decides how
 * a record loads (the normalization's and the method's versions), so a row loaded under other
 * versions is not recognized.
 */
export function recordRecognizer(
  db: Db,
  account: string,
  stream: StreamDefinition,
  version: MethodVersion,
  privacy?: PrivacyPolicy,
): RecordRecognizer {
  // A policy other than keep salts it too: rows written under another policy are not passed over.
  const policy = privacy && !privacy.keepsAll ? `:${JSON.stringify(privacy.record)}` : '';
  return {
    salt: `${NORMALIZATION_VERSION}:${version}${policy}`,
    lookup: (digests) => storedTextDigests(db, stream.tables[0], digests, account),
  };
}

function propertyOf(record: unknown): string | undefined {
  if (record && typeof record === 'object' && 'propertyId' in record) {
    const value = (record as { propertyId: unknown }).propertyId;
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  }
  return undefined;
}
