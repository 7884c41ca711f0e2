import { sql } from 'kysely';
import type { Db } from '../catalog/tables.js';
import { parentKeyColumn } from '../warehouse/compare-rows.js';
import {
  hasRowHash,
  ROW_HASH_COLUMN,
  SOURCE_HASH_COLUMN,
  SOURCE_TEXT_HASH_COLUMN,
} from '../warehouse/schema.js';
import type { VerifiedStream } from './verify-scope.js';

/**
 * Before a repair's full refresh: forgets the digests of the drifted properties' scopes (the
 * parents' record digests, and the row digests of children that keep one), so that the refresh
 * loads every record and row of those scopes again through the usual path (merge, children
 * replaced; rows marked deleted included) rather than passing over one that comes back identical
 * while the rows it made were changed behind the sync's back. Touches no data column. Returns
 * the parent rows it touched.
 */
export async function forgetDigests(
  db: Db,
  account: string,
  stream: VerifiedStream,
  propertyIds: readonly string[],
): Promise<number> {
  const parent = stream.tables[0];
  if (!parent.sourceHash || propertyIds.length === 0) return 0;
  const covers = stream.tables.find((table) => table.name === stream.verify.covers.table)!;
  // Rows marked deleted too: a row marked deleted behind the sync's back is loaded again.
  const parents = sql`select ${sql.id(parentKeyColumn(covers))} from ${sql.table(covers.name)}
      where account_id = ${account}
        and ${sql.id(stream.verify.covers.column)} = any(${propertyIds.map(Number)}::bigint[])`;
  for (const child of stream.tables.slice(1).filter(hasRowHash))
    await sql`update ${sql.table(child.name)} set ${sql.id(ROW_HASH_COLUMN)} = null
      where account_id = ${account} and ${sql.id(child.parentColumn!)} in (${parents})
        and ${sql.id(ROW_HASH_COLUMN)} is not null`.execute(db);
  const result = await sql`
    update ${sql.table(parent.name)} set ${sql.id(SOURCE_HASH_COLUMN)} = null, ${sql.id(SOURCE_TEXT_HASH_COLUMN)} = null
    where account_id = ${account} and ${sql.id(parent.key[0])} in (${parents})
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
