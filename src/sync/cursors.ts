import type { Db } from '../catalog/tables.js';

/** A cursor's value (the last day fully read) and its free-form state. */
export interface CursorValue {
  value: string | null;
  state: Record<string, unknown>;
}

/** Reads one cursor of an account's stream and scope (a property id, or a property group's ids). */
export async function readCursor(db: Db, account: string, stream: string, scope: string, cursor: string): Promise<CursorValue | undefined> {
  const row = await db
    .selectFrom('sync_cursors')
    .select(['value', 'state'])
    .where('account_id', '=', account)
    .where('stream', '=', stream)
    .where('scope', '=', scope)
    .where('cursor', '=', cursor)
    .executeTakeFirst();
  return row ? { value: row.value, state: (row.state ?? {}) as Record<string, unknown> } : undefined;
}

/** Sets a cursor; called in the transaction of the page that completes its window. */
export async function writeCursor(db: Db, args: { account: string; stream: string; scope: string; cursor: string; value: string; state?: Record<string, unknown>; runId: number }): Promise<void> {
  await db
    .insertInto('sync_cursors')
    .values({ account_id: args.account, stream: args.stream, scope: args.scope, cursor: args.cursor, value: args.value, state: JSON.stringify(args.state ?? {}), updated_at: new Date(), last_run_id: args.runId })
    .onConflict((oc) =>
      oc.columns(['account_id', 'stream', 'scope', 'cursor']).doUpdateSet((eb) => ({
        value: eb.ref('excluded.value'),
        state: eb.ref('excluded.state'),
        updated_at: eb.ref('excluded.updated_at'),
        last_run_id: eb.ref('excluded.last_run_id'),
      })),
    )
    .execute();
}
