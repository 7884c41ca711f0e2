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
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table privacy_policies`.execute(db);
}
