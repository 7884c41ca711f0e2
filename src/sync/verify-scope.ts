import type { Logger } from '../log/logger.js';
import type { SourceClient, SourceRequest } from '../source/types.js';
import type { StreamName } from '../streams/registry.js';
import type { StreamDefinition, VerifyDeclaration } from '../streams/types.js';
import type { LoadRow } from '../warehouse/bulk-load.js';
import { compareTable, parentsInScope, type TableComparison } from '../warehouse/compare-rows.js';
import type { Db } from '../catalog/tables.js';
import { messageOf } from '../log/errors.js';

/** A stream that declares how it is verified. */
export type VerifiedStream = StreamDefinition<StreamName> & { verify: VerifyDeclaration };

/** One table of one property's scope, compared. */
export interface ScopeTable extends TableComparison {
  table: string;
}

/** What reading and comparing one property's scope of a stream gave. */
export interface ScopeResult {
  tables: ScopeTable[];
  records: number;
  pages: number;
  calls: number;
}

/** The call that lists a property's whole scope of a stream, as its manifest declares it. */
export function scopeRequest(stream: VerifiedStream, propertyId: string): SourceRequest {
  const { params, propertyParam } = stream.verify;
  return {
    method: stream.method,
    params: { ...params, [propertyParam.name]: propertyParam.list ? [propertyId] : propertyId },
    context: { stream: stream.name, property: propertyId, workUnit: `verify:${stream.name}:${propertyId}` },
  };
}

/** What verifying a scope needs. */
export interface ScopeDeps {
  db: Db;
  account: string;
  client: SourceClient;
  logger: Logger;
  signal?: AbortSignal;
  /** Called after each page read. */
  onPage?(page: { pageNo: number; records: number; calls: number }): void;
}

/**
 * Reads a property's whole scope of a stream from the source (every page, through the
 * account's client: its pacing and budget) and compares it, table by table, with the live
 * warehouse rows of the parents either side holds. A record the stream cannot read (it would
 * be quarantined) leaves its parent out of the comparison. Changes no row.
 */
export async function verifyScope(
  stream: VerifiedStream,
  propertyId: string,
  deps: ScopeDeps,
): Promise<ScopeResult> {
  const version = deps.client.versionOf(stream.method);
  const fresh = new Map<string, LoadRow[]>(stream.tables.map((table) => [table.name, []]));
  const freshParents = new Set<number>();
  const unreadable = new Set<number>();
  let records = 0;
  let pages = 0;
  let calls = 0;
  for await (const page of deps.client.pages(scopeRequest(stream, propertyId), { signal: deps.signal })) {
    pages += 1;
    calls += page.calls;
    records += page.records.length;
    for (const record of page.records) {
      try {
        const normalized = stream.normalize(record, { version });
        freshParents.add(normalized.key);
        for (const [table, rows] of Object.entries(normalized.rows)) fresh.get(table)?.push(...(rows ?? []));
      } catch (error) {
        const key = Number(stream.recordKey(record));
        if (Number.isSafeInteger(key)) unreadable.add(key);
        deps.logger.warn(
          {
            event: 'verify_record_unreadable',
            stream: stream.name,
            property: propertyId,
            key: stream.recordKey(record),
          },
          `${stream.entity} ${stream.recordKey(record) ?? '(no id)'} of property ${propertyId} cannot be read (${messageOf(error)}); left out of the verification`,
        );
      }
    }
    deps.onPage?.({ pageNo: page.pageNo, records: page.records.length, calls: page.calls });
  }
  const covers = stream.verify.covers;
  const coverTable = stream.tables.find((table) => table.name === covers.table);
  if (!coverTable)
    throw new Error(
      `stream ${stream.name} declares verify.covers.table '${covers.table}', which is not one of its tables`,
    );
  const stored = await parentsInScope(deps.db, deps.account, coverTable, covers.column, [Number(propertyId)]);
  const parents = [...new Set([...freshParents, ...stored])].filter((key) => !unreadable.has(key));
  const tables: ScopeTable[] = [];
  for (const table of stream.tables) {
    const rows = fresh.get(table.name) ?? [];
    const compared = await compareTable(
      deps.db,
      deps.account,
      table,
      parents,
      rows.filter((row) => !unreadable.has(Number(row[table.parentColumn ?? table.key[0]]))),
    );
    tables.push({ table: table.name, ...compared });
  }
  return { tables, records, pages, calls };
}
