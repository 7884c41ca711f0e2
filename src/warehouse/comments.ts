import { sql, type Kysely } from 'kysely';
import { escapeIdentifier, escapeLiteral } from 'pg';
import type { Table } from './schema.js';
import { messageOf } from '../log/errors.js';

/** Comments of the migrator's own tables, which no declaration describes. */
const MIGRATOR_COMMENTS: Record<string, { meaning: string; columns: Record<string, string> }> = {
  kysely_migration: {
    meaning: 'Migrations applied to this database (kept by the Kysely migrator).',
    columns: {
      name: 'Name of the migration file, without extension.',
      timestamp: 'When it was applied (ISO text).',
    },
  },
  kysely_migration_lock: {
    meaning: 'The lock that keeps two migrators from running at once (kept by the Kysely migrator).',
    columns: { id: "The lock's id.", is_locked: '1 while a migration runs.' },
  },
};

/**
 * `COMMENT ON TABLE/COLUMN` statements giving every declared table and column its meaning, so
 * an analyst browsing the warehouse (psql `\d+`, a BI tool) reads what the docs say.
 */
function commentStatements(tables: readonly Table[]): string[] {
  const described = [
    ...tables.map((table) => ({
      name: table.name,
      meaning: table.meaning,
      columns: Object.entries(table.columns).map(([name, column]) => [name, column.meaning] as const),
    })),
    ...Object.entries(MIGRATOR_COMMENTS).map(([name, table]) => ({
      name,
      meaning: table.meaning,
      columns: Object.entries(table.columns),
    })),
  ];
  return described.flatMap((table) => [
    `comment on table ${escapeIdentifier(table.name)} is ${escapeLiteral(table.meaning)}`,
    ...table.columns.map(
      ([column, meaning]) =>
        `comment on column ${escapeIdentifier(table.name)}.${escapeIdentifier(column)} is ${escapeLiteral(meaning)}`,
    ),
  ]);
}

/** Writes the comments (idempotent: a comment is replaced), in one transaction and one round trip. */
export async function applyComments<DB>(db: Kysely<DB>, tables: readonly Table[]): Promise<void> {
  try {
    await db.transaction().execute(async (trx) => {
      await sql.raw(commentStatements(tables).join(';\n')).execute(trx);
    });
  } catch (error) {
    throw new Error(
      `the table declarations do not match the migrated schema (${messageOf(error)}); ` +
        `a declaration names a table or column that no migration creates`,
      { cause: error },
    );
  }
}
