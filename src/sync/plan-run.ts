import type { StreamName } from '../streams/registry.js';
import { DISCOVERY, loadStream } from '../streams/load-stream.js';
import type { DiscoveredProperty, Lane, PlanContext, StreamDefinition } from '../streams/types.js';
import { addDays } from '../dates/days.js';
import { SourceClock } from '../source/clock.js';
import { cursorReader } from './cursors.js';
import { isBudgetError } from './errors.js';
import type { SyncDeps, SyncRequest } from './types.js';
import { messageOf } from '../log/errors.js';

/** A lane of one stream, ready to run. */
export interface PlannedLane {
  stream: StreamDefinition<StreamName>;
  lane: Lane;
}

/** What a run will do: the source's today, its properties, and its lanes. */
export interface RunPlan {
  today: string;
  /** The latest day a cursor may be written at: the local today + 1 (see `latestCursorDay`). */
  latestDay: string;
  propertyIds: string[];
  lanes: PlannedLane[];
  /** Windows the plan knowingly leaves unread, each with why: the run then ends `incomplete`. */
  unread: string[];
  /** Work units known before running (dynamic steps add more). */
  workUnits: number;
  byStream: Partial<Record<StreamName, number>>;
}

/** The streams of a request: the ones asked for, else the enabled ones. */
export function streamsOf(request: SyncRequest, deps: Pick<SyncDeps, 'config'>): StreamName[] {
  if (request.streams?.length) return request.streams;
  return (Object.keys(deps.config.streams) as StreamName[]).filter(
    (name) => deps.config.streams[name].enabled,
  );
}

/**
 * The latest day any cursor or next-refresh day may be derived from: the local today (in the
 * configured time zone) + 1, whatever the source's clock says, so that a source whose `Date`
 * is far ahead (even when trusted) never moves a cursor past tomorrow.
 */
export function latestCursorDay(timeZone: string, now?: () => number): string {
  return addDays(new SourceClock({ timeZone, now }).today(), 1);
}

/** Finds today and the properties, then asks each stream for its lanes (backfill or incremental). */
export async function planRun(request: SyncRequest, streams: StreamName[], deps: SyncDeps): Promise<RunPlan> {
  const discovered = await discover(request, deps);
  const { propertyIds } = discovered;
  const latestDay = latestCursorDay(deps.account.timeZone);
  // Every day a stream plans with (cursor values, windows, next refresh days) comes from today.
  const today = discovered.today > latestDay ? latestDay : discovered.today;
  const unread: string[] = [];
  const ahead = deps.client.dayAhead?.();
  if (ahead !== undefined && ahead > today) {
    const from = addDays(today, 1);
    const days = from === ahead ? `day ${from}` : `days ${from}..${ahead}`;
    unread.push(
      `the source's ${days}: its clock says ${ahead}, further ahead of the local clock than ` +
        `source.maxClockSkewHours allows, so the run planned with the local day ${today}; ` +
        `read once the local day reaches them (or raise source.maxClockSkewHours if the source's ` +
        `clock is right)`,
    );
  }
  if (today !== discovered.today) {
    const from = addDays(today, 1);
    const days = from === discovered.today ? `day ${from}` : `days ${from}..${discovered.today}`;
    unread.push(
      `the source's ${days}: its today ${discovered.today} is past the local tomorrow ${today} ` +
        `(its clock or data run ahead); read once the local day reaches them`,
    );
    deps.logger.warn(
      { event: 'source_today_clamped', sourceToday: discovered.today, today },
      `the source's today ${discovered.today} is past the local tomorrow; planning with ${today}, ` +
        `leaving its ${days} unread`,
    );
  }
  const lanes: PlannedLane[] = [];
  for (const name of streams) lanes.push(...(await planStream(name, request, { today, propertyIds }, deps)));
  const byStream: Partial<Record<StreamName, number>> = {};
  let workUnits = 0;
  for (const { stream, lane } of lanes) {
    const units = lane.steps.filter((step) => typeof step !== 'function').length;
    byStream[stream.name] = (byStream[stream.name] ?? 0) + units;
    workUnits += units;
  }
  return {
    today,
    latestDay,
    propertyIds,
    lanes: interleave(lanes, (planned) => planned.stream.name),
    unread,
    workUnits,
    byStream,
  };
}

/**
 * The lanes of one stream for a request, given the day and properties discovery found: what
 * `planRun` does per stream, and what a queued lane is planned again from when a worker takes it.
 */
export async function planStream(
  name: StreamName,
  request: SyncRequest,
  found: { today: string; propertyIds: string[] },
  deps: Pick<SyncDeps, 'db' | 'config' | 'account'>,
): Promise<PlannedLane[]> {
  const { db, config } = deps;
  const stream = await loadStream(name);
  const context: PlanContext = {
    db,
    settings: config.streams[name],
    pageSize: deps.account.source.pageSize,
    accountId: deps.account.id,
    today: found.today,
    propertyIds: found.propertyIds,
    full: request.full === true,
    cursor: cursorReader(db, deps.account.id, stream.name),
  };
  const planned = request.backfill
    ? stream.planBackfill(context, {
        ...request.backfill,
        chunk: request.backfill.chunk ?? config.streams[name].chunk,
      })
    : await stream.plan(context);
  return planned.map((lane) => ({ stream, lane }));
}

/** Every property the source lists (all pages of the discovery method). */
async function discoverProperties(deps: SyncDeps): Promise<DiscoveredProperty[]> {
  const out: DiscoveredProperty[] = [];
  for await (const page of deps.client.pages(
    { method: DISCOVERY.method, params: {} },
    // Kept: the properties stream reads the same listing whole, and takes these replies.
    { signal: deps.signal, keep: true },
  )) {
    for (const record of page.records) {
      try {
        const property = DISCOVERY.property(record);
        if (property) out.push(property);
      } catch (error) {
        // One bad record costs that property only: the run goes on with the others.
        const reason = messageOf(error);
        deps.logger.warn(
          { event: 'discovery_record_skipped', page: page.pageNo, err: reason },
          `${DISCOVERY.method.name} record on page ${page.pageNo} skipped: ${reason}`,
        );
      }
    }
  }
  return out;
}

/**
 * The source's today and the properties of the run, from the discovery listing (its `Date`
 * header gives today). Asked-for properties that the source does not list stop the run.
 */
export async function discover(
  request: SyncRequest,
  deps: SyncDeps,
): Promise<{ today: string; propertyIds: string[] }> {
  const { client, logger } = deps;
  const wanted = request.propertyIds?.length ? request.propertyIds : deps.account.propertyIds;
  let listed: string[] | undefined;
  try {
    const properties = await discoverProperties(deps);
    listed = properties.filter((property) => !property.disabled).map((property) => property.id);
  } catch (error) {
    if (!wanted.length || isBudgetError(error)) throw error;
    const message = messageOf(error);
    logger.warn(
      { event: 'discovery_failed', err: message },
      `${DISCOVERY.method.name} failed (${message}); going on with the configured properties`,
    );
  }
  const today = client.today();
  if (!wanted.length) return { today, propertyIds: listed ?? [] };
  const unknown = listed ? wanted.filter((id) => !listed.includes(id)) : [];
  if (unknown.length) {
    throw new Error(
      `properties ${unknown.join(', ')} are not visible to this API user (or are disabled); ` +
        `check PROPSYNC_PROPERTY_IDS / --property`,
    );
  }
  return { today, propertyIds: [...new Set(wanted)] };
}

/**
 * Alternates items of different groups (lanes of different streams), keeping each group's
 * order, so that every stream progresses under a shared budget.
 */
export function interleave<T>(items: readonly T[], groupOf: (item: T) => string): T[] {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(groupOf(item), [...(groups.get(groupOf(item)) ?? []), item]);
  const queues = [...groups.values()];
  const out: T[] = [];
  while (queues.some((queue) => queue.length))
    for (const queue of queues) if (queue.length) out.push(queue.shift()!);
  return out;
}
