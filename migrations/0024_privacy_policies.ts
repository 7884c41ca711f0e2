import { sql, type Kysely } from 'kysely';

/**
 * Issue 40. `privacy_policies`: per account, the personal-data policy its rows were written under
 * (the mode of each personal class, and an id of the hash key, never the key), and while
 * `propsync privacy apply` rewrites them, the policy it brings them to and how far it got. An
 * account without a row has its rows as the source sent them (keep). The SQL here is frozen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table privacy_policies (
      account_id text not null primary key,
      modes jsonb not null,
      key_id text,
      recorded_at timestamptz not null default now(),
      applying jsonb
    )`.execute(db);
  // Readers given the base tables see only their accounts' rows, as on every table of 0011.
  await sql`alter table privacy_policies enable row level security`.execute(db);
  await sql`
    create policy account_readers on privacy_policies for all
      using ((select reporting_private.visible_accounts(current_user)) is null
        or account_id = any((select reporting_private.visible_accounts(current_user))::text[]))
      with check ((select reporting_private.visible_accounts(current_user)) is null
        or account_id = any((select reporting_private.visible_accounts(current_user))::text[]))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table privacy_policies`.execute(db);
}
