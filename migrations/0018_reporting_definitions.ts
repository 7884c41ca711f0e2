import { sql, type Kysely } from 'kysely';

/**
 * The reporting views become current-state definitions (issue 34): one file per view under
 * src/reporting/definitions/, which `propsync migrate` brings the warehouse to after the
 * versioned migrations, replacing a view whose definition changed. This table holds the checksum
 * of the definition each view was last made from; a view without a row (every view of a
 * warehouse made before this migration) is made again from its definition once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table reporting_private.view_definitions (
      name text primary key,
      kind text not null check (kind in ('view', 'materialized view')),
      checksum text not null,
      applied_at timestamptz not null default now()
    )`.execute(db);
  await sql`comment on table reporting_private.view_definitions is ${sql.lit(
    'The reporting views made from their definitions (src/reporting/definitions/), with the checksum of the ' +
      'definition each was last made from: propsync migrate makes a view again when it differs.',
  )}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table reporting_private.view_definitions`.execute(db);
}
