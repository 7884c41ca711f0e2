import { sql } from 'kysely';
import type { ChunkSize } from '../../dates/calendar.js';
import { addDays, chunkRange, firstDayOfPreviousMonth, minDay } from '../../dates/days.js';
import type { SourceRequest } from '../../source/types.js';
import { fullRefreshDue, nextFullRefresh } from '../full-refresh.js';
import type {
  CompletionAction,
  Lane,
  PlanContext,
  StepContext,
  StreamSettings,
  TablesDb,
  WorkUnitPlan,
} from '../types.js';
import { GET_INVOICES, INVOICE_CALL_PARAMS, type invoices } from './manifest.js';
import type { INVOICE_TABLES } from './tables.js';

/** What the invoices plan is given: its settings (`streams.invoices`). */
type InvoicesPlanContext = PlanContext<StreamSettings<typeof invoices>>;

/** The three date windows of getInvoices, each with its own cursor, and their parameters. */
const INVOICE_WINDOWS = [
  { cursor: 'post_date', from: 'fromDate', to: 'toDate' },
  { cursor: 'paid', from: 'paidInvoiceFromDate', to: 'paidInvoiceToDate' },
  { cursor: 'voided', from: 'voidedPaymentFromDate', to: 'voidedPaymentToDate' },
] as const;

/** Property groups: sorted ids cut into batches of `size`; a group's scope is its ids joined by commas. */
export function propertyGroups(propertyIds: readonly string[], size: number): string[][] {
  const sorted = [...propertyIds].sort((a, b) => Number(a) - Number(b));
  const groups: string[][] = [];
  for (let i = 0; i < sorted.length; i += size) groups.push(sorted.slice(i, i + size));
  return groups;
}

/** Parameters of every getInvoices call: exported invoices, refunds and voided payments included. */
function invoicesRequest(group: string[], params: SourceRequest['params'], workUnit: string): SourceRequest {
  return {
    method: GET_INVOICES,
    params: { propertyIds: group, ...INVOICE_CALL_PARAMS, ...params },
    context: {
      stream: 'invoices',
      property: group.length === 1 ? group[0] : `${group[0]}..(${group.length})`,
      workUnit,
    },
  };
}

function unit(
  group: string[],
  args: {
    kind: string;
    unitKey: string;
    window?: { from: string; to: string };
    params: SourceRequest['params'];
    onComplete: CompletionAction[];
    trackSeen?: boolean;
  },
): WorkUnitPlan {
  return {
    stream: 'invoices',
    kind: args.kind,
    unitKey: args.unitKey,
    propertyIds: group,
    window: args.window,
    request: invoicesRequest(group, args.params, args.unitKey),
    trackSeen: args.trackSeen === true,
    onComplete: args.onComplete,
  };
}

/** Invoices asked for by id in one call when looking for disappearances. */
const MISSING_BATCH = 100;

/**
 * After a group's full listing: the invoices the warehouse holds live with a line at the group's
 * properties that the listing did not return, asked for again by id (at any property). One the
 * source does not return even so is gone (marked deleted, with its children); one it returns (its
 * lines moved to other properties) is loaded as it now is.
 */
async function planDisappearances(
  step: StepContext,
  group: string[],
  today: string,
): Promise<WorkUnitPlan[]> {
  const fullUnits = step.doneUnits.get('full') ?? [];
  if (fullUnits.length === 0) return [];
  const db: TablesDb<typeof INVOICE_TABLES> = step.db;
  const { rows } = await sql<{ invoice_id: number }>`
    select distinct i.invoice_id from invoices i
    join invoice_line_items li
      on li.account_id = i.account_id and li.invoice_id = i.invoice_id and li.deleted_at is null
    where i.account_id = ${step.accountId} and i.deleted_at is null
      and li.property_id = any(${group.map(Number)}::bigint[])
      and i.invoice_id not in (
        select s.key from sync_work_unit_seen s
        where s.account_id = ${step.accountId} and s.work_unit_id = any(${fullUnits}::bigint[])
          and s.entity = 'invoice')
    order by i.invoice_id`.execute(db);
  const ids = rows.map((row) => Number(row.invoice_id));
  const plans: WorkUnitPlan[] = [];
  for (let i = 0; i < ids.length; i += MISSING_BATCH) {
    const batch = ids.slice(i, i + MISSING_BATCH);
    const unitKey = `invoices:missing:${group.join(',')}:${batch[0]}-${batch[batch.length - 1]}@${today}`;
    plans.push({
      stream: 'invoices',
      kind: 'missing',
      unitKey,
      propertyIds: group,
      request: {
        method: GET_INVOICES,
        params: { ...INVOICE_CALL_PARAMS, ids: batch },
        context: { stream: 'invoices', property: group.join(','), workUnit: unitKey },
      },
      trackSeen: true,
      onComplete: [{ type: 'mark-unseen-deleted', scope: { column: 'invoice_id', values: batch } }],
    });
  }
  return plans;
}

/**
 * The incremental plan of one property group: when never loaded, when its periodic full
 * re-read is due, or with `--full`, every invoice of the group (no date filter), then the
 * invoices of the warehouse that listing no longer returned, asked for by id; otherwise three
 * windows up to the source's today, each from its cursor minus `lookbackDays`: post date (reaching
 * back at least to the first day of the previous month, since invoices are back-dated into open
 * periods), payment applied, and payment voided. Windows longer than `windowDays` are cut.
 */
export async function planInvoices(context: InvoicesPlanContext): Promise<Lane[]> {
  const settings = context.settings;
  const today = context.today;
  const lanes: Lane[] = [];
  const groups = propertyGroups(context.propertyIds, settings.propertyGroupSize);
  for (const [slot, group] of groups.entries()) {
    const scope = group.join(',');
    const full = await context.cursor(scope, 'full_refresh');
    const cursors = await Promise.all(INVOICE_WINDOWS.map((window) => context.cursor(scope, window.cursor)));
    if (
      context.full ||
      !full ||
      cursors.some((cursor) => !cursor?.value) ||
      fullRefreshDue(full.state, today)
    ) {
      const nextDue = nextFullRefresh(today, settings.fullRefreshDays, !full, slot, groups.length);
      lanes.push({
        key: `invoices:${scope}`,
        propertyIds: group,
        steps: [
          unit(group, {
            kind: 'full',
            unitKey: `invoices:full:${scope}@${today}`,
            params: {},
            trackSeen: true,
            onComplete: [
              ...INVOICE_WINDOWS.map((window): CompletionAction => ({
                type: 'cursor',
                scope,
                cursor: window.cursor,
                value: today,
              })),
              { type: 'cursor', scope, cursor: 'full_refresh', value: today, state: { nextDue } },
            ],
          }),
          (step) => planDisappearances(step, group, today),
        ],
      });
      continue;
    }
    const steps: WorkUnitPlan[] = [];
    INVOICE_WINDOWS.forEach((window, index) => {
      const cursor = cursors[index]!.value!;
      let from = addDays(cursor, -settings.lookbackDays);
      if (window.cursor === 'post_date') from = minDay(from, firstDayOfPreviousMonth(today));
      for (const chunk of chunkRange(from, today, { days: settings.windowDays })) {
        steps.push(
          unit(group, {
            kind: window.cursor,
            unitKey: `invoices:${window.cursor}:${scope}:${chunk.from}..${chunk.to}`,
            window: chunk,
            params: { [window.from]: chunk.from, [window.to]: chunk.to },
            onComplete: [{ type: 'cursor', scope, cursor: window.cursor, value: chunk.to }],
          }),
        );
      }
    });
    lanes.push({ key: `invoices:${scope}`, propertyIds: group, steps });
  }
  return lanes;
}

/** A backfill: every invoice posted within each chunk of the range, per property group. */
export function planInvoicesBackfill(
  context: InvoicesPlanContext,
  range: { from: string; to: string; chunk: string },
): Lane[] {
  const chunks = chunkRange(range.from, range.to, range.chunk as ChunkSize);
  return propertyGroups(context.propertyIds, context.settings.propertyGroupSize).map((group) => ({
    key: `invoices:${group.join(',')}`,
    propertyIds: group,
    steps: chunks.map((chunk) =>
      unit(group, {
        kind: 'backfill',
        unitKey: `invoices:backfill:${group.join(',')}:${chunk.from}..${chunk.to}`,
        window: chunk,
        params: { fromDate: chunk.from, toDate: chunk.to },
        onComplete: [],
      }),
    ),
  }));
}
