import { protectRecord, type PrivacyPolicy } from './privacy/policy.js';
import type { Logger } from '../log/logger.js';
import type { SourceClient, SourceRequest } from '../source/types.js';
import type { StreamName } from '../streams/registry.js';
import { wholeRecord } from '../streams/parts.js';
import type { StreamDefinition, VerifyDeclaration } from '../streams/types.js';
import type { LoadRow } from '../warehouse/bulk-load/index.js';
import { compareTable, parentsInScope, type TableComparison } from '../warehouse/compare-rows.js';
import type { Db } from '../catalog/tables.js';
import { ListingCheck, UntrustedListingError } from './listing-check.js';
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
  /** The personal-data policy, applied to each record read before it is compared (as before it is written). */
  privacy?: PrivacyPolicy;
  /** Called after each page read. */
  onPage?(page: { pageNo: number; records: number; calls: number }): void;
}

/** Passes of a scope's listing read before it is given up as untrusted: the first, and one more if it changed. */
const MAX_PASSES = 2;

/** One pass of a scope's listing, read and normalized, not yet compared. */
interface ScopePass {
  fresh: Map<string, LoadRow[]>;
  freshParents: Set<number>;
  unreadable: Set<number>;
  records: number;
  pages: number;
  calls: number;
}

/**
 * Reads a property's whole scope of a stream from the source (every page, through the
 * account's client: its pacing and budget) and compares it, table by table, with the live
 * warehouse rows of the parents either side holds. A record the stream cannot read (it would
 * be quarantined) leaves its parent out of the comparison. Changes no row. A listing is trusted
 * as the engine trusts one (listing-check.ts): one that changed is read again once; one that
 * repeats a page, or stays short (or long) of its total, throws `UntrustedListingError` and is
 * compared with nothing: it would show as drift that is not there.
 */
export async function verifyScope(
  stream: VerifiedStream,
  propertyId: string,
  deps: ScopeDeps,
): Promise<ScopeResult> {
  let calls = 0;
  let pass: ScopePass | undefined;
  for (let passNo = 1; ; passNo++) {
    const check = new ListingCheck(`${stream.method.name} of property ${propertyId}`);
    pass = await readScope(stream, propertyId, deps, check);
    calls += pass.calls;
    const problem = check.problem();
    if (!problem) break;
    if (passNo >= MAX_PASSES)
      throw new UntrustedListingError(`${problem}, so property ${propertyId} was not verified`);
    deps.logger.info(
      { event: 'verify_listing_reread', stream: stream.name, property: propertyId },
      `${problem}; reading it again`,
    );
  }
  return { ...(await compareScope(stream, propertyId, deps, pass)), calls };
}

/** Reads one pass of a scope's listing through `check`. */
async function readScope(
  stream: VerifiedStream,
  propertyId: string,
  deps: ScopeDeps,
  check: ListingCheck,
): Promise<ScopePass> {
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
    check.add(
      page.pageNo,
      page.records.map((record) => keyText(stream.recordKey(record))),
      page.totalCount,
    );
    for (const record of page.records) {
      try {
        if (deps.privacy) protectRecord(deps.privacy, stream.personal, record);
        const normalized = stream.normalize(record, { version });
        const whole = wholeRecord(normalized);
        // A part the stream cannot read makes the record one the sync loads only in part.
        const [failed] = whole.failed;
        if (failed) throw new Error(`${failed.label}: ${messageOf(failed.error)}`);
        freshParents.add(normalized.key);
        for (const [table, rows] of Object.entries(whole.rows)) fresh.get(table)?.push(...rows);
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
          `${stream.entity} ${stream.recordKey(record) ?? '(no id)'} of property ${propertyId} cannot ` +
            `be read (${messageOf(error)}); left out of the verification`,
        );
      }
    }
    deps.onPage?.({ pageNo: page.pageNo, records: page.records.length, calls: page.calls });
  }
  return { fresh, freshParents, unreadable, records, pages, calls };
}

/** A record's key as text, or undefined when it has none. */
function keyText(key: unknown): string | undefined {
  return key === undefined || key === null || key === '' ? undefined : String(key);
}

/** Compares one pass of a scope with the warehouse, table by table. */
async function compareScope(
  stream: VerifiedStream,
  propertyId: string,
  deps: ScopeDeps,
  { fresh, freshParents, unreadable, records, pages }: ScopePass,
): Promise<Omit<ScopeResult, 'calls'>> {
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
  return { tables, records, pages };
}
