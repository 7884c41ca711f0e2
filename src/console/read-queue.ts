import { sql } from 'kysely';
import { DEAD_LETTER_QUEUE, QUEUE_SCHEMA, queueOf } from '../queue/jobs.js';
import type { ConsoleContext } from './context.js';

/** An account's jobs on the queue, by what a worker does with them. */
export interface AccountQueue {
  account: string;
  queue: string;
  /** Created or waiting for a retry: not taken yet. */
  waiting: number;
  running: number;
  /** Kept by pg-boss for a while after they ended. */
  completed: number;
  failed: number;
  deadLetters: number;
}

/** A dead-letter job: the lane whose retries ran out. */
export interface DeadLetterRow {
  account: string;
  runId: number | null;
  laneKey: string | null;
  error: string;
  at: Date;
}

/** A process connected to the queue now (a worker, or a scheduler in queue mode). */
export interface QueueProcess {
  pid: string;
  address: string | null;
  sessions: number;
  since: Date;
  lastActive: Date | null;
}

/** What the queue page shows; `inUse` false when `propsync_queue` does not exist (no worker ever ran). */
export interface QueueOverview {
  inUse: boolean;
  accounts: AccountQueue[];
  deadLetters: DeadLetterRow[];
  processes: QueueProcess[];
}

/** Most dead letters listed (the newest). */
export const DEAD_LETTERS_SHOWN = 50;

/** The queue's jobs per account, the newest dead letters and the processes connected to it. */
export async function readQueue(context: ConsoleContext): Promise<QueueOverview> {
  const { db } = context;
  const { rows: exists } = await sql<{ job: string | null }>`
    select to_regclass(${`${QUEUE_SCHEMA}.job`})::text as job`.execute(db);
  const processes = await readQueueProcesses(context);
  if (!exists[0]?.job) return { inUse: false, accounts: [], deadLetters: [], processes };
  const job = sql.table(`${QUEUE_SCHEMA}.job`);
  const accounts = context.accounts.map((account) => account.id);
  const queues = accounts.map(queueOf);
  const { rows: states } = await sql<{ name: string; state: string; jobs: string }>`
    select name, state::text, count(*)::text as jobs from ${job}
     where name = any(${queues}::text[]) group by 1, 2`.execute(db);
  const { rows: dead } = await sql<{ account: string; jobs: string }>`
    select data->>'account' as account, count(*)::text as jobs from ${job}
     where name = ${DEAD_LETTER_QUEUE} and state < 'active' and data->>'account' = any(${accounts}::text[])
     group by 1`.execute(db);
  const { rows: letters } = await sql<{
    data: { account?: string; runId?: number; laneKey?: string };
    output: { message?: string; value?: { message?: string } } | null;
    created_on: Date;
  }>`
    select data, output, created_on from ${job}
     where name = ${DEAD_LETTER_QUEUE} and state < 'active' and data->>'account' = any(${accounts}::text[])
     order by created_on desc limit ${DEAD_LETTERS_SHOWN}`.execute(db);
  const jobs = (queue: string, ...wanted: string[]) =>
    states
      .filter((row) => row.name === queue && wanted.includes(row.state))
      .reduce((sum, row) => sum + Number(row.jobs), 0);
  return {
    inUse: true,
    accounts: accounts.map((account) => {
      const queue = queueOf(account);
      return {
        account,
        queue,
        waiting: jobs(queue, 'created', 'retry'),
        running: jobs(queue, 'active'),
        completed: jobs(queue, 'completed'),
        failed: jobs(queue, 'failed', 'cancelled'),
        deadLetters: Number(dead.find((row) => row.account === account)?.jobs ?? 0),
      };
    }),
    deadLetters: letters.map((row) => ({
      account: row.data.account ?? '?',
      runId: row.data.runId === undefined ? null : Number(row.data.runId),
      laneKey: row.data.laneKey ?? null,
      error: row.output?.message ?? row.output?.value?.message ?? 'its retries ran out',
      at: row.created_on,
    })),
    processes,
  };
}

/**
 * The processes whose pg-boss sessions are connected now, told by the application name pg-boss
 * opens them with (`propsync queue pid=N`, src/queue/boss.ts), by address and pid.
 */
async function readQueueProcesses(context: ConsoleContext): Promise<QueueProcess[]> {
  const { rows } = await sql<{
    pid: string;
    address: string | null;
    sessions: string;
    since: Date;
    last_active: Date | null;
  }>`
    select substring(application_name from 'pid=([0-9]+)') as pid, host(client_addr) as address,
           count(*)::text as sessions, min(backend_start) as since, max(state_change) as last_active
      from pg_stat_activity
     where datname = current_database() and application_name like 'propsync queue pid=%'
     group by 1, 2 order by 4 limit 100`.execute(context.db);
  return rows.map((row) => ({
    pid: row.pid,
    address: row.address,
    sessions: Number(row.sessions),
    since: row.since,
    lastActive: row.last_active,
  }));
}
