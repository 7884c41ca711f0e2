import type { OperationNodeSource } from 'kysely';
import type { Db } from '../catalog/tables.js';

/** A cursor's value (the last day fully read) and its free-form state. */
export interface CursorValue {
  value: string | null;
  state: Record<string, unknown>;
}

/** Reads the cursors of an account's stream, all in one statement: a plan asks for one per scope. */
export function cursorReader(
  db: Db,
  account: string,
  stream: string,
): (scope: string, cursor: string) => Promise<CursorValue | undefined> {
  let all: Promise<Map<string, CursorValue>> | undefined;
  const load = async () => {
    const rows = await db
      .selectFrom('sync_cursors')
      .select(['scope', 'cursor', 'value', 'state'])
      .where('account_id', '=', account)
      .where('stream', '=', stream)
      .execute();
    return new Map(
      rows.map((row) => [
        cursorKey(row.scope, row.cursor),
        { value: row.value, state: (row.state ?? {}) as Record<string, unknown> },
      ]),
    );
  };
  return async (scope, cursor) => (await (all ??= load())).get(cursorKey(scope, cursor));
}

function cursorKey(scope: string, cursor: string): string {
  return `${scope}\u0000${cursor}`;
}

/** A cursor to set. */
export interface CursorWrite {
  scope: string;
  cursor: string;
  value: string;
  state?: Record<string, unknown>;
}

/**
 * The statement setting cursors of an account's stream (none for none); run in the transaction of
 * the page that completes their window.
 */
export function writeCursors(
  db: Db,
  args: { account: string; stream: string; runId: number; cursors: readonly CursorWrite[] },
): OperationNodeSource | undefined {
  if (args.cursors.length === 0) return undefined;
  // One statement may not set a row twice: a cursor named again keeps its last value, as a second write would.
  const last = new Map(args.cursors.map((cursor) => [cursorKey(cursor.scope, cursor.cursor), cursor]));
  const updatedAt = new Date();
  return db
    .insertInto('sync_cursors')
    .values(
      [...last.values()].map((cursor) => ({
        account_id: args.account,
        stream: args.stream,
        scope: cursor.scope,
        cursor: cursor.cursor,
        value: cursor.value,
        state: JSON.stringify(cursor.state ?? {}),
        updated_at: updatedAt,
        last_run_id: args.runId,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['account_id', 'stream', 'scope', 'cursor']).doUpdateSet((eb) => ({
        value: eb.ref('excluded.value'),
        state: eb.ref('excluded.state'),
        updated_at: eb.ref('excluded.updated_at'),
        last_run_id: eb.ref('excluded.last_run_id'),
      })),
    );
}
