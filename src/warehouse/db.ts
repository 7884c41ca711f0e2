import { Kysely, PostgresDialect, type CompiledQuery, type DatabaseConnection } from 'kysely';
import pg from 'pg';
import { explainWait } from './lock-wait.js';
import { asPrepared } from './prepared.js';

// Column types as the warehouse wants them in TypeScript: bigint ids as numbers (every id of the
// source fits in 2^53), numeric money as exact strings, dates as 'YYYY-MM-DD' strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => value);
/** OID of `bigint[]`, which pg's builtins do not name. */
const INT8_ARRAY = 1016 as Parameters<typeof pg.types.getTypeParser>[0];
const parseInt8Array = pg.types.getTypeParser(INT8_ARRAY) as (value: string) => (string | null)[];
pg.types.setTypeParser(INT8_ARRAY, (value: string) =>
  parseInt8Array(value).map((item) => (item === null ? null : Number(item))),
);

/** Limits of every session, so that no statement, lock wait or open transaction hangs for ever. */
export interface SessionTimeouts {
  /** `statement_timeout`: longest a statement may run. */
  statementTimeoutMs: number;
  /** `lock_timeout`: longest a statement may wait for a lock; the error then names the table and its holder. */
  lockTimeoutMs: number;
  /** `idle_in_transaction_session_timeout`: longest a transaction may sit idle before the server ends the session. */
  idleInTransactionTimeoutMs: number;
}

/** How long opening a connection may take before it fails (and counts as a lost one). */
const CONNECT_TIMEOUT_MS = 10_000;

export interface ConnectOptions {
  /** Connections in the pool; the sync uses one per concurrent work unit plus one. */
  maxConnections?: number;
  applicationName?: string;
  /** Session limits; without them, the server's defaults (often none). */
  timeouts?: SessionTimeouts;
  /** Told of every statement sent, each round trip's (a COPY's included): what counts them. */
  onStatement?: (text: string) => void;
  /** Statements marked `prepared` are kept prepared (default); false: every statement is sent unnamed. */
  preparedStatements?: boolean;
}

/**
 * The pg settings of a session: its application name and limits, TCP keepalive (a connection
 * that died in silence is noticed) and a connect timeout. Also for a lone `pg.Client`.
 */
export function sessionConfig(
  url: string,
  applicationName: string,
  timeouts: SessionTimeouts | undefined,
): pg.ClientConfig {
  return {
    connectionString: url,
    application_name: applicationName,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(timeouts
      ? {
          statement_timeout: timeouts.statementTimeoutMs,
          lock_timeout: timeouts.lockTimeoutMs,
          idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
        }
      : {}),
  };
}

/**
 * Opens a pooled connection to a database typed `DB`. Close it with `db.destroy()`. A lost
 * connection fails only the statement in flight (every client has an error listener, and the
 * pool drops a broken client); a lock wait that times out fails with the table and its holder.
 */
export function connect<DB>(url: string, options: ConnectOptions = {}): Kysely<DB> {
  const pool = new pg.Pool({
    ...sessionConfig(url, options.applicationName ?? 'propsync', options.timeouts),
    max: options.maxConnections ?? 10,
  });
  // pg-pool listens for errors of idle clients only: a client handed out that loses its server
  // would raise an unhandled 'error'. The statement in flight fails with the error anyway.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const limits = { lockTimeoutMs: options.timeouts?.lockTimeoutMs };
  const named = options.preparedStatements === false ? (query: CompiledQuery) => query : asPrepared;
  return new Kysely<DB>({
    dialect: new PostgresDialect({
      pool,
      // Kysely patches a connection's executeQuery for its logging the same way.
      onCreateConnection: async (connection: DatabaseConnection) => {
        const execute = connection.executeQuery.bind(connection);
        connection.executeQuery = (async (query: CompiledQuery) => {
          options.onStatement?.(typeof query.sql === 'string' ? query.sql : 'copy');
          try {
            return await execute(named(query));
          } catch (error) {
            throw await explainWait(url, error, limits);
          }
        }) as DatabaseConnection['executeQuery'];
      },
    }),
  });
}
