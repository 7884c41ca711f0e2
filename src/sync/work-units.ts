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

/** A unit's latest attempt, as `startWorkUnit` reads it. */
interface PreviousUnit {
  work_unit_id: number | null;
  run_id: number;
  status: string;
  next_page: number;
  per_page: number | null;
  listing_total: number | null;
}

/**
 * Records a work unit of a run. An unfinished earlier attempt with the same unit key is resumed
 * from its checkpoint (its next page, and the keys it had seen) when it paged with the same page
 * size (a page number means nothing under another size, so the unit then starts over); a
 * finished backfill chunk is recorded as skipped. Met again in the same run (a queued lane taken
 * again by another worker), the unit goes on in its own row, or is skipped when done.
 */
export async function startWorkUnit(
  db: Db,
  account: string,
  runId: number,
  plan: WorkUnitPlan,
  perPage: number,
): Promise<StartedUnit> {
  // The common case in one round trip: no earlier attempt to resume, none of this run, and not a
  // backfill (whose finished chunk is skipped): the unit's row starts at page 1.
  const { rows } = await sql<PreviousUnit & { inserted_id: number | null }>`
    with previous as (
      select work_unit_id, run_id, status, next_page, per_page, listing_total
        from sync_work_units where account_id = ${account} and unit_key = ${plan.unitKey}
       order by work_unit_id desc limit 1
    ), inserted as (
      insert into sync_work_units (account_id, run_id, stream, kind, unit_key, property_ids,
                                   window_from, window_to, params, status, next_page, per_page, started_at)
      select ${account}, ${runId}::bigint, ${plan.stream}, ${plan.kind}, ${plan.unitKey},
             ${plan.propertyIds.map(Number)}::bigint[], ${plan.window?.from ?? null}::date,
             ${plan.window?.to ?? null}::date, ${JSON.stringify(plan.request.params)}::jsonb, 'running', 1,
             ${perPage}::int, ${new Date()}::timestamptz
       where ${plan.kind !== 'backfill'}::boolean and not exists (
               select 1 from previous where run_id = ${runId}::bigint or status not in ('done', 'skipped'))
      returning work_unit_id
    )
    select p.*, (select work_unit_id from inserted) as inserted_id
      from (select 1) as one left join previous p on true`.execute(db);
  const found = rows[0];
  if (found?.inserted_id != null) return { id: found.inserted_id, startPage: 1, skipped: false };
  const previous = found?.work_unit_id == null ? undefined : { ...found, work_unit_id: found.work_unit_id };
  const finished = previous?.status === 'done' || previous?.status === 'skipped';
  const resume = previous && !finished && previous.per_page === perPage ? previous : undefined;
  const from = {
    startPage: resume?.next_page ?? 1,
    ...(resume?.listing_total != null ? { listingTotal: resume.listing_total } : {}),
  };
  // The same run met the unit before (a queued lane taken again): done, it is skipped; else its own row goes on.
  if (previous && previous.run_id === runId) {
    if (!finished) {
      await db
        .updateTable('sync_work_units')
        .set({
          status: 'running',
          error: null,
          finished_at: null,
          ...(resume ? {} : { next_page: 1, per_page: perPage, listing_total: null }),
        })
        .where('work_unit_id', '=', previous.work_unit_id)
        .execute();
    }
    return { id: previous.work_unit_id, skipped: finished, ...from };
  }
  // A chunk done once stays done (a later rerun records it as skipped).
  const skipped = plan.kind === 'backfill' && finished;
  // One statement, unless a resume copies the keys its attempt saw: then both in one transaction.
  const seenOf = resume && plan.trackSeen ? resume.work_unit_id : undefined;
  const record = async (trx: Db) => {
    const inserted = await trx
      .insertInto('sync_work_units')
      .values({
        account_id: account,
        run_id: runId,
        stream: plan.stream,
        kind: plan.kind,
        unit_key: plan.unitKey,
        property_ids: plan.propertyIds.map(Number),
        window_from: plan.window?.from ?? null,
        window_to: plan.window?.to ?? null,
        params: JSON.stringify(plan.request.params),
        status: skipped ? 'skipped' : 'running',
        next_page: resume?.next_page ?? 1,
        per_page: perPage,
        listing_total: resume?.listing_total ?? null,
        started_at: new Date(),
        finished_at: skipped ? new Date() : null,
      })
      .returning('work_unit_id')
      .executeTakeFirstOrThrow();
    const id = inserted.work_unit_id;
    if (seenOf !== undefined) {
      await trx
        .insertInto('sync_work_unit_seen')
        .columns(['account_id', 'work_unit_id', 'entity', 'key'])
        .expression((eb) =>
          eb
            .selectFrom('sync_work_unit_seen')
            .select(['account_id', eb.val(id).as('work_unit_id'), 'entity', 'key'])
            .where('account_id', '=', account)
            .where('work_unit_id', '=', seenOf),
        )
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    return { id, skipped, ...from };
  };
  return seenOf === undefined ? record(db) : db.transaction().execute(record);
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
