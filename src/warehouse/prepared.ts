import { createHash } from 'node:crypto';
import { sql, type CompiledQuery, type RawBuilder } from 'kysely';

/**
 * Statements Postgres keeps prepared on each connection: parsed once, and planned once a few
 * runs have shown its generic plan as good as a custom one (`plan_cache_mode = auto`). For
 * statements a load sends again and again whose text depends only on the tables (merges, lookups,
 * the call gate): their parse and plan were half of Postgres's time in a nightly run. Why:
 * docs/sync.md#statements-kept-prepared
 */

/** The comment that starts a statement to keep prepared; nothing else the product sends starts so. */
const MARK = '/* propsync:prepared */ ';

/**
 * `query` kept prepared. Its text must be the same for every execution of the same kind (values as
 * parameters, never inlined): each distinct text is one statement on each connection for its life.
 */
export function prepared<T>(query: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`${sql.raw(MARK)}${query}`;
}

/** A statement's text as pg's named statement (`{name, text}`) when it is marked to be kept prepared. */
export function asPrepared(query: CompiledQuery): CompiledQuery {
  if (typeof query.sql !== 'string' || !query.sql.startsWith(MARK)) return query;
  const name = `propsync_${createHash('sha1').update(query.sql).digest('hex').slice(0, 24)}`;
  // pg's client.query takes a query config where Kysely passes the text (it passes a COPY's stream so too).
  return { ...query, sql: { name, text: query.sql } as unknown as string };
}
