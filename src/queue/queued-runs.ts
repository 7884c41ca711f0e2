/**
 * The sweeps of queued runs: lanes whose job ended without a word (dead-lettered when its worker died on the last
 * attempt), ended through the run lifecycle (sync/runs/lanes.ts), which closes their run.
 */
import { sql } from 'kysely';
import type { Db } from '../catalog/tables.js';
import { endLane } from '../sync/runs/lanes.js';
import type { RunSummary } from '../sync/types.js';
import { DEAD_LETTER_QUEUE, deadLetters, QUEUE_PREFIX, QUEUE_SCHEMA } from './jobs.js';

/**
 * Ends, as `dead`, the lanes still open whose job is in the dead-letter queue: a worker killed
 * during a job's last attempt never said so (pg-boss moved the expired job there). Returns the
 * summaries of the runs that this ended.
 */
export async function endDeadLanes(
  db: Db,
  accounts: readonly string[],
  abandonedAfterMinutes: number,
): Promise<RunSummary[]> {
  const letters = await deadLetters(db, accounts);
  if (letters.length === 0) return [];
  // The dead-letter queue keeps its jobs for days: only the lanes still open among them are ended.
  const open = await db
    .selectFrom('sync_run_lanes')
    .select(['account_id', 'run_id', 'lane_key'])
    .where('finished_at', 'is', null)
    .where((eb) =>
      eb.or(
        letters.map((letter) =>
          eb.and([
            eb('account_id', '=', letter.account),
            eb('run_id', '=', letter.runId),
            eb('lane_key', '=', letter.laneKey),
          ]),
        ),
      ),
    )
    .execute();
  const laneId = (account: string, runId: number | string, laneKey: string) =>
    JSON.stringify([account, Number(runId), laneKey]);
  const stillOpen = new Set(open.map((lane) => laneId(lane.account_id, lane.run_id, lane.lane_key)));
  const ended: RunSummary[] = [];
  for (const letter of letters) {
    if (!stillOpen.has(laneId(letter.account, letter.runId, letter.laneKey))) continue;
    const summary = await endLane(db, {
      account: letter.account,
      runId: letter.runId,
      laneKey: letter.laneKey,
      status: 'dead',
      error: `its retries ran out (dead-letter queue): ${letter.error}`,
      abandonedAfterMinutes,
    });
    if (summary) ended.push(summary);
  }
  return ended;
}

/**
 * Ends, as `dead`, the lanes still queued whose job is gone from the queue (not waiting, running nor dead-lettered):
 * pg-boss archives a job that waited past its retention, and an `enqueue` killed between noting its lanes and
 * sending their jobs leaves lanes without one. Only lanes of runs not heard of for `graceMs` (the enqueue that
 * sends them, and the workers that run them, beat meanwhile). Returns the summaries of the runs this closed.
 */
export async function endOrphanedLanes(
  db: Db,
  accounts: readonly string[],
  args: { graceMs: number; abandonedAfterMinutes: number },
): Promise<RunSummary[]> {
  if (accounts.length === 0) return [];
  const { rows } = await sql<{ account_id: string; run_id: number; lane_key: string }>`
    select l.account_id, l.run_id, l.lane_key
      from sync_run_lanes l
      join sync_runs r on r.account_id = l.account_id and r.run_id = l.run_id
     where l.status = 'queued' and l.account_id = any(${accounts as string[]}::text[])
       and coalesce(r.heartbeat_at, r.started_at) < now() - make_interval(secs => ${args.graceMs / 1000}::float8)
       and not exists (
         select 1 from ${sql.table(`${QUEUE_SCHEMA}.job`)} j
          where j.name in (${QUEUE_PREFIX} || l.account_id, ${DEAD_LETTER_QUEUE}) and j.state < 'completed'
            and j.data->>'runId' = l.run_id::text and j.data->>'laneKey' = l.lane_key)`.execute(db);
  const ended: RunSummary[] = [];
  for (const row of rows) {
    const summary = await endLane(db, {
      account: row.account_id,
      runId: Number(row.run_id),
      laneKey: row.lane_key,
      status: 'dead',
      error:
        'its job left the queue without being run (pg-boss archived it after its retention, ' +
        'or the enqueue that queued it stopped before sending it); run propsync enqueue again',
      abandonedAfterMinutes: args.abandonedAfterMinutes,
    });
    if (summary) ended.push(summary);
  }
  return ended;
}

/** Jobs of `queues` ready to run for more than `forSeconds` that no worker took, by queue. */
export async function waitingUntaken(
  db: Db,
  queues: readonly string[],
  forSeconds: number,
): Promise<Map<string, number>> {
  if (queues.length === 0) return new Map();
  const { rows } = await sql<{ name: string; n: number }>`
    select name, count(*)::int as n from ${sql.table(`${QUEUE_SCHEMA}.job`)}
     where name = any(${queues as string[]}::text[]) and state in ('created', 'retry')
       and start_after < now() - make_interval(secs => ${forSeconds}::float8)
     group by name`.execute(db);
  return new Map(rows.map((row) => [row.name, row.n]));
}

/** Whether a worker has taken any job of a queued run yet (a unit of it started, or one of its jobs did). */
export async function runTaken(db: Db, account: string, runId: number): Promise<boolean> {
  const { rows } = await sql<{ taken: boolean }>`
    select exists (select 1 from sync_work_units where account_id = ${account} and run_id = ${runId})
        or exists (select 1 from ${sql.table(`${QUEUE_SCHEMA}.job`)}
                    where name = ${QUEUE_PREFIX + account} and data->>'runId' = ${String(runId)}
                      and started_on is not null) as taken`.execute(db);
  return rows[0]?.taken === true;
}
