import { sql, type Kysely } from 'kysely';

/**
 * Issue 38. `alert_state`: what each alert target was last told of each alert of an account
 * (firing with a severity, or resolved), and when. Every process that evaluates the alerts
 * (sync, schedule, worker) decides under one transaction-level lock per account whether a change
 * or a reminder is due and writes it here before it sends, so any number of them send each
 * message once. The SQL here is frozen.
 */

/** The rows of accounts the current user may see: 0011's policy, frozen here. */
const VISIBLE = sql.raw(
  '((select reporting_private.visible_accounts(current_user)) is null or account_id = any((select reporting_private.visible_accounts(current_user))::text[]))',
);

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table alert_state (
      account_id text not null,
      alert_key text not null,
      target text not null,
      kind text not null,
      status text not null,
      severity text not null,
      summary text not null,
      value bigint,
      since timestamptz not null default now(),
      notified_at timestamptz not null default now(),
      reminders integer not null default 0,
      delivered_at timestamptz,
      primary key (account_id, alert_key, target)
    )`.execute(db);
  await sql`alter table public.alert_state enable row level security`.execute(db);
  await sql`create policy account_readers on public.alert_state for all using (${VISIBLE}) with check (${VISIBLE})`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table alert_state`.execute(db);
}
