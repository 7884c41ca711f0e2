/**
 * One pass over a unit's listing: its pages from a start page to the end, each loaded in its own transaction, with
 * the checks that decide whether the listing can be trusted whole (its announced total, a page repeated).
 */
import type { SourcePage, SourceRequest, PagesOptions } from '../source/types.js';
import type { StreamDefinition, WorkUnitPlan } from '../streams/types.js';
import type { Db } from '../catalog/tables.js';
import type { Logger } from '../log/logger.js';
import { pickCounts, ROW_COUNTERS } from '../warehouse/run-counters.js';
import { crashPoint } from './crash-points.js';
import { InterruptedError, ListingError } from './errors.js';
import { keyOfRecord, type PageLoaded, type PageToLoad } from './load-page.js';
import { PageKeyTally } from './listing-check.js';
import type { UnitContext } from './unit-context.js';
import { countSeen } from './work-units.js';

/** Loads one page of a unit (see `pageLoader` in run-unit.ts). */
export type PageLoad = (page: Omit<PageToLoad, 'guard'>) => Promise<PageLoaded>;

/** What every pass of a unit shares. */
export interface ListingPass {
  context: UnitContext;
  plan: WorkUnitPlan;
  unitId: number;
  request: SourceRequest;
  /** The plan with its completion actions as the unit's last page runs them. */
  completion: WorkUnitPlan;
  recognize: PagesOptions['recognize'];
  /** Fetch each next page while one loads (`PagesOptions.prefetch`), its calls booked should it go unused. */
  prefetch?: Pick<PagesOptions, 'prefetch' | 'onUnused'>;
  load: PageLoad;
  log: Logger;
  again: <T>(work: (attempt: number) => Promise<T>) => Promise<T>;
}

/**
 * Reads one pass from `startPage` (a resumed pass compares its totals with `storedTotal`, the one its first page
 * announced): `complete` when the listing was read whole and the unit completed; `relist` when it changed while it
 * was paged, or did not add up to its total, and `mayRelist` (it is to be read again from page 1). Throws
 * `ListingError` when it cannot be shown whole and may not be read again, `InterruptedError` on a stop.
 */
export async function readListingPass(
  pass: ListingPass,
  from: { startPage: number; storedTotal: number | undefined; mayRelist: boolean },
): Promise<'complete' | 'relist'> {
  const { context, plan, request, completion, recognize, load, log, again } = pass;
  const { db, client, stream, runId, observer } = context;
  const { startPage, unitId } = { ...from, unitId: pass.unitId };
  let firstTotal = startPage > 1 ? from.storedTotal : undefined;
  let lastTotal: number | undefined;
  let drifted = false;
  let relist = false;
  let sawPage = false;
  const listing = new ListingTally(startPage);
  if (context.signal?.aborted) throw new InterruptedError();
  for await (const page of client.pages(request, {
    startPage,
    signal: context.signal,
    recognize,
    reuse: true,
    ...pass.prefetch,
  })) {
    sawPage = true;
    crashPoint('page-fetched');
    if (page.pageNo === 1) firstTotal = page.totalCount;
    if (page.totalCount !== undefined) {
      firstTotal ??= page.totalCount;
      if (page.totalCount !== firstTotal) drifted = true;
      lastTotal = page.totalCount;
    }
    listing.add(stream, page);
    if (page.isLast) {
      const shortBy = await again(() =>
        listing.missing(db, context.account, unitId, plan.trackSeen, lastTotal),
      );
      // A listing that changed, or cannot be shown whole, is read again from page 1 before any deletion.
      const retry = (drifted || shortBy !== 0) && from.mayRelist;
      if (!retry && shortBy !== 0)
        throw new ListingError(listing.incomplete(plan.unitKey, lastTotal!, shortBy), page.calls);
      relist = retry;
    }
    const loaded = await load({
      account: context.account,
      stream,
      plan: completion,
      runId,
      unitId: unitId,
      pageNo: page.pageNo,
      records: page.records,
      textDigests: page.textDigests,
      version: context.version,
      calls: page.calls,
      retries: page.retries,
      bytes: page.bytes,
      nextPage: relist ? 1 : page.pageNo + 1,
      ...(page.pageNo === 1 && { listingTotal: page.totalCount ?? null }),
      complete: page.isLast && !relist,
      restart: relist,
    });
    for (const problem of loaded.problems)
      log.warn({ event: 'record_quarantined', page: page.pageNo }, problem);
    for (const note of loaded.notes ?? []) log.warn({ event: 'record_noted', page: page.pageNo }, note);
    log.debug(
      { event: 'page_loaded', page: page.pageNo, ...loaded, problems: undefined },
      `page ${page.pageNo} loaded`,
    );
    observer?.onPage?.({
      account: context.account,
      runId,
      stream: stream.name,
      unitKey: plan.unitKey,
      pageNo: page.pageNo,
      ...pickCounts(ROW_COUNTERS, loaded),
      calls: page.calls,
      retries: page.retries,
      throttled: page.throttled,
      bytes: page.bytes,
    });
    if (relist) break;
    if (!page.isLast && context.signal?.aborted) throw new InterruptedError();
  }
  if (relist) return 'relist';
  if (!sawPage) {
    // A source that sends nothing at all for an empty listing: complete the unit with an empty page.
    await load({
      account: context.account,
      stream,
      plan: completion,
      runId,
      unitId: unitId,
      pageNo: startPage,
      records: [],
      version: context.version,
      calls: 0,
      retries: 0,
      bytes: 0,
      nextPage: startPage,
      complete: true,
    });
  }
  return 'complete';
}

/** A digit-string key as Postgres's bigint holds it, else undefined (a record counted as keyless). */
function bigintKey(key: string | undefined): string | undefined {
  if (key === undefined || !/^\d{1,19}$/.test(key)) return undefined;
  const value = BigInt(key);
  return value <= 9_223_372_036_854_775_807n ? value.toString() : undefined;
}

/** One pass over a unit's listing: its keys (PageKeyTally), and what a resumed pass needs to add up. */
class ListingTally {
  private readonly tally = new PageKeyTally();
  private records = 0;
  private perPage = 0;

  constructor(private readonly startPage: number) {}

  /** Counts a page; throws `ListingError` when its keys repeat the previous page's. */
  add(stream: StreamDefinition, page: Pick<SourcePage, 'pageNo' | 'perPage' | 'records' | 'calls'>): void {
    const { pageNo, records } = page;
    this.perPage = page.perPage;
    this.records += records.length;
    const keys = records.map((record) => {
      try {
        return bigintKey(keyOfRecord(stream, record));
      } catch {
        return undefined;
      }
    });
    if (this.tally.add(keys))
      throw new ListingError(
        `page ${pageNo} repeats the keys of page ${pageNo - 1} (${this.tally.lastPage.length} ` +
          `records); the source is not paging, so the listing is not trusted and nothing was deleted`,
        page.calls,
      );
  }

  /**
   * How far the distinct records seen fall short of (negative: exceed) the announced total; 0
   * when no total was announced. A pass resumed past page 1 adds the keys its earlier
   * attempts recorded (units that track them), else the full pages before it; one that still
   * falls short is read again from page 1, where every record is counted.
   */
  async missing(
    db: Db,
    account: string,
    unitId: number,
    trackSeen: boolean,
    total: number | undefined,
  ): Promise<number> {
    if (total === undefined) return 0;
    const here = this.tally.distinct;
    if (this.startPage === 1) return total - here;
    // Pages before the resume point were full (none of them ended the listing).
    if (!trackSeen) return total - ((this.startPage - 1) * this.perPage + here);
    return total - ((await countSeen(db, account, unitId, this.tally.lastPage)) + this.tally.keylessCount);
  }

  /** Why a listing is not trusted. */
  incomplete(unitKey: string, total: number, shortBy: number): string {
    const seen = total - shortBy;
    return (
      `the listing of ${unitKey} announced ${total} records but ${seen} distinct ones came ` +
      `(${this.records} received in the last pass); it is not complete, so nothing was deleted and ` +
      `no cursor moved`
    );
  }
}
