import { sql, type ExpressionBuilder } from 'kysely';
import type { Db, Warehouse } from '../catalog/tables.js';

/** Which cursors to forget: every cursor of an account's stream, or only those covering one property. */
export interface ResetSelection {
  account: string;
  stream: string;
  propertyId?: string;
}

/** A cursor that a reset forgets (or would forget). */
export interface ResetCursor {
  scope: string;
  cursor: string;
  value: string | null;
}

/**
 * The condition that picks a selection's cursors: the stream's, and with a property, the
 * scopes that contain it (a lease scope is one property id; an invoice scope is a property
 * group, comma-joined, so forgetting one property's invoice cursors re-reads its whole group).
 */
function selects(selection: ResetSelection) {
  return (eb: ExpressionBuilder<Warehouse, 'sync_cursors'>) => {
    const stream = eb.and([eb('account_id', '=', selection.account), eb('stream', '=', selection.stream)]);
    if (selection.propertyId === undefined) return stream;
    return eb.and([stream, sql<boolean>`${selection.propertyId} = any(string_to_array(scope, ','))`]);
  };
}

/** The cursors a reset would forget, without changing anything (for the confirmation prompt). */
export async function cursorsToReset(db: Db, selection: ResetSelection): Promise<ResetCursor[]> {
  return db
    .selectFrom('sync_cursors')
    .select(['scope', 'cursor', 'value'])
    .where(selects(selection))
    .orderBy('scope')
    .orderBy('cursor')
    .execute();
}

/**
 * Forgets the selected cursors in one transaction and returns them. The next sync then plans
 * those scopes as on a first run. Run history, backfill chunks and warehouse rows are kept.
 */
export async function resetCursors(db: Db, selection: ResetSelection): Promise<ResetCursor[]> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .deleteFrom('sync_cursors')
      .where(selects(selection))
      .returning(['scope', 'cursor', 'value'])
      .execute();
    return rows.sort((a, b) => a.scope.localeCompare(b.scope) || a.cursor.localeCompare(b.cursor));
  });
}
