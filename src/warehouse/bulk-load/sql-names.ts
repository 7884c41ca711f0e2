import { escapeIdentifier } from 'pg';
import { sql, type RawBuilder } from 'kysely';
import type { SourceTable } from '../schema.js';

/** SQL fragments that name a table's columns. */

/** A column's name in a statement. */
export const ident = (name: string) => sql.ref(name);

/** Column definitions (`"name" type, ...`), as a table or a record set declares them. */
export function columnDefinitions(columns: readonly [string, string][]): string {
  return columns.map(([column, type]) => `${escapeIdentifier(column)} ${type}`).join(', ');
}

/** `alias`'s key columns equal to those of the table's row. */
export function sameKey(spec: SourceTable, alias: string): RawBuilder<unknown> {
  return sql.join(
    spec.key.map((column) => sql`${sql.ref(`${alias}.${column}`)} = ${sql.raw(spec.name)}.${ident(column)}`),
    sql` and `,
  );
}
