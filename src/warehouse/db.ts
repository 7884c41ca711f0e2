import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

// Column types as the warehouse wants them in TypeScript: bigint ids as numbers (every id of the
// source fits in 2^53), numeric money as exact strings, dates as 'YYYY-MM-DD' strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => value);
/** OID of `bigint[]`, which pg's builtins do not name. */
const INT8_ARRAY = 1016 as Parameters<typeof pg.types.getTypeParser>[0];
const parseInt8Array = pg.types.getTypeParser(INT8_ARRAY) as (value: string) => (string | null)[];
pg.types.setTypeParser(INT8_ARRAY, (value: string) => parseInt8Array(value).map((item) => (item === null ? null : Number(item))));

export interface ConnectOptions {
  /** Connections in the pool; the sync uses one per concurrent work unit plus one. */
  maxConnections?: number;
  applicationName?: string;
}

/** Opens a pooled connection to a database typed `DB`. Close it with `db.destroy()`. */
export function connect<DB>(url: string, options: ConnectOptions = {}): Kysely<DB> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    application_name: options.applicationName ?? 'propsync',
  });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}
