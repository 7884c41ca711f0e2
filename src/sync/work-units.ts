import { sql, type RawBuilder } from 'kysely';
import type { WorkUnitPlan } from '../streams/types.js';
import type { Db } from '../catalog/tables.js';
import { UNIT_COUNTERS, type Counts, type UnitCounter } from '../warehouse/run-counters.js';

/** A work unit row as the runner needs it. */
export interface StartedUnit {
  id: number;
  /** Page to fetch first: 1, or the checkpoint of an unfinished earlier attempt. */
  startPage: number;
  /** True when this unit was already done by an earlier run (backfills) and is skipped. */
  skipped: boolean;
  /** The total the listing announced on the first page of the resumed pass, when it announced one. */
  listingTotal?: number;
}

/**
 * Records a work unit of a run. An unfinished earlier attempt with the same unit key is resumed
 * from its checkpoint (its next page, and the keys it had seen) when it paged with the same page
 * size (a page number means nothing under another size, so the unit then starts over); a
 * finished backfill chunk is recorded as skipped. Met again in the same run (a queued lane taken
 * again by another worker), the unit goes on in its own row, or is skipped when done.
 * One statement: it reads the latest attempt, decides from it, writes the unit's row and copies
 * the keys a resumed attempt saw; only a unit met again in its run takes a second.
 */
export async function startWorkUnit(
  db: Db,
  account: string,
  runId: number,
  plan: WorkUnitPlan,
  perPage: number,
): Promise<StartedUnit> {
  const now = new Date();
  const { rows } = await sql<{
    previous_id: number | null;
    finished: boolean;
    skip: boolean;
    resumable: boolean;
    next_page: number | null;
    listing_total: number | null;
    inserted_id: number | null;
  }>`
    with previous as (
      select work_unit_id, run_id, next_page, listing_total,
             status in ('done', 'skipped') as finished,
             status not in ('done', 'skipped') and per_page is not distinct from ${perPage}::int as resumable
        from sync_work_units where account_id = ${account} and unit_key = ${plan.unitKey}
       order by work_unit_id desc limit 1
    ), attempt as (
      select p.work_unit_id, coalesce(p.run_id = ${runId}::bigint, false) as same_run,
             coalesce(p.finished, false) as finished, coalesce(p.resumable, false) as resumable,
             p.next_page, p.listing_total,
             -- A chunk done once stays done (a later rerun records it as skipped).
             ${plan.kind === 'backfill'}::boolean and coalesce(p.finished, false) as skip
        from (select 1) as one left join previous p on true
    ), inserted as (
      insert into sync_work_units (account_id, run_id, stream, kind, unit_key, property_ids, window_from,
                                   window_to, params, status, next_page, per_page, listing_total,
                                   started_at, finished_at)
      select ${account}, ${runId}::bigint, ${plan.stream}, ${plan.kind}, ${plan.unitKey},
             ${plan.propertyIds.map(Number)}::bigint[], ${plan.window?.from ?? null}::date,
             ${plan.window?.to ?? null}::date, ${JSON.stringify(plan.request.params)}::jsonb,
             case when skip then 'skipped' else 'running' end,
             case when resumable then next_page else 1 end, ${perPage}::int,
             case when resumable then listing_total end, ${now}::timestamptz,
             case when skip then ${now}::timestamptz end
        from attempt where not same_run
      returning work_unit_id
    ), seen as (
      insert into sync_work_unit_seen (account_id, work_unit_id, entity, key)
      select s.account_id, i.work_unit_id, s.entity, s.key
        from attempt a cross join inserted i
        join sync_work_unit_seen s on s.account_id = ${account} and s.work_unit_id = a.work_unit_id
       where ${plan.trackSeen === true}::boolean and a.resumable
      on conflict do nothing
    )
    select a.work_unit_id as previous_id, a.finished, a.skip, a.resumable, a.next_page, a.listing_total,
           i.work_unit_id as inserted_id
      from attempt a left join inserted i on true`.execute(db);
  const found = rows[0]!;
  const from = {
    startPage: found.resumable ? found.next_page! : 1,
    ...(found.resumable && found.listing_total != null ? { listingTotal: found.listing_total } : {}),
  };
  if (found.inserted_id !== null) return { id: found.inserted_id, skipped: found.skip, ...from };
  // The same run met the unit before (a queued lane taken again): done, it is skipped; else its own row goes on.
  if (!found.finished) {
    await db
      .updateTable('sync_work_units')
      .set({
        status: 'running',
        error: null,
        finished_at: null,
        ...(found.resumable ? {} : { next_page: 1, per_page: perPage, listing_total: null }),
      })
      .where('work_unit_id', '=', found.previous_id!)
      .execute();
  }
  return { id: found.previous_id!, skipped: found.finished, ...from };
}

/** Distinct keys a unit has recorded as seen, together with `extra` keys (a page not yet loaded). */
export async function countSeen(
  db: Db,
  account: string,
  unitId: number,
  extra: readonly string[],
): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from (
      select key from sync_work_unit_seen where account_id = ${account} and work_unit_id = ${unitId}
      union
      select k from unnest(${extra as string[]}::bigint[]) as k
    ) keys`.execute(db);
  return rows[0]?.n ?? 0;
}

/**
 * Removes the seen keys no later step needs: those of units that are done (or skipped), or whose
 * unit key a later attempt has taken over (a resume copies them), once their run is no longer in
 * progress (the run \`runId\` is ending) or was abandoned. An unfinished unit's latest attempt
 * keeps its keys for its resume.
 */
export async function cleanUpSeen(
  db: Db,
  args: { runId: number; abandonedAfterMinutes: number },
): Promise<number> {
  const result = await sql`
    delete from sync_work_unit_seen s
     using sync_work_units u join sync_runs r on r.account_id = u.account_id and r.run_id = u.run_id
     where s.account_id = u.account_id and s.work_unit_id = u.work_unit_id
       and (r.run_id = ${args.runId} or r.status <> 'running'
            or coalesce(r.heartbeat_at, r.started_at) < now() - make_interval(mins => ${args.abandonedAfterMinutes}))
       and (u.status in ('done', 'skipped')
            or exists (select 1 from sync_work_units later
                        where later.account_id = u.account_id and later.unit_key = u.unit_key
                          and later.work_unit_id > u.work_unit_id))`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Per-page increments of a unit's counters (`pages` is 1). */
export type PageProgress = Counts<UnitCounter>;

/**
 * The statement writing a page's checkpoint and adding its counters to the unit's; run inside the
 * page's transaction. With the first page of a pass comes the total its listing announced (null:
 * none). It returns the unit's `quarantined` count so far, this page included.
 */
export function checkpointPage(
  db: Db,
  args: {
    unitId: number;
    nextPage: number;
    progress: PageProgress;
    done: boolean;
    listingTotal?: number | null;
  },
) {
  return db
    .updateTable('sync_work_units')
    .set((eb) => ({
      ...Object.fromEntries(
        UNIT_COUNTERS.map((counter) => [counter.column, eb(counter.column, '+', args.progress[counter.key])]),
      ),
      next_page: args.nextPage,
      status: args.done ? 'done' : 'running',
      finished_at: args.done ? sql<Date>`now()` : null,
      ...(args.listingTotal !== undefined && { listing_total: args.listingTotal }),
    }))
    .where('work_unit_id', '=', args.unitId)
    .returning('quarantined');
}

/** Pages a unit has committed (its checkpoint's count). */
export async function pagesCommitted(db: Db, unitId: number): Promise<number> {
  const row = await db
    .selectFrom('sync_work_units')
    .select('pages')
    .where('work_unit_id', '=', unitId)
    .executeTakeFirst();
  return row?.pages ?? 0;
}

/** Adds calls spent by attempts that produced no page (a failure) to a unit. */
export async function addUnitCalls(db: Db, unitId: number, calls: number, retries: number): Promise<void> {
  if (calls === 0 && retries === 0) return;
  await db
    .updateTable('sync_work_units')
    .set((eb) => ({ calls: eb('calls', '+', calls), retries: eb('retries', '+', retries) }))
    .where('work_unit_id', '=', unitId)
    .execute();
}

/** Ends a unit that did not complete: `failed` (with the error) or `interrupted` (shutdown, budget). */
export async function endWorkUnit(
  db: Db,
  unitId: number,
  status: 'failed' | 'interrupted',
  error: string,
): Promise<void> {
  await db
    .updateTable('sync_work_units')
    .set({ status, error, finished_at: new Date() })
    .where('work_unit_id', '=', unitId)
    .execute();
}

/** The statement recording the keys a unit saw on one page (for deletion detection), or none for none. */
export function recordSeen(
  account: string,
  unitId: number,
  entity: string,
  keys: readonly number[],
): RawBuilder<unknown> | undefined {
  if (keys.length === 0) return undefined;
  return sql`
    insert into sync_work_unit_seen (account_id, work_unit_id, entity, key)
    select ${account}, ${unitId}, ${entity}, k from unnest(${keys as number[]}::bigint[]) as k
    on conflict do nothing`;
}

/** Forgets the keys a unit saw, when its listing is read again from the start. */
export async function forgetSeen(db: Db, account: string, unitId: number): Promise<void> {
  await db
    .deleteFrom('sync_work_unit_seen')
    .where('account_id', '=', account)
    .where('work_unit_id', '=', unitId)
    .execute();
}

/**
 * The condition "unit `unitId` saw the record of `entity` whose key is `key`", for a statement over a stream's table.
 */
export function seenBy(
  account: string,
  unitId: number,
  entity: string,
  key: RawBuilder<unknown>,
): RawBuilder<boolean> {
  return sql<boolean>`exists (
    select 1 from sync_work_unit_seen s
     where s.account_id = ${account} and s.work_unit_id = ${unitId} and s.entity = ${entity} and s.key = ${key})`;
}
