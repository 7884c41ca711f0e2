import type { MethodVersion } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import type { SourceClient } from '../source/types.js';
import type { StreamDefinition, WorkUnitPlan } from '../streams/types.js';
import type { Db } from '../warehouse-schema.js';
import { pickCounts, ROW_COUNTERS } from './counters.js';
import { crashPoint } from './crash-points.js';
import { loadPage } from './load-page.js';
import type { SyncObserver } from './types.js';
import { addUnitCalls, endWorkUnit, startWorkUnit } from './work-units.js';

/** How a work unit ended. */
export type UnitOutcome =
  | { status: 'done' | 'skipped'; unitId: number }
  | { status: 'failed' | 'interrupted'; unitId: number; error: unknown };

/** Everything a unit needs to run. */
export interface UnitContext {
  db: Db;
  client: SourceClient;
  stream: StreamDefinition;
  /** The version the stream's method is called in. */
  version: MethodVersion;
  runId: number;
  logger: Logger;
  signal?: AbortSignal;
  observer?: SyncObserver;
  /** The client's page size (`per_page`), which checkpoints count in. */
  perPage: number;
}

/** Restarts of a listing whose total changed while it was paged, before trusting it as it is. */
const MAX_RELISTS = 2;

/** Thrown inside the page loop when the run is asked to stop. */
class Interrupted extends Error {
  constructor() {
    super('interrupted: the run was asked to stop; the unit resumes from its checkpoint next time');
  }
}

/**
 * Runs one work unit: pages its request from its checkpoint to the end, loading each page in
 * its own transaction. If the listing's total changed while it was paged (membership moved
 * under the offsets, so a record may have slid between pages), the listing is read again from
 * page 1 — upserts make the second pass cheap — before the unit's completion actions run.
 */
export async function runWorkUnit(context: UnitContext, plan: WorkUnitPlan): Promise<UnitOutcome> {
  const { db, client, stream, runId, observer } = context;
  const started = Date.now();
  const unit = await startWorkUnit(db, runId, plan, context.perPage);
  const log = context.logger.child({ workUnit: plan.unitKey, workUnitId: unit.id });
  if (unit.skipped) {
    log.info({ event: 'work_unit_skipped' }, `${plan.unitKey} already done by an earlier run; skipped`);
    observer?.onWorkUnitEnd?.({ runId, stream: stream.name, unitKey: plan.unitKey, status: 'skipped', durationMs: 0 });
    return { status: 'skipped', unitId: unit.id };
  }
  observer?.onWorkUnitStart?.({ runId, stream: stream.name, unitKey: plan.unitKey, propertyIds: plan.propertyIds });
  crashPoint('unit-started');
  if (unit.startPage > 1) log.info({ event: 'work_unit_resumed', page: unit.startPage }, `${plan.unitKey} resumes at page ${unit.startPage}`);

  // The run id travels with the request so that the client's call log lines carry it.
  const request = { ...plan.request, context: { ...plan.request.context, runId } };
  let startPage = unit.startPage;
  let relists = 0;
  try {
    for (;;) {
      let firstTotal: number | undefined;
      let drifted = false;
      let relist = false;
      let sawPage = false;
      if (context.signal?.aborted) throw new Interrupted();
      for await (const page of client.pages(request, { startPage, signal: context.signal })) {
        sawPage = true;
        crashPoint('page-fetched');
        if (page.totalCount !== undefined) {
          firstTotal ??= page.totalCount;
          if (page.totalCount !== firstTotal) drifted = true;
        }
        relist = page.isLast && drifted && relists < MAX_RELISTS;
        const loaded = await loadPage(db, {
          stream,
          plan,
          runId,
          unitId: unit.id,
          pageNo: page.pageNo,
          records: page.records,
          version: context.version,
          calls: page.calls,
          retries: page.retries,
          bytes: page.bytes,
          nextPage: relist ? 1 : page.pageNo + 1,
          complete: page.isLast && !relist,
          restart: relist,
        });
        for (const problem of loaded.problems) log.warn({ event: 'record_quarantined', page: page.pageNo }, problem);
        log.debug({ event: 'page_loaded', page: page.pageNo, ...loaded, problems: undefined }, `page ${page.pageNo} loaded`);
        observer?.onPage?.({
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
        if (!page.isLast && context.signal?.aborted) throw new Interrupted();
      }
      if (relist) {
        relists += 1;
        startPage = 1;
        log.info({ event: 'listing_changed', relists }, `${plan.unitKey}: the listing changed while it was paged; reading it again`);
        continue;
      }
      if (!sawPage) {
        // A source that sends nothing at all for an empty listing: complete the unit with an empty page.
        await loadPage(db, { stream, plan, runId, unitId: unit.id, pageNo: startPage, records: [], version: context.version, calls: 0, retries: 0, bytes: 0, nextPage: startPage, complete: true });
      }
      break;
    }
    observer?.onWorkUnitEnd?.({ runId, stream: stream.name, unitKey: plan.unitKey, status: 'done', durationMs: Date.now() - started });
    return { status: 'done', unitId: unit.id };
  } catch (error) {
    // The attempts of the failing page still count against the unit (the client's errors say how many).
    const attempts = failedAttempts(error);
    const interrupted = error instanceof Interrupted || context.signal?.aborted === true || isBudgetError(error);
    const message = error instanceof Error ? error.message : String(error);
    const status = interrupted ? 'interrupted' : 'failed';
    await addUnitCalls(db, unit.id, attempts, Math.max(0, attempts - 1)).catch(() => {});
    await endWorkUnit(db, unit.id, status, message).catch(() => {});
    if (interrupted) log.warn({ event: 'work_unit_interrupted', err: message }, `${plan.unitKey} interrupted: ${message}`);
    else log.error({ event: 'work_unit_failed', err: message }, `${plan.unitKey} failed: ${message}`);
    observer?.onWorkUnitEnd?.({ runId, stream: stream.name, unitKey: plan.unitKey, status: 'failed', error: message, durationMs: Date.now() - started });
    return { status, unitId: unit.id, error };
  }
}

/** Calls made for the page that failed: the error's `attempts` when the client says, else one (none for a budget stop). */
function failedAttempts(error: unknown): number {
  if (isBudgetError(error) || error instanceof Interrupted) return 0;
  const attempts = (error as { attempts?: unknown } | undefined)?.attempts;
  return typeof attempts === 'number' && attempts >= 0 ? attempts : 1;
}

/** True for the client's budget-exhausted error (checked by name to keep the engine decoupled). */
export function isBudgetError(error: unknown): boolean {
  return error instanceof Error && error.name === 'BudgetExhaustedError';
}
