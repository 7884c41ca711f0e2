import { sql, type Kysely } from 'kysely';

/**
 * Each stream's parent table keeps, beside the digest of the record's tree, the digest of the
 * record's text as it came (XML replies), indexed: a record whose text comes back the same is
 * passed over without being decoded.
 */
const PARENTS = ['leases', 'invoices', 'properties'];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of PARENTS) {
    await sql`alter table ${sql.table(table)} add column source_text_hash text`.execute(db);
    await sql`create index ${sql.id(`${table}_source_text_hash_idx`)} on ${sql.table(table)} (source_text_hash)`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of PARENTS) {
    await sql`drop index if exists ${sql.id(`${table}_source_text_hash_idx`)}`.execute(db);
    await sql`alter table ${sql.table(table)} drop column source_text_hash`.execute(db);
  }
}
