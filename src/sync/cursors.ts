import { sql, type Kysely } from 'kysely';

/** A cursor's value (the last day fully read) and its free-form state. */
export interface CursorValue {
  value: string | null;
  state: Record<string, unknown>;
}

/** Reads one cursor of a stream and scope (a property id, or a property group's ids). */
export async function readCursor(db: Kysely<any>, stream: string, scope: string, cursor: string): Promise<CursorValue | undefined> {
  const row = await db
    .selectFrom('sync_cursors')
    .select(['value', 'state'])
    .where('stream', '=', stream)
    .where('scope', '=', scope)
    .where('cursor', '=', cursor)
    .executeTakeFirst();
  return row ? { value: row.value, state: (row.state ?? {}) as Record<string, unknown> } : undefined;
}

/** Sets a cursor; called in the transaction of the page that completes its window. */
export async function writeCursor(
  db: Kysely<any>,
  args: { stream: string; scope: string; cursor: string; value: string; state?: Record<string, unknown>; runId: number },
): Promise<void> {
  await sql`
    insert into sync_cursors (stream, scope, cursor, value, state, updated_at, last_run_id)
    values (${args.stream}, ${args.scope}, ${args.cursor}, ${args.value}::date, ${JSON.stringify(args.state ?? {})}::jsonb, now(), ${args.runId})
    on conflict (stream, scope, cursor) do update set value = excluded.value, state = excluded.state,
      updated_at = excluded.updated_at, last_run_id = excluded.last_run_id
  `.execute(db);
}
