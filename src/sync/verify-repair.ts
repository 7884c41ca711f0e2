import { sql } from 'kysely';
import type { Db } from '../catalog/tables.js';
import { parentKeyColumn } from '../warehouse/compare-rows.js';
import { digestColumnsOf } from '../warehouse/schema.js';
import type { VerifiedStream } from './verify-scope.js';

/**
 * Before a repair's full refresh: forgets the digests of the drifted properties' scopes (the
 * parents' record digests, and the row digests of children that keep one), so that the refresh
 * loads every record and row of those scopes again through the usual path (merge, children
 * replaced; rows marked deleted included) rather than passing over one that comes back identical
 * while the rows it made were changed behind the sync's back. Touches no data column. Returns
 * the rows it touched.
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
  let forgotten = 0;
  for (const table of stream.tables) {
    const digests = digestColumnsOf(table);
    if (digests.length === 0) continue;
    const result = await sql`
      update ${sql.table(table.name)} set ${sql.join(digests.map((column) => sql`${sql.id(column)} = null`))}
      where account_id = ${account} and ${sql.id(parentKeyColumn(table))} in (${parents})
        and not (${sql.join(
          digests.map((column) => sql`${sql.id(column)} is null`),
          sql` and `,
        )})`.execute(db);
    forgotten += Number(result.numAffectedRows ?? 0);
  }
  return forgotten;
}
