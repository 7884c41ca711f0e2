import { sql, type Kysely } from 'kysely';

/**
 * The sync's own tables: runs, work units (with their page checkpoints and the keys each one
 * saw), cursors, and the quarantine of records that failed validation.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sync_runs (
      run_id bigserial primary key,
      kind text not null,
      streams text[] not null,
      property_ids bigint[],
      requested jsonb not null default '{}'::jsonb,
      status text not null default 'running',
      started_at timestamptz not null default now(),
      finished_at timestamptz,
      source_today date,
      work_units_total integer not null default 0,
      work_units_done integer not null default 0,
      work_units_failed integer not null default 0,
      pages integer not null default 0,
      records integer not null default 0,
      rows_inserted integer not null default 0,
      rows_updated integer not null default 0,
      rows_unchanged integer not null default 0,
      rows_deleted integer not null default 0,
      quarantined integer not null default 0,
      calls integer not null default 0,
      bytes bigint not null default 0,
      retries integer not null default 0,
      throttled integer not null default 0,
      error text,
      host text,
      pid integer
    )`.execute(db);
  await sql`create index sync_runs_started_idx on sync_runs (started_at)`.execute(db);

  await sql`
    create table sync_work_units (
      work_unit_id bigserial primary key,
      run_id bigint not null references sync_runs (run_id),
      stream text not null,
      kind text not null,
      unit_key text not null,
      property_ids bigint[] not null default '{}',
      window_from date,
      window_to date,
      params jsonb not null default '{}'::jsonb,
      status text not null default 'pending',
      next_page integer not null default 1,
      per_page integer,
      pages integer not null default 0,
      records integer not null default 0,
      rows_inserted integer not null default 0,
      rows_updated integer not null default 0,
      rows_unchanged integer not null default 0,
      rows_deleted integer not null default 0,
      quarantined integer not null default 0,
      calls integer not null default 0,
      bytes bigint not null default 0,
      retries integer not null default 0,
      started_at timestamptz,
      finished_at timestamptz,
      error text
    )`.execute(db);
  await sql`create index sync_work_units_run_idx on sync_work_units (run_id)`.execute(db);
  await sql`create index sync_work_units_key_idx on sync_work_units (unit_key, status)`.execute(db);

  await sql`
    create table sync_work_unit_seen (
      work_unit_id bigint not null references sync_work_units (work_unit_id) on delete cascade,
      entity text not null,
      key bigint not null,
      primary key (work_unit_id, entity, key)
    )`.execute(db);

  await sql`
    create table sync_cursors (
      stream text not null,
      scope text not null,
      cursor text not null,
      value date,
      state jsonb not null default '{}'::jsonb,
      updated_at timestamptz not null default now(),
      last_run_id bigint,
      primary key (stream, scope, cursor)
    )`.execute(db);

  await sql`
    create table quarantine (
      quarantine_id bigserial primary key,
      run_id bigint,
      work_unit_id bigint,
      stream text not null,
      entity text not null,
      record_key text,
      property_id bigint,
      window_from date,
      window_to date,
      page integer,
      reason text not null,
      raw jsonb not null,
      created_at timestamptz not null default now(),
      resolved_at timestamptz,
      resolved_run_id bigint
    )`.execute(db);
  await sql`create index quarantine_open_idx on quarantine (stream, record_key) where resolved_at is null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['quarantine', 'sync_cursors', 'sync_work_unit_seen', 'sync_work_units', 'sync_runs']) {
    await sql`drop table if exists ${sql.table(table)}`.execute(db);
  }
}
