import { sql, type Kysely } from 'kysely';

/**
 * The property dimension: every property getProperties lists, with its address, `raw`, the
 * digest of its record and the sync columns. A property the source stops listing keeps its row
 * with `deleted_at` set.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table properties (
      property_id bigint primary key,
      marketing_name text,
      property_type text,
      is_disabled boolean,
      street text,
      city text,
      state text,
      postal_code text,
      country text,
      source_hash text,
      deleted_at timestamptz,
      raw jsonb not null,
      first_synced_at timestamptz not null default now(),
      last_synced_at timestamptz not null default now(),
      last_run_id bigint
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists properties`.execute(db);
}
