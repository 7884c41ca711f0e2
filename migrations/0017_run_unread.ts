import { sql, type Kysely } from 'kysely';

/**
 * Issue 36: a run that knowingly leaves a window unread (the source's today clamped to the local tomorrow) says so
 * in its row, and ends `incomplete` rather than `succeeded`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sync_runs add column unread text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sync_runs drop column unread`.execute(db);
}
