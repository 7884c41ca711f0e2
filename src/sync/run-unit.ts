import type { CompletionAction, WorkUnitPlan } from '../streams/types.js';
import type { Db } from '../catalog/tables.js';
import { ROW_COUNTERS, zeroCounts } from '../warehouse/run-counters.js';
import { crashPoint } from './crash-points.js';
import { loadPage, recordRecognizer } from './load-page.js';
import type { FirstLoad } from './first-load.js';
import { readListingPass, type ListingPass, type PageLoad } from './listing-pass.js';
import type { UnitContext } from './unit-context.js';
import { messageOf } from '../log/errors.js';

export type { UnitContext } from './unit-context.js';
import { lockName } from './lock.js';
import { endingMessage, InterruptedError, isBudgetError } from './errors.js';
import { addUnitCalls, endWorkUnit, pagesCommitted, startWorkUnit } from './work-units.js';

/** How a work unit ended. */
export type UnitOutcome =
  | { status: 'done' | 'skipped'; unitId: number }
  | { status: 'failed' | 'interrupted'; unitId: number; error: unknown };

/** Restarts of a listing whose total changed while it was paged, before trusting it as it is. */
const MAX_RELISTS = 2;

/** A unit's database work, run again on a new connection while the warehouse is away. */
export type Again = <T>(work: (attempt: number) => Promise<T>) => Promise<T>;

/**
 * Runs one work unit: pages its request from its checkpoint to the end, loading each page in
 * its own transaction. If the listing's total changed while it was paged (membership moved
 * under the offsets, so a record may have slid between pages), the listing is read again from
 * page 1 — upserts make the second pass cheap — before the unit's completion actions run.
 */
export async function runWorkUnit(context: UnitContext, plan: WorkUnitPlan): Promise<UnitOutcome> {
  const { db, stream, runId, observer } = context;
  const started = Date.now();
  // Database work of the unit: run again on a new connection while the warehouse is away.
  const again: Again = (work) => context.reconnect.execute(work, context.signal);
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
  const firstLoad = await again(() => context.firstLoads.of(context.account, stream.name, stream.tables[0]));
  // Records whose text a live row was loaded from are passed over by the client, undecoded; on a first load
  // there is none to look up (a record repeated from an earlier page is decoded, and merged as unchanged).
  const recognizer = stream.tables[0].sourceHash
    ? recordRecognizer(db, context.account, stream, context.version, context.privacy)
    : undefined;
  const recognize = recognizer && {
    ...recognizer,
    lookup: (digests: readonly string[]) =>
      firstLoad ? Promise.resolve(new Map<string, string>()) : again(() => recognizer.lookup(digests)),
  };
  const load = pageLoader(context, unit.id, again, firstLoad);
  try {
    const pass: ListingPass = {
      context,
      plan,
      unitId: unit.id,
      request,
      completion,
      recognize,
      // A first load's pages are decided without the warehouse (nothing to look up), so the next can come meanwhile.
      ...(firstLoad && {
        prefetch: {
          prefetch: true,
          onUnused: (calls: number) =>
            context.reconnect.execute(() => addUnitCalls(db, unit.id, calls, 0)).catch(() => {}),
        },
      }),
      load,
      log,
      again,
    };
    for (let from = { startPage: unit.startPage, storedTotal: unit.listingTotal }, relists = 0; ; relists++) {
      if ((await readListingPass(pass, { ...from, mayRelist: relists < MAX_RELISTS })) === 'complete') break;
      from = { startPage: 1, storedTotal: undefined };
      log.info(
        { event: 'listing_changed', relists: relists + 1 },
        `${plan.unitKey}: the listing changed while it was paged, or did not add up to its total; reading it again`,
      );
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
    const message = lockLost ?? endingMessage(error);
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
function pageLoader(context: UnitContext, unitId: number, again: Again, firstLoad?: FirstLoad): PageLoad {
  const { db, lock, stream } = context;
  const guard = lock ? (trx: Db) => lock.verify(trx, lockName(context.account, stream.name)) : undefined;
  let committed = 0;
  return async (page) => {
    const loaded = await again(async (attempt) =>
      attempt > 0 && (await pagesCommitted(db, unitId)) > committed
        ? undefined
        : loadPage(db, { ...page, guard, privacy: context.privacy, firstLoad }),
    );
    committed += 1;
    // A first load looks nothing up by key (`FirstLoad`): the statistics can wait for the end of the run.
    if (loaded && loaded.rowsInserted > 0 && !firstLoad) await measureInserted(context);
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
    const message = messageOf(error);
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

/**
 * Calls made for the page that failed: the error's `attempts` when the client says, else one (none for a budget stop).
 */
function failedAttempts(error: unknown): number {
  if (isBudgetError(error) || error instanceof InterruptedError) return 0;
  const attempts = (error as { attempts?: unknown } | undefined)?.attempts;
  return typeof attempts === 'number' && attempts >= 0 ? attempts : 1;
}
