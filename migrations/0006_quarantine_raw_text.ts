import { sql, type Kysely } from 'kysely';

/**
 * The quarantine keeps whatever the source sent: `jsonb` cannot hold a NUL character (U+0000)
 * or a lone UTF-16 surrogate, so a record holding one is stored in `raw` with those characters
 * replaced by U+FFFD and, in full, in `raw_text` as JSON text (where they are escapes such as
 * `\u0000`). `raw_text` is null when `raw` is the record as sent.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table quarantine add column raw_text text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table quarantine drop column raw_text`.execute(db);
}
