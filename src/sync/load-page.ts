import { createHash } from 'node:crypto';
import type { MethodVersion } from '../config/schema.js';
import type { CompletionAction, StreamDefinition, WorkUnitPlan } from '../streams/types.js';
import type { Db } from '../warehouse-schema.js';
import { markMissingChildren, markUnseenDeleted, storedDigests, upsertRows, type LoadRow } from '../warehouse/bulk-load.js';
import { SOURCE_HASH_COLUMN } from '../warehouse/schema.js';
import { inTransaction } from '../warehouse/transaction.js';
import { ROW_COUNTERS, zeroCounts } from './counters.js';
import { writeCursor } from './cursors.js';
import { quarantineRecords, resolveKeylessForUnit, resolveQuarantined, type QuarantineEntry } from './quarantine.js';
import type { RowCounts } from './types.js';
import { crashPoint } from './crash-points.js';
import { checkpointPage, forgetSeen, isUnitClean, recordSeen, seenBy } from './work-units.js';

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
export async function loadPage(db: Db, page: PageToLoad): Promise<PageLoaded> {
  const { stream, plan } = page;
  const rowsByTable = new Map<string, LoadRow[]>(stream.tables.map((table) => [table.name, []]));
  const parentKeys: number[] = [];
  const quarantined: QuarantineEntry[] = [];
  const problems: string[] = [];
  const seenKeys: number[] = [];
  const keys = page.records.map((record) => stream.recordKey(record));
  const digests = page.records.map((record) => recordDigest(record, page.version));
  const stored = await storedDigests(db, stream.tables[0], keys.filter((key): key is string => key !== undefined).map(Number));
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
    const counts: PageLoaded = { ...zeroCounts(ROW_COUNTERS), records: page.records.length, rowsUnchanged: skipped, quarantined: quarantined.length, problems };
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
      progress: { ...counts, pages: 1, calls: page.calls, retries: page.retries, bytes: page.bytes },
    });
    if (page.complete && (await isUnitClean(trx, page.unitId))) await resolveKeylessForUnit(trx, { unitKey: plan.unitKey, runId: page.runId });
    crashPoint('mid-commit');
    return counts;
  });
  crashPoint('after-commit');
  return loaded;
}

async function complete(db: Db, stream: StreamDefinition, page: PageToLoad, action: CompletionAction): Promise<number> {
  switch (action.type) {
    case 'cursor':
      await writeCursor(db, { stream: stream.name, scope: action.scope, cursor: action.cursor, value: action.value, state: action.state, runId: page.runId });
      return 0;
    case 'mark-unseen-deleted':
      return markUnseenDeleted(db, stream.tables, action.scope, (key) => seenBy(page.unitId, stream.entity, key), page.runId);
  }
}

/** Bump when normalization changes, so that records loaded by an older propsync are loaded again. */
const NORMALIZATION_VERSION = '1';

/** Digest of a whole decoded record: JSON and XML decode to the same tree, so to the same digest. */
function recordDigest(record: unknown, version: string): string {
  return createHash('sha1').update(NORMALIZATION_VERSION).update(version).update(JSON.stringify(record)).digest('base64');
}

function propertyOf(record: unknown): string | undefined {
  if (record && typeof record === 'object' && 'propertyId' in record) {
    const value = (record as { propertyId: unknown }).propertyId;
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  }
  return undefined;
}
