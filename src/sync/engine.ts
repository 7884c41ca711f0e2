import type { StreamName } from '../config/schema.js';
import { STREAMS } from '../streams/index.js';
import type { Lane, PlanContext, StreamDefinition, WorkUnitPlan } from '../streams/types.js';
import { readCursor } from './cursors.js';
import { isBudgetError, runWorkUnit, type UnitContext } from './run-unit.js';
import { createRun, finishRun, notePlan } from './runs.js';
import type { RunStatus, RunSummary, SyncDeps, SyncRequest } from './types.js';

/** A lane of one stream, ready to run. */
interface PlannedLane {
  stream: StreamDefinition;
  lane: Lane;
}

/**
 * Runs one sync or backfill: finds the source's today and the properties, asks each stream for
 * its lanes of work units, runs the lanes in parallel (up to `source.concurrency`, all through
 * the client's shared pacing and budget), and records the run. Never throws for a failed work
 * unit: the summary says what failed; other units go on.
 */
export async function runSync(request: SyncRequest, deps: SyncDeps): Promise<RunSummary> {
  const { db, client, config, observer, signal } = deps;
  const started = Date.now();
  const streamNames = request.streams?.length ? request.streams : (Object.keys(config.streams) as StreamName[]).filter((name) => config.streams[name].enabled);
  const streams = streamNames.map((name) => STREAMS[name]);
  const kind = request.kind === 'backfill' ? 'backfill' : request.full ? 'full' : 'sync';
  const runId = await createRun(db, { kind, streams: streamNames, propertyIds: request.propertyIds, requested: request });
  const logger = deps.logger.child({ runId });
  const callsBefore = client.stats();

  let planned: PlannedLane[] = [];
  let today: string;
  let propertyIds: string[];
  try {
    ({ today, propertyIds } = await discover(request, deps, logger));
    for (const stream of streams) {
      const streamContext: PlanContext = {
        db,
        config,
        today,
        propertyIds,
        full: request.full === true,
        cursor: (scope, cursor) => readCursor(db, stream.name, scope, cursor),
      };
      const lanes =
        request.kind === 'backfill'
          ? stream.planBackfill(streamContext, { from: request.backfill!.from, to: request.backfill!.to, chunk: request.backfill!.chunk ?? config.streams[stream.name].chunk })
          : await stream.plan(streamContext);
      planned.push(...lanes.map((lane) => ({ stream, lane })));
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.error({ event: 'run_failed', err: message }, `run ${runId} could not start: ${message}`);
    const stats = client.stats();
    const status: RunStatus = isBudgetError(error) ? 'budget_exhausted' : 'failed';
    const summary = await finishRun(db, { runId, status, error: message, extraCalls: stats.calls - callsBefore.calls, throttled: stats.throttled - callsBefore.throttled, workUnitsTotal: 0 });
    const result: RunSummary = { ...summary, kind: request.kind, streams: streamNames, durationMs: Date.now() - started, errors: [message] };
    observer?.onRunEnd?.(result);
    return result;
  }
  planned = interleave(planned);
  const staticUnits = planned.reduce((sum, { lane }) => sum + lane.steps.filter((step) => typeof step !== 'function').length, 0);
  const byStream: Partial<Record<StreamName, number>> = {};
  for (const { stream, lane } of planned) byStream[stream.name] = (byStream[stream.name] ?? 0) + lane.steps.filter((step) => typeof step !== 'function').length;
  await notePlan(db, runId, { sourceToday: today, workUnits: staticUnits });
  const discoveryCalls = client.stats().calls - callsBefore.calls;
  logger.info(
    { event: 'run_planned', kind, streams: streamNames, properties: propertyIds.length, lanes: planned.length, workUnits: staticUnits, sourceToday: today },
    `run ${runId} (${kind}): ${staticUnits} work units over ${propertyIds.length} properties, source today ${today}`,
  );
  observer?.onRunStart?.({ runId, kind: request.kind, streams: streamNames, workUnits: staticUnits, byStream });

  const errors: string[] = [];
  let budgetSpent = false;
  let dynamicUnits = 0;
  const queue = [...planned];
  const worker = async () => {
    for (;;) {
      if (signal?.aborted || budgetSpent) return;
      const next = queue.shift();
      if (!next) return;
      const unitContext: UnitContext = {
        db,
        client,
        stream: next.stream,
        version: config.source.versions[next.stream.method as 'getLeases' | 'getInvoices'] ?? 'r2',
        runId,
        logger,
        signal,
        observer,
      };
      const doneUnits = new Map<string, number[]>();
      for (const step of next.lane.steps) {
        if (signal?.aborted || budgetSpent) break;
        let plans: WorkUnitPlan[];
        if (typeof step === 'function') {
          plans = await step({ db, runId, doneUnits });
          dynamicUnits += plans.length;
        } else plans = [step];
        let failed = false;
        for (const plan of plans) {
          if (signal?.aborted || budgetSpent) break;
          const outcome = await runWorkUnit(unitContext, plan);
          if (outcome.status === 'done' || outcome.status === 'skipped') {
            doneUnits.set(plan.kind, [...(doneUnits.get(plan.kind) ?? []), outcome.unitId]);
            continue;
          }
          const error = 'error' in outcome ? outcome.error : undefined;
          if (isBudgetError(error)) budgetSpent = true;
          const message = error instanceof Error ? error.message : String(error);
          if (outcome.status === 'failed') errors.push(`${plan.unitKey} (properties ${plan.propertyIds.join(',')}${plan.window ? `, window ${plan.window.from ?? '…'}..${plan.window.to ?? '…'}` : ''}): ${message}`);
          failed = true;
          break;
        }
        // A lane's later steps build on its earlier ones (e.g. disappearances on the live set).
        if (failed) break;
      }
    }
  };
  const concurrency = Math.max(1, Math.min(config.source.concurrency, planned.length));
  await Promise.all(Array.from({ length: concurrency }, worker));

  const stats = client.stats();
  const interrupted = signal?.aborted === true;
  const summaryCounts = await finishRun(db, {
    runId,
    status: 'succeeded',
    extraCalls: discoveryCalls,
    throttled: stats.throttled - callsBefore.throttled,
    workUnitsTotal: staticUnits + dynamicUnits,
  });
  const status: RunStatus = budgetSpent
    ? 'budget_exhausted'
    : interrupted
      ? 'interrupted'
      : summaryCounts.workUnits.failed === 0
        ? 'succeeded'
        : summaryCounts.workUnits.done > 0
          ? 'partial'
          : 'failed';
  const error = budgetSpent
    ? `the daily call budget (${config.source.dailyCallBudget} calls) is spent; unfinished work resumes on the next run`
    : interrupted
      ? 'stopped by a signal; unfinished work resumes from its checkpoints on the next run'
      : errors.length
        ? errors.join('\n')
        : undefined;
  if (status !== 'succeeded') await db.updateTable('sync_runs').set({ status, error: error ?? null }).where('run_id', '=', runId).execute();
  const summary: RunSummary = { ...summaryCounts, status, kind: request.kind, streams: streamNames, durationMs: Date.now() - started, errors: error && status !== 'partial' && status !== 'failed' ? [error, ...errors] : errors };
  logger.info(
    {
      event: 'run_finished',
      status,
      workUnits: summary.workUnits,
      records: summary.records,
      rowsInserted: summary.rowsInserted,
      rowsUpdated: summary.rowsUpdated,
      rowsUnchanged: summary.rowsUnchanged,
      rowsDeleted: summary.rowsDeleted,
      quarantined: summary.quarantined,
      calls: summary.calls,
      retries: summary.retries,
      durationMs: summary.durationMs,
    },
    `run ${runId} ${status}: ${summary.workUnits.done}/${summary.workUnits.total} work units, ${summary.records} records, ` +
      `${summary.rowsInserted} inserted, ${summary.rowsUpdated} updated, ${summary.rowsDeleted} deleted, ${summary.quarantined} quarantined, ${summary.calls} calls`,
  );
  if (summary.quarantined > 0) logger.warn({ event: 'records_quarantined', quarantined: summary.quarantined }, `${summary.quarantined} records quarantined; see propsync status`);
  observer?.onRunEnd?.(summary);
  return summary;
}

/** The source's today and the properties of the run. One getProperties call (its `Date` header gives today). */
async function discover(request: SyncRequest, deps: SyncDeps, logger: SyncDeps['logger']): Promise<{ today: string; propertyIds: string[] }> {
  const { client, config } = deps;
  const wanted = request.propertyIds?.length ? request.propertyIds : config.propertyIds;
  let listed: string[] | undefined;
  try {
    const properties = await client.properties({ signal: deps.signal });
    listed = properties.filter((property) => !property.disabled).map((property) => property.id);
  } catch (error) {
    if (!wanted.length || isBudgetError(error)) throw error;
    logger.warn({ event: 'discovery_failed', err: (error as Error).message }, `getProperties failed (${(error as Error).message}); going on with the configured properties`);
  }
  const today = client.today();
  if (!wanted.length) return { today, propertyIds: listed ?? [] };
  if (listed) {
    const unknown = wanted.filter((id) => !listed!.includes(id));
    if (unknown.length) throw new Error(`properties ${unknown.join(', ')} are not visible to this API user (or are disabled); check PROPSYNC_PROPERTY_IDS / --property`);
  }
  return { today, propertyIds: [...new Set(wanted)] };
}

/** Alternates lanes of different streams so that both streams progress under a shared budget. */
function interleave(lanes: PlannedLane[]): PlannedLane[] {
  const byStream = new Map<string, PlannedLane[]>();
  for (const lane of lanes) byStream.set(lane.stream.name, [...(byStream.get(lane.stream.name) ?? []), lane]);
  const out: PlannedLane[] = [];
  const queues = [...byStream.values()];
  while (queues.some((queue) => queue.length)) for (const queue of queues) if (queue.length) out.push(queue.shift()!);
  return out;
}
