import { sql } from 'kysely';
import type { DatabaseConfig } from '../config/schema.js';
import { redactUrl } from '../log/redact.js';
import type { Db, Warehouse } from '../catalog/tables.js';
import { connect, type ConnectOptions, type SessionTimeouts } from '../warehouse/db.js';
import { pendingMigrations } from '../warehouse/migrate.js';
import { tlsAdvice } from '../warehouse/tls.js';
import { EXIT, ExitError } from './exit-codes.js';
import { messageOf } from '../log/errors.js';

/** The limits of every session, from `database:`. */
export function sessionTimeouts(database: DatabaseConfig): SessionTimeouts {
  const { statementTimeoutMs, lockTimeoutMs, idleInTransactionTimeoutMs } = database;
  return { statementTimeoutMs, lockTimeoutMs, idleInTransactionTimeoutMs };
}

/** Pool options besides the session limits, which come from `database:`. */
export type WarehouseOptions = Omit<ConnectOptions, 'timeouts'>;

/**
 * Opens the warehouse with the configured session limits and checks that it answers. A
 * warehouse that cannot be reached is a configuration problem for the operator (exit 2),
 * reported without its password.
 */
export async function openWarehouse(database: DatabaseConfig, options: WarehouseOptions = {}): Promise<Db> {
  const { url } = database;
  const db = connect<Warehouse>(url, {
    applicationName: 'propsync',
    ...options,
    timeouts: sessionTimeouts(database),
    preparedStatements: database.preparedStatements,
  });
  try {
    await sql`select 1`.execute(db);
    return db;
  } catch (error) {
    await db.destroy().catch(() => {});
    throw new ExitError(unreachable(url, error), EXIT.usage);
  }
}

/** Why the warehouse cannot be reached and what to set: a TLS problem's own advice, else the URL and the server. */
export function unreachable(url: string, error: unknown): string {
  const advice = tlsAdvice(error, url) ?? 'check DATABASE_URL (or database.url) and that Postgres is running';
  return `cannot reach the warehouse at ${redactUrl(url)}: ${messageOf(error)}; ${advice}`;
}

/** Fails with exit 2 and "run propsync migrate" unless every migration has been applied. */
async function requireMigrated(db: Db): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length) {
    throw new ExitError(
      `the warehouse is not migrated (pending: ${pending.join(', ')}); run \`propsync migrate\` first`,
      EXIT.usage,
    );
  }
}

/** Opens the warehouse, checks that it is migrated, and closes it again if not. */
export async function openMigratedWarehouse(
  database: DatabaseConfig,
  options: WarehouseOptions = {},
): Promise<Db> {
  const db = await openWarehouse(database, options);
  try {
    await requireMigrated(db);
    return db;
  } catch (error) {
    await db.destroy();
    throw error;
  }
}
