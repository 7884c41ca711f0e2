import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Db } from '../../src/catalog/tables.js';
import type { RunningCli } from '../cli/support.js';

/**
 * A slow warehouse: every write of a work unit's row (a page's checkpoint, inside the page's
 * transaction) takes 150 ms, so that a cut or a restart lands on a transaction in flight.
 */
export async function slowCheckpoints(db: Db): Promise<void> {
  await sql`create function test_slow_checkpoint() returns trigger language plpgsql as $$ begin perform pg_sleep(0.15); return new; end $$`.execute(
    db,
  );
  await sql`create trigger test_slow_checkpoint before update on sync_work_units for each row execute function test_slow_checkpoint()`.execute(
    db,
  );
}

/** Pages committed so far, by every run. */
export async function pagesCommitted(db: Db): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`select coalesce(sum(pages), 0)::int as n from sync_work_units`.execute(db);
  return rows[0].n;
}

/**
 * The propsync processes' sessions on this warehouse (the test's own left out); with
 * `transactionBefore`, those inside a transaction begun before then.
 */
export async function propsyncSessions(db: Db, options: { transactionBefore?: Date } = {}): Promise<number> {
  const before = options.transactionBefore ?? null;
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_stat_activity
     where datname = current_database() and pid <> pg_backend_pid()
       and application_name like 'propsync%' and application_name not like 'propsync-test%'
       and (${before}::timestamptz is null or xact_start < ${before}::timestamptz)`.execute(db);
  return rows[0].n;
}

/**
 * Waits until one of propsync's pool connections is inside a statement or a transaction, then
 * terminates it together with every stream lock connection. Returns the backends cut.
 */
export async function cutMidTransaction(db: Db, running: Pick<RunningCli, 'child'>): Promise<number> {
  for (let exited = false; !exited;) {
    const { rows } = await sql<{ pid: number }>`
      with busy as materialized (
        select pid from pg_stat_activity
         where datname = current_database() and application_name = 'propsync' and state in ('active', 'idle in transaction')),
      victims as materialized (
        select pid from pg_stat_activity
         where datname = current_database() and exists (select 1 from busy)
           and (pid in (select pid from busy) or application_name like 'propsync lock %'))
      select pid from victims where pg_terminate_backend(pid)`.execute(db);
    if (rows.length > 0) return rows.length;
    await sleep(10);
    exited = running.child.exitCode !== null;
  }
  return 0;
}
