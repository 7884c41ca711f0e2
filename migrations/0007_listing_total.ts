import { sql, type Kysely } from 'kysely';

/**
 * A work unit's checkpoint keeps the total its listing announced on the first page of its
 * current pass, so that a resumed unit still notices a listing that changed meanwhile; a run
 * writes a heartbeat, so that `status` tells a run whose process died from one in progress.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sync_work_units add column listing_total integer`.execute(db);
  await sql`alter table sync_runs add column heartbeat_at timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sync_runs drop column heartbeat_at`.execute(db);
  await sql`alter table sync_work_units drop column listing_total`.execute(db);
}
