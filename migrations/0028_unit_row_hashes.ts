import { sql, type Kysely } from 'kysely';

/**
 * The units stream's child rows carry their own digest (`row_hash`): a property's inventory
 * record changes every night (its ready spaces' available date), while most of its units and
 * spaces do not, and those are no longer sent and merged again. Null until a run writes it. The
 * SQL here is frozen.
 */
const TABLES = ['units', 'unit_spaces'];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await sql`alter table ${sql.table(table)} add column row_hash text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await sql`alter table ${sql.table(table)} drop column row_hash`.execute(db);
}
