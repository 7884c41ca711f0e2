import { sql, type Kysely } from 'kysely';
import PgBoss from 'pg-boss';

/**
 * Workers (issue 23): the pg-boss schema `propsync_queue` (pg-boss 10's own construction SQL;
 * pg-boss upgrades it itself when a later version starts), the pacing and daily budget of each
 * account shared by every process, and the lanes of a run put on the queue.
 */
/** The tables made here, each with an account_id. */
const NEW_TABLES = ['source_pacing', 'source_budget', 'sync_run_lanes'];

/** The rows of accounts the current user may see: 0011's policy, frozen here. */
const VISIBLE = sql.raw(
  '((select reporting_private.visible_accounts(current_user)) is null or account_id = any((select reporting_private.visible_accounts(current_user))::text[]))',
);

export async function up(db: Kysely<unknown>): Promise<void> {
  // Kysely runs each migration in a transaction of its own: pg-boss's BEGIN and COMMIT are left out.
  const plans = PgBoss.getConstructionPlans('propsync_queue').replace(/^\s*(BEGIN|COMMIT);\s*$/gm, '');
  await sql.raw(plans).execute(db);
  await sql`
    create table source_pacing (
      account_id text not null,
      method text not null,
      next_at timestamptz not null default now(),
      interval_ms integer not null default 0,
      remaining integer,
      reset_at timestamptz,
      primary key (account_id, method)
    )`.execute(db);
  await sql`
    create table source_budget (
      account_id text not null,
      day date not null,
      spent integer not null default 0,
      primary key (account_id, day)
    )`.execute(db);
  await sql`
    create table sync_run_lanes (
      account_id text not null,
      run_id bigint not null,
      lane_key text not null,
      stream text not null,
      status text not null default 'queued',
      error text,
      finished_at timestamptz,
      primary key (account_id, run_id, lane_key)
    )`.execute(db);
  // Readers given the base tables see only their accounts' rows, as 0011 set for every table with an account_id.
  for (const table of NEW_TABLES) {
    await sql`alter table ${sql.id('public', table)} enable row level security`.execute(db);
    await sql`create policy account_readers on ${sql.id('public', table)} for all using (${VISIBLE}) with check (${VISIBLE})`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table sync_run_lanes`.execute(db);
  await sql`drop table source_budget`.execute(db);
  await sql`drop table source_pacing`.execute(db);
  await sql`drop schema propsync_queue cascade`.execute(db);
}
