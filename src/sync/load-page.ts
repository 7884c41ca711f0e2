import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { MethodVersion } from '../config/schema.js';
import type { CompletionAction, StreamDefinition, WorkUnitPlan } from '../streams/types.js';
import { markDeletedWhere, markMissingChildren, upsertRows, type LoadRow } from '../warehouse/bulk-load.js';
import { SOURCE_HASH_COLUMN } from '../warehouse/table-specs.js';
import { inTransaction } from '../warehouse/transaction.js';
import { writeCursor } from './cursors.js';
import { quarantineRecords, resolveKeylessForUnit, resolveQuarantined, type QuarantineEntry } from './quarantine.js';
import type { RowCounts } from './types.js';
import { crashPoint } from './crash-points.js';
import { checkpointPage, forgetSeen, recordSeen } from './work-units.js';

/** One page to load, with where it sits in its unit. */
export interface PageToLoad {
  stream: StreamDefinition;
  plan: WorkUnitPlan;
  runId: number;
  unitId: number;
  pageNo: number;
  records: readonly unknown[];
  version: MethodVersion;
  calls: number;
  retries: number;
  bytes: number;
  /** Page to fetch next (written as the checkpoint). */
  nextPage: number;
  /** The unit's listing is complete: run its completion actions and mark it done. */
  complete: boolean;
  /** The listing changed while it was paged and is read again from page 1: forget what it saw. */
  restart?: boolean;
}

/** What loading a page did, plus the quarantine lines for the log. */
export interface PageLoaded extends RowCounts {
  problems: string[];
}

/**
 * Loads one page in one transaction: normalizes each record (a bad one goes to quarantine and
 * the rest load), upserts every table set-based, marks deleted the children that parents
 * fetched whole no longer list, records the keys seen, and writes the unit's checkpoint —
 * with the unit's completion actions (cursors, deletions) when this page completes it. A crash
 * at any instant therefore repeats at most this page and loses nothing.
 */
export async function loadPage(db: Kysely<any>, page: PageToLoad): Promise<PageLoaded> {
  const { stream, plan } = page;
  const rowsByTable = new Map<string, LoadRow[]>(stream.tables.map((table) => [table.name, []]));
  const parentKeys: number[] = [];
  const quarantined: QuarantineEntry[] = [];
  const problems: string[] = [];
  const seenKeys: number[] = [];
  const keys = page.records.map((record) => stream.recordKey(record));
  const digests = page.records.map((record) => recordDigest(record, page.version));
  const stored = await storedDigests(db, stream, keys);
  let skipped = 0;
  for (const [index, record] of page.records.entries()) {
    const key = keys[index];
    // A record identical to the one last loaded (children included) changes no row: skip it.
    if (key !== undefined && stored.get(Number(key)) === digests[index]) {
      seenKeys.push(Number(key));
      skipped += 1;
      continue;
    }
    try {
      const normalized = stream.normalize(record, { version: page.version });
      const parentRow = normalized.rows[stream.tables[0].name]?.[0];
      if (parentRow) parentRow[SOURCE_HASH_COLUMN] = digests[index];
      parentKeys.push(normalized.key);
      for (const [table, rows] of Object.entries(normalized.rows)) rowsByTable.get(table)?.push(...(rows ?? []));
    } catch (error) {
      const recordKey = key;
      const reason = error instanceof Error ? error.message : String(error);
      const property = plan.propertyIds.length === 1 ? plan.propertyIds[0] : propertyOf(record);
      quarantined.push({
        runId: page.runId,
        workUnitId: page.unitId,
        stream: stream.name,
        entity: stream.entity,
        recordKey,
        propertyId: property ? Number(property) : undefined,
        windowFrom: plan.window?.from,
        windowTo: plan.window?.to,
        page: page.pageNo,
        reason,
        raw: record,
      });
      if (recordKey && /^\d+$/.test(recordKey)) seenKeys.push(Number(recordKey));
      problems.push(
        `${stream.entity} ${recordKey ?? '(no id)'} of property ${property ?? plan.propertyIds.join(',')} on page ${page.pageNo} of ${plan.unitKey} quarantined: ${reason}`,
      );
    }
  }
  seenKeys.push(...parentKeys);

  const loaded = await inTransaction(db, async (trx) => {
    const counts: PageLoaded = { records: page.records.length, rowsInserted: 0, rowsUpdated: 0, rowsUnchanged: skipped, rowsDeleted: 0, quarantined: quarantined.length, problems };
    for (const table of stream.tables) {
      const rows = rowsByTable.get(table.name) ?? [];
      const written = await upsertRows(trx, table, rows, page.runId);
      counts.rowsInserted += written.inserted;
      counts.rowsUpdated += written.updated;
      counts.rowsUnchanged += written.unchanged;
      if (table.parentColumn) counts.rowsDeleted += await markMissingChildren(trx, table, parentKeys, rows, page.runId);
    }
    await quarantineRecords(trx, quarantined);
    await resolveQuarantined(trx, { stream: stream.name, keys: parentKeys.map(String), runId: page.runId });
    if (plan.trackSeen && page.restart) await forgetSeen(trx, page.unitId);
    else if (plan.trackSeen) await recordSeen(trx, page.unitId, stream.entity, seenKeys);
    if (page.complete) {
      for (const action of plan.onComplete) counts.rowsDeleted += await complete(trx, stream, page, action);
    }
    await checkpointPage(trx, {
      unitId: page.unitId,
      nextPage: page.nextPage,
      done: page.complete,
      progress: { ...counts, calls: page.calls, retries: page.retries, bytes: page.bytes },
    });
    if (page.complete) {
      const { rows } = await sql<{ clean: boolean }>`
        select quarantined = 0 as clean from sync_work_units where work_unit_id = ${page.unitId}
      `.execute(trx);
      if (rows[0]?.clean) await resolveKeylessForUnit(trx, { unitKey: plan.unitKey, runId: page.runId });
    }
    crashPoint('mid-commit');
    return counts;
  });
  crashPoint('after-commit');
  return loaded;
}

async function complete(db: Kysely<any>, stream: StreamDefinition, page: PageToLoad, action: CompletionAction): Promise<number> {
  switch (action.type) {
    case 'cursor':
      await writeCursor(db, { stream: stream.name, scope: action.scope, cursor: action.cursor, value: action.value, state: action.state, runId: page.runId });
      return 0;
    case 'mark-unseen-deleted': {
      const [parent, ...children] = stream.tables;
      const key = parent.key[0];
      const { rows } = await sql<{ key: number }>`
        update ${sql.table(parent.name)} p set deleted_at = now(), last_synced_at = now(), last_run_id = ${page.runId}
        where ${sql.ref(action.scope.column)} = any(${action.scope.values}::bigint[]) and p.deleted_at is null
          and not exists (
            select 1 from sync_work_unit_seen s
            where s.work_unit_id = ${page.unitId} and s.entity = ${stream.entity} and s.key = p.${sql.ref(key)})
        returning p.${sql.ref(key)} as key
      `.execute(db);
      const gone = rows.map((row) => Number(row.key));
      let deleted = gone.length;
      for (const child of children) deleted += await markDeletedWhere(db, child, child.parentColumn!, gone, page.runId);
      return deleted;
    }
  }
}

/** Bump when normalization changes, so that records loaded by an older propsync are loaded again. */
const NORMALIZATION_VERSION = '1';

/** Digest of a whole decoded record: JSON and XML decode to the same tree, so to the same digest. */
function recordDigest(record: unknown, version: string): string {
  return createHash('sha1').update(NORMALIZATION_VERSION).update(version).update(JSON.stringify(record)).digest('base64');
}

/** Digests stored with the page's records (by key) that are in the warehouse and not marked deleted. */
async function storedDigests(db: Kysely<any>, stream: StreamDefinition, recordKeys: readonly (string | undefined)[]): Promise<Map<number, string>> {
  const keys = recordKeys.filter((key): key is string => key !== undefined).map(Number);
  if (keys.length === 0) return new Map();
  const parent = stream.tables[0];
  const key = parent.key[0];
  const { rows } = await sql<{ key: number; digest: string | null }>`
    select ${sql.ref(key)} as key, ${sql.ref(SOURCE_HASH_COLUMN)} as digest from ${sql.table(parent.name)}
    where ${sql.ref(key)} = any(${keys}::bigint[]) and deleted_at is null`.execute(db);
  return new Map(rows.filter((row) => row.digest !== null).map((row) => [Number(row.key), row.digest!]));
}

function propertyOf(record: unknown): string | undefined {
  if (record && typeof record === 'object' && 'propertyId' in record) {
    const value = (record as { propertyId: unknown }).propertyId;
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  }
  return undefined;
}
