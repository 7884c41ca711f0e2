import { sql } from 'kysely';
import { nextCronTimes } from '../dates/cron-times.js';
import { readFreshness, type StreamFreshness } from '../sync/freshness.js';
import { budgetSpentToday } from '../sync/budget-spent.js';
import { callsToday, lastRun, runningRuns, type RunInfo } from '../sync/status.js';
import { lastVerification } from '../sync/verifications.js';
import type { ConsoleAccount, ConsoleContext } from './context.js';

/** One account's stream on the overview. */
export interface StreamRow {
  stream: string;
  /** ok, warn or error, with why; null for a stream that is not enabled (nothing to judge). */
  freshness: StreamFreshness | null;
  lastRun: RunInfo | null;
  lastSuccess: RunInfo | null;
  running: RunInfo[];
  nextRun: Date | null;
  callsToday: number;
  openQuarantine: number;
  /** Rows the account's latest verify found drifted in this stream; null when it did not verify it. */
  drift: number | null;
}

/** One account on the overview: its totals and its streams. */
export interface AccountOverview {
  account: ConsoleAccount;
  callsToday: number;
  openQuarantine: number;
  runsToday: { status: string; runs: number }[];
  lastVerify: { verificationId: number; finishedAt: string | null; driftRows: number; status: string } | null;
  streams: StreamRow[];
}

/** The next time a cron expression fires in a time zone (node-cron's own matcher; no job is started). */
export function nextCronTime(schedule: string, timeZone: string): Date | null {
  return nextCronTimes(schedule, timeZone, 1)[0] ?? null;
}

/** Everything the overview shows of one account: a handful of indexed queries per stream. */
export async function readAccountOverview(
  context: ConsoleContext,
  account: ConsoleAccount,
): Promise<AccountOverview> {
  const { db } = context;
  const calls = await callsToday(db, account.id, account.timeZone);
  const quarantine = await db
    .selectFrom('quarantine')
    .select(['stream', sql<string>`count(*)::text`.as('open')])
    .where('account_id', '=', account.id)
    .where('resolved_at', 'is', null)
    .groupBy('stream')
    .execute();
  const openBy = new Map(quarantine.map((row) => [row.stream, Number(row.open)]));
  const { rows: runsToday } = await sql<{ status: string; runs: string }>`
    select status, count(*)::text as runs from sync_runs
     where account_id = ${account.id}
       and started_at >= date_trunc('day', now() at time zone ${account.timeZone}) at time zone ${account.timeZone}
     group by status order by status`.execute(db);
  const verify = await lastVerification(db, account.id);
  const freshness = await readFreshness(
    db,
    context.freshness.filter((target) => target.account === account.id),
  );
  const streams: StreamRow[] = [];
  for (const stream of context.streams) {
    const drifted = verify?.tables.filter((table) => table.stream === stream.name) ?? [];
    streams.push({
      stream: stream.name,
      freshness: freshness.find((judged) => judged.stream === stream.name) ?? null,
      lastRun: await lastRun(db, account.id, stream.name, false),
      lastSuccess: await lastRun(db, account.id, stream.name, true),
      running: await runningRuns(db, account.id, stream.name, context.abandonedAfterMinutes),
      nextRun: stream.schedule ? nextCronTime(stream.schedule, account.timeZone) : null,
      callsToday: calls.get(stream.name) ?? 0,
      openQuarantine: openBy.get(stream.name) ?? 0,
      drift: drifted.length
        ? drifted.reduce((sum, table) => sum + table.missing + table.extra + table.differing, 0)
        : null,
    });
  }
  return {
    account,
    callsToday: await budgetSpentToday(db, account.id, account.timeZone),
    openQuarantine: [...openBy.values()].reduce((a, b) => a + b, 0),
    runsToday: runsToday.map((row) => ({ status: row.status, runs: Number(row.runs) })),
    lastVerify: verify && {
      verificationId: verify.verificationId,
      finishedAt: verify.finishedAt,
      driftRows: verify.driftRows,
      status: verify.status,
    },
    streams,
  };
}
