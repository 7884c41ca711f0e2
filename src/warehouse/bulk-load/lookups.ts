import { sql, type RawBuilder } from 'kysely';
import { prepared } from '../prepared.js';
import {
  ACCOUNT_COLUMN,
  type AnyDatabase,
  SOURCE_HASH_COLUMN,
  SOURCE_TEXT_HASH_COLUMN,
  type SourceTable,
} from '../schema.js';
import { ident } from './sql-names.js';

/** What the warehouse already holds of a page's parent keys and record texts. */

/**
 * The rows `row` reads for each of `values` (an array parameter), key by key: each key's lookup
 * is a subquery Postgres may not merge into the join (`offset 0`), so that it reads the index
 * that holds account and key. Merged, the planner weighs one read of the account's rows against
 * the keys' lookups, and where its statistics take the account's rows for few (a table never
 * measured, an account new to it) it reads them all, for every page of a load that makes them many.
 */
function eachKey<Row>(
  values: RawBuilder<unknown>,
  row: (value: RawBuilder<unknown>) => RawBuilder<unknown>,
): RawBuilder<Row> {
  return prepared(
    sql<Row>`select t.* from unnest(${values}) as k(v) cross join lateral (${row(sql.ref('k.v'))} offset 0) as t`,
  );
}

/** What the warehouse holds of some parent keys. */
export interface StoredParents {
  /** The digest stored with each key whose row is not marked deleted. */
  digests: Map<number, string>;
  /** Every key that has a row, deleted or not. */
  present: Set<number>;
}

/** What the warehouse holds of the given parent keys: their rows' digests, and which have a row at all. */
export async function storedParents(
  db: AnyDatabase,
  parent: SourceTable,
  keys: readonly number[],
  account: string,
): Promise<StoredParents> {
  const stored: StoredParents = { digests: new Map(), present: new Set() };
  if (keys.length === 0) return stored;
  const key = ident(parent.key[0]);
  const { rows } = await eachKey<{ key: number; digest: string | null; live: boolean }>(
    sql`${keys as number[]}::bigint[]`,
    (id) => sql`select ${key} as key, ${ident(SOURCE_HASH_COLUMN)} as digest, deleted_at is null as live
      from ${sql.table(parent.name)}
      where ${ident(ACCOUNT_COLUMN)} = ${account} and ${key} = ${id}`,
  ).execute(db);
  for (const row of rows) {
    stored.present.add(Number(row.key));
    if (row.live && row.digest !== null) stored.digests.set(Number(row.key), row.digest);
  }
  return stored;
}

/**
 * The keys (as text) of the live parent rows last loaded from exactly these record texts, by
 * the text's digest (`source_text_hash`, indexed).
 */
export async function storedTextDigests(
  db: AnyDatabase,
  parent: SourceTable,
  digests: readonly string[],
  account: string,
): Promise<Map<string, string>> {
  if (digests.length === 0) return new Map();
  const { rows } = await eachKey<{ key: string; digest: string }>(
    sql`${digests as string[]}::text[]`,
    (digest) => sql`select ${ident(parent.key[0])}::text as key, ${ident(SOURCE_TEXT_HASH_COLUMN)} as digest
      from ${sql.table(parent.name)}
      where ${ident(ACCOUNT_COLUMN)} = ${account} and ${ident(SOURCE_TEXT_HASH_COLUMN)} = ${digest}
        and deleted_at is null`,
  ).execute(db);
  return new Map(rows.map((row) => [row.digest, row.key]));
}
