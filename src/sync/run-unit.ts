import type { MethodVersion } from '../source/settings.js';
import type { Logger } from '../log/logger.js';
import type { SourceClient, SourcePage } from '../source/types.js';
import type { CompletionAction, StreamDefinition, WorkUnitPlan } from '../streams/types.js';
import type { StreamName } from '../streams/registry.js';
import type { Db } from '../catalog/tables.js';
import { pickCounts, ROW_COUNTERS, zeroCounts } from '../warehouse/run-counters.js';
import type { Reconnect } from '../warehouse/reconnect.js';
import type { LoadStatistics } from '../warehouse/statistics.js';
import { crashPoint } from './crash-points.js';
import { keyOfRecord, loadPage, recordRecognizer, type PageLoaded, type PageToLoad } from './load-page.js';
import { lockName, type HeldLock } from './lock.js';
import type { SyncObserver } from './types.js';
import { InterruptedError, isBudgetError, ListingError } from './errors.js';
import { addUnitCalls, countSeen, endWorkUnit, pagesCommitted, startWorkUnit } from './work-units.js';

/** How a work unit ended. */
export type UnitOutcome =
  | { status: 'done' | 'skipped'; unitId: number }
  | { status: 'failed' | 'interrupted'; unitId: number; error: unknown };

/** Everything a unit needs to run. */
export interface UnitContext {
  db: Db;
  /** The source account of the run. */
  account: string;
  client: SourceClient;
  stream: StreamDefinition<StreamName>;
  /** The version the stream's method is called in. */
  version: MethodVersion;
  runId: number;
  logger: Logger;
  signal?: AbortSignal;
  observer?: SyncObserver;
  /** The client's page size (`per_page`), which checkpoints count in. */
  perPage: number;
  /** The latest day a cursor may be written at: the local today + 1 (see `latestCursorDay`). */
  latestDay: string;
  /** Runs the unit's database work again, on a new connection, when the connection is lost. */
  reconnect: Reconnect;
  /** The locks of the run's streams: each page's transaction checks its stream's. */
  lock?: HeldLock;
  /** Statistics taken as pages insert rows, where Postgres's would take the account's rows for none. */
  statistics: LoadStatistics;
}

/** Restarts of a listing whose total changed while it was paged, before trusting it as it is. */
const MAX_RELISTS = 2;

/**
 * Runs one work unit: pages its request from its checkpoint to the end, loading each page in
 * its own transaction. If the listing's total changed while it was paged (membership moved
 * under the offsets, so a record may have slid between pages), the listing is read again from
 * page 1 — upserts make the second pass cheap — before the unit's completion actions run.
 */
export async function runWorkUnit(context: UnitContext, plan: WorkUnitPlan): Promise<UnitOutcome> {
  const { db, client, stream, runId, observer } = context;
  const started = Date.now();
  // Database work of the unit: run again on a new connection while the warehouse is away.
  const again = <T>(work: (attempt: number) => Promise<T>) => context.reconnect.execute(work, context.signal);
  const unit = await again(() => startWorkUnit(db, context.account, runId, plan, context.perPage));
  const log = context.logger.child({ workUnit: plan.unitKey, workUnitId: unit.id });
  if (unit.skipped) {
    log.info({ event: 'work_unit_skipped' }, `${plan.unitKey} already done by an earlier run; skipped`);
    observer?.onWorkUnitEnd?.({
      account: context.account,
      runId,
      stream: stream.name,
      unitKey: plan.unitKey,
      status: 'skipped',
      durationMs: 0,
    });
    return { status: 'skipped', unitId: unit.id };
  }
  observer?.onWorkUnitStart?.({
    account: context.account,
    runId,
    stream: stream.name,
    unitKey: plan.unitKey,
    propertyIds: plan.propertyIds,
  });
  crashPoint('unit-started');
  if (unit.startPage > 1)
    log.info(
      { event: 'work_unit_resumed', page: unit.startPage },
      `${plan.unitKey} resumes at page ${unit.startPage}`,
    );

  // The run id travels with the request so that the client's call log lines carry it.
  const request = { ...plan.request, context: { ...plan.request.context, runId } };
  const completion = { ...plan, onComplete: clampCursors(plan.onComplete, context.latestDay) };
  let startPage = unit.startPage;
  // A resumed pass compares its totals with the one its first page announced, kept in the checkpoint.
  let storedTotal = unit.listingTotal;
  let relists = 0;
  // Records whose text a live row was loaded from are passed over by the client, undecoded.
  const recognizer = stream.tables[0].sourceHash
    ? recordRecognizer(db, context.account, stream, context.version)
    : undefined;
  const recognize = recognizer && {
    ...recognizer,
    lookup: (digests: readonly string[]) => again(() => recognizer.lookup(digests)),
  };
  const load = pageLoader(context, unit.id, again);
  try {
    for (;;) {
      let firstTotal = startPage > 1 ? storedTotal : undefined;
      let lastTotal: number | undefined;
      let drifted = false;
      let relist = false;
      let sawPage = false;
      const listing = new ListingTally(startPage);
      if (context.signal?.aborted) throw new InterruptedError();
      for await (const page of client.pages(request, { startPage, signal: context.signal, recognize })) {
        sawPage = true;
        crashPoint('page-fetched');
        if (page.pageNo === 1) firstTotal = page.totalCount;
        if (page.totalCount !== undefined) {
          firstTotal ??= page.totalCount;
          if (page.totalCount !== firstTotal) drifted = true;
          lastTotal = page.totalCount;
        }
        listing.add(stream, page);
        let shortBy = 0;
        if (page.isLast) {
          shortBy = await again(() =>
            listing.missing(db, context.account, unit.id, plan.trackSeen, lastTotal),
          );
          // A listing that changed, or cannot be shown whole, is read again from page 1 before any deletion.
          const retry = (drifted || shortBy !== 0) && relists < MAX_RELISTS;
          if (!retry && shortBy !== 0)
            throw new ListingError(listing.incomplete(plan.unitKey, lastTotal!, shortBy), page.calls);
          relist = retry;
        }
        const loaded = await load({
          account: context.account,
          stream,
          plan: completion,
          runId,
          unitId: unit.id,
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
      if (relist) {
        relists += 1;
        startPage = 1;
        storedTotal = undefined;
        log.info(
          { event: 'listing_changed', relists },
          `${plan.unitKey}: the listing changed while it was paged, or did not add up to its total; reading it again`,
        );
        continue;
      }
      if (!sawPage) {
        // A source that sends nothing at all for an empty listing: complete the unit with an empty page.
        await load({
          account: context.account,
          stream,
          plan: completion,
          runId,
          unitId: unit.id,
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
      break;
    }
    observer?.onWorkUnitEnd?.({
      account: context.account,
      runId,
      stream: stream.name,
      unitKey: plan.unitKey,
      status: 'done',
      durationMs: Date.now() - started,
    });
    return { status: 'done', unitId: unit.id };
  } catch (error) {
    // The attempts of the failing page still count against the unit (the client's errors say how many).
    const attempts = failedAttempts(error);
    const interrupted =
      error instanceof InterruptedError || context.signal?.aborted === true || isBudgetError(error);
    // A lock lost for good says who took it, rather than how the page in flight ended.
    const lockLost = context.lock?.signal.aborted
      ? (context.lock.signal.reason as Error | undefined)?.message
      : undefined;
    const message = lockLost ?? (error instanceof Error ? error.message : String(error));
    const status = interrupted ? 'interrupted' : 'failed';
    // The unit's row says how it ended, even across a blip (not stopped by the run's signal).
    await context.reconnect
      .execute(() => addUnitCalls(db, unit.id, attempts, Math.max(0, attempts - 1)))
      .catch(() => {});
    await context.reconnect.execute(() => endWorkUnit(db, unit.id, status, message)).catch(() => {});
    if (interrupted)
      log.warn({ event: 'work_unit_interrupted', err: message }, `${plan.unitKey} interrupted: ${message}`);
    else log.error({ event: 'work_unit_failed', err: message }, `${plan.unitKey} failed: ${message}`);
    observer?.onWorkUnitEnd?.({
      account: context.account,
      runId,
      stream: stream.name,
      unitKey: plan.unitKey,
      status: 'failed',
      error: message,
      durationMs: Date.now() - started,
    });
    return { status, unitId: unit.id, error };
  }
}

/**
 * Loads pages of a unit, each in its transaction under its stream's lock, again on a new
 * connection when the connection is lost. A connection lost while the commit was on its way
 * may have committed the page: the unit's page count says, and the page is not loaded twice.
 */
function pageLoader(
  context: UnitContext,
  unitId: number,
  again: <T>(work: (attempt: number) => Promise<T>) => Promise<T>,
): (page: Omit<PageToLoad, 'guard'>) => Promise<PageLoaded> {
  const { db, lock, stream } = context;
  const guard = lock ? (trx: Db) => lock.verify(trx, lockName(context.account, stream.name)) : undefined;
  let committed = 0;
  return async (page) => {
    const loaded = await again(async (attempt) =>
      attempt > 0 && (await pagesCommitted(db, unitId)) > committed
        ? undefined
        : loadPage(db, { ...page, guard }),
    );
    committed += 1;
    if (loaded && loaded.rowsInserted > 0) await measureInserted(context);
    return loaded ?? { ...zeroCounts(ROW_COUNTERS), problems: [] };
  };
}

/**
 * Takes the statistics a page's inserts call for (`LoadStatistics`); a failure is logged: the load goes on,
 * planned as before.
 */
async function measureInserted({ statistics, stream, account, logger }: UnitContext): Promise<void> {
  try {
    const tables = await statistics.afterInsert(
      stream.tables.map((table) => table.name),
      account,
    );
    if (tables.length)
      logger.info(
        { event: 'statistics_taken', tables },
        `analyzed ${tables.join(', ')}: their statistics did not know account ${account}'s rows`,
      );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.warn(
      { event: 'statistics_take_failed', err: message },
      `could not analyze ${stream.name}'s tables during the run: ${message}`,
    );
  }
}

/**
 * The cursor values of a unit's completion actions, none past `latestDay` (a source's clock far ahead must
 * not move them).
 */
function clampCursors(actions: readonly CompletionAction[], latestDay: string): CompletionAction[] {
  return actions.map((action) =>
    action.type === 'cursor' && action.value > latestDay ? { ...action, value: latestDay } : action,
  );
}

/** A digit-string key as Postgres's bigint holds it, else undefined (a record counted as keyless). */
function bigintKey(key: string | undefined): string | undefined {
  if (key === undefined || !/^\d{1,19}$/.test(key)) return undefined;
  const value = BigInt(key);
  return value <= 9_223_372_036_854_775_807n ? value.toString() : undefined;
}

/**
 * What one pass over a listing received: its distinct record keys and its keyless records,
 * to tell whether the listing adds up to its announced total, and the keys of the latest page,
 * to stop a source that sends the same page again and again.
 */
class ListingTally {
  private readonly keys = new Set<string>();
  private keyless = 0;
  private records = 0;
  private previous: string[] = [];
  private lastPageKeys: string[] = [];
  private perPage = 0;

  constructor(private readonly startPage: number) {}

  /** Counts a page; throws `ListingError` when its keys repeat the previous page's. */
  add(stream: StreamDefinition, page: Pick<SourcePage, 'pageNo' | 'perPage' | 'records' | 'calls'>): void {
    const { pageNo, records } = page;
    this.perPage = page.perPage;
    const pageKeys: string[] = [];
    for (const record of records) {
      let key: string | undefined;
      try {
        key = bigintKey(keyOfRecord(stream, record));
      } catch {
        key = undefined;
      }
      if (key === undefined) this.keyless += 1;
      else {
        pageKeys.push(key);
        this.keys.add(key);
      }
    }
    this.records += records.length;
    if (
      pageKeys.length > 0 &&
      pageKeys.length === this.previous.length &&
      pageKeys.every((key, i) => key === this.previous[i])
    ) {
      throw new ListingError(
        `page ${pageNo} repeats the keys of page ${pageNo - 1} (${pageKeys.length} records); the source is not paging, so the listing is not trusted and nothing was deleted`,
        page.calls,
      );
    }
    this.previous = pageKeys;
    this.lastPageKeys = pageKeys;
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
    const here = this.keys.size + this.keyless;
    if (this.startPage === 1) return total - here;
    // Pages before the resume point were full (none of them ended the listing).
    if (!trackSeen) return total - ((this.startPage - 1) * this.perPage + here);
    return total - ((await countSeen(db, account, unitId, this.lastPageKeys)) + this.keyless);
  }

  /** Why a listing is not trusted. */
  incomplete(unitKey: string, total: number, shortBy: number): string {
    const seen = total - shortBy;
    return `the listing of ${unitKey} announced ${total} records but ${seen} distinct ones came (${this.records} received in the last pass); it is not complete, so nothing was deleted and no cursor moved`;
  }
}

/**
 * Calls made for the page that failed: the error's `attempts` when the client says, else one (none for a budget stop).
 */
function failedAttempts(error: unknown): number {
  if (isBudgetError(error) || error instanceof InterruptedError) return 0;
  const attempts = (error as { attempts?: unknown } | undefined)?.attempts;
  return typeof attempts === 'number' && attempts >= 0 ? attempts : 1;
}
