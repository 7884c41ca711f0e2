import { sql } from 'kysely';
import type { ChunkSize } from '../../dates/calendar.js';
import { addDays, chunkRange } from '../../dates/days.js';
import type { SourceRequest } from '../../source/types.js';
import { fullRefreshDue, nextFullRefresh } from '../full-refresh.js';
import type { Lane, PlanContext, StepContext, StreamSettings, TablesDb, WorkUnitPlan } from '../types.js';
import { ALL_STATUSES, GET_LEASES, LEASE_CALL_PARAMS, type leases } from './manifest.js';
import { LEASE_TABLES } from './tables.js';

/** What the leases plan is given: its settings (`streams.leases`). */
type LeasesPlanContext = PlanContext<StreamSettings<typeof leases>>;

/** Statuses of the live set, read on every run: Applicant, Future, Current, Notice. */
export const LIVE_STATUSES = [1, 3, 4, 5] as const;
export { ALL_STATUSES };
/** Leases asked for by id in one call when looking for disappearances. */
const MISSING_BATCH = 100;

/** Parameters of every getLeases call: children, history and other-income leases included. */
function leasesRequest(propertyId: string, params: SourceRequest['params'], workUnit: string): SourceRequest {
  return {
    method: GET_LEASES,
    params: { propertyId, ...LEASE_CALL_PARAMS, ...params },
    context: { stream: 'leases', property: propertyId, workUnit },
  };
}

function unit(
  args: Omit<WorkUnitPlan, 'stream' | 'request'> & { params: SourceRequest['params'] },
): WorkUnitPlan {
  const { params, ...rest } = args;
  return { stream: 'leases', ...rest, request: leasesRequest(args.propertyIds[0], params, args.unitKey) };
}

/** A property is read whole when its leases fill at most this share of one page. */
const ONE_PAGE_SHARE = 0.8;

/**
 * The incremental plan of one property:
 * - when its periodic full refresh is due (or it was never loaded, or `--full`), or when all its
 *   leases fit in one page (then one call reads everything, where the incremental plan would
 *   spend two): every lease of every status; leases (and their children) the source no longer
 *   lists are marked deleted;
 * - otherwise the live set (statuses 1, 3, 4, 5), then recent move-outs (move-out on or after
 *   the cursor minus `lookbackDays`, since AR activity goes on after move-out), then the
 *   disappearances: leases live in the warehouse that the live set no longer lists, fetched by
 *   id with every status (cancellations, move-outs whose dates say nothing).
 */
export async function planLeases(context: LeasesPlanContext): Promise<Lane[]> {
  const settings = context.settings;
  const sizes = await leasesPerProperty(context);
  const onePage = context.pageSize * ONE_PAGE_SHARE;
  const lanes: Lane[] = [];
  for (const [slot, propertyId] of context.propertyIds.entries()) {
    const full = await context.cursor(propertyId, 'full_refresh');
    const moveOut = await context.cursor(propertyId, 'move_out');
    const today = context.today;
    const fitsOnePage = (sizes.get(propertyId) ?? Infinity) <= onePage;
    if (context.full || !full || !moveOut?.value || fullRefreshDue(full.state, today) || fitsOnePage) {
      const nextDue = nextFullRefresh(
        today,
        settings.fullRefreshDays,
        !full,
        slot,
        context.propertyIds.length,
      );
      lanes.push({
        key: `leases:${propertyId}`,
        propertyIds: [propertyId],
        steps: [
          unit({
            kind: 'full',
            unitKey: `leases:full:${propertyId}@${today}`,
            propertyIds: [propertyId],
            params: { leaseStatusTypeIds: [...ALL_STATUSES] },
            trackSeen: true,
            onComplete: [
              { type: 'mark-unseen-deleted', scope: { column: 'property_id', values: [Number(propertyId)] } },
              { type: 'cursor', scope: propertyId, cursor: 'full_refresh', value: today, state: { nextDue } },
              { type: 'cursor', scope: propertyId, cursor: 'move_out', value: today },
            ],
          }),
        ],
      });
      continue;
    }
    const from = addDays(moveOut.value, -settings.lookbackDays);
    lanes.push({
      key: `leases:${propertyId}`,
      propertyIds: [propertyId],
      steps: [
        unit({
          kind: 'live',
          unitKey: `leases:live:${propertyId}@${today}`,
          propertyIds: [propertyId],
          params: { leaseStatusTypeIds: [...LIVE_STATUSES] },
          trackSeen: true,
          onComplete: [],
        }),
        unit({
          kind: 'move_outs',
          unitKey: `leases:move_outs:${propertyId}@${today}`,
          propertyIds: [propertyId],
          window: { from, to: today },
          params: { leaseStatusTypeIds: [6], moveOutDateFrom: from },
          trackSeen: false,
          onComplete: [{ type: 'cursor', scope: propertyId, cursor: 'move_out', value: today }],
        }),
        (step) => planDisappearances(step, propertyId, today),
      ],
    });
  }
  return lanes;
}

/** How many leases (of any status) the warehouse holds per property. */
async function leasesPerProperty(context: LeasesPlanContext): Promise<Map<string, number>> {
  const db: TablesDb<typeof LEASE_TABLES> = context.db;
  const { rows } = await sql<{ property_id: number; leases: number }>`
    select property_id, count(*)::int as leases from leases
    where account_id = ${context.accountId} and property_id = any(${context.propertyIds.map(Number)}::bigint[])
      and deleted_at is null
    group by property_id`.execute(db);
  return new Map(rows.map((row) => [String(row.property_id), row.leases]));
}

/** Leases the warehouse holds as live that the live listing did not return: fetched by id, every status. */
async function planDisappearances(
  step: StepContext,
  propertyId: string,
  today: string,
): Promise<WorkUnitPlan[]> {
  const liveUnits = step.doneUnits.get('live') ?? [];
  if (liveUnits.length === 0) return [];
  const { rows } = await sql<{ lease_id: number }>`
    select l.lease_id from leases l
    where l.account_id = ${step.accountId} and l.property_id = ${Number(propertyId)} and l.deleted_at is null
      and l.lease_status_type_id = any(${[...LIVE_STATUSES]}::smallint[])
      and not exists (
        select 1 from sync_work_unit_seen s
        where s.account_id = l.account_id and s.work_unit_id = any(${liveUnits}::bigint[])
          and s.entity = 'lease' and s.key = l.lease_id)
    order by l.lease_id
  `.execute(step.db);
  const ids = rows.map((row) => Number(row.lease_id));
  const plans: WorkUnitPlan[] = [];
  for (let i = 0; i < ids.length; i += MISSING_BATCH) {
    const batch = ids.slice(i, i + MISSING_BATCH);
    plans.push(
      unit({
        kind: 'missing',
        unitKey: `leases:missing:${propertyId}:${batch[0]}-${batch[batch.length - 1]}@${today}`,
        propertyIds: [propertyId],
        params: { leaseIds: batch, leaseStatusTypeIds: [...ALL_STATUSES] },
        trackSeen: true,
        // A lease the source does not return even by id, with every status, is gone.
        onComplete: [{ type: 'mark-unseen-deleted', scope: { column: 'lease_id', values: batch } }],
      }),
    );
  }
  return plans;
}

/** A backfill: every lease moved in within each chunk of the range, per property, every status. */
export function planLeasesBackfill(
  context: LeasesPlanContext,
  range: { from: string; to: string; chunk: string },
): Lane[] {
  const chunks = chunkRange(range.from, range.to, range.chunk as ChunkSize);
  return context.propertyIds.map((propertyId) => ({
    key: `leases:${propertyId}`,
    propertyIds: [propertyId],
    steps: chunks.map((chunk) =>
      unit({
        kind: 'backfill',
        unitKey: `leases:backfill:${propertyId}:${chunk.from}..${chunk.to}`,
        propertyIds: [propertyId],
        window: chunk,
        params: { leaseStatusTypeIds: [...ALL_STATUSES], moveInDateFrom: chunk.from, moveInDateTo: chunk.to },
        trackSeen: false,
        onComplete: [],
      }),
    ),
  }));
}
