import { sql } from 'kysely';
import { redactUrl } from '../log/redact.js';
import type { Db, Warehouse } from '../catalog/tables.js';
import { connect, type ConnectOptions } from '../warehouse/db.js';
import { pendingMigrations } from '../warehouse/migrate.js';
import { EXIT, ExitError } from './exit-codes.js';

/**
 * Opens the warehouse and checks that it answers. A warehouse that cannot be reached is a
 * configuration problem for the operator (exit 2), reported without its password.
 */
export async function openWarehouse(url: string, options: ConnectOptions = {}): Promise<Db> {
  const db = connect<Warehouse>(url, { applicationName: 'propsync', ...options });
  try {
    await sql`select 1`.execute(db);
    return db;
  } catch (error) {
    await db.destroy().catch(() => {});
    throw new ExitError(`cannot reach the warehouse at ${redactUrl(url)}: ${(error as Error).message}; check DATABASE_URL (or database.url) and that Postgres is running`, EXIT.usage);
  }
}

/** Fails with exit 2 and "run propsync migrate" unless every migration has been applied. */
async function requireMigrated(db: Db): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length) {
    throw new ExitError(`the warehouse is not migrated (pending: ${pending.join(', ')}); run \`propsync migrate\` first`, EXIT.usage);
  }
}

/** Opens the warehouse, checks that it is migrated, and closes it again if not. */
export async function openMigratedWarehouse(url: string, options: ConnectOptions = {}): Promise<Db> {
  const db = await openWarehouse(url, options);
  try {
    await requireMigrated(db);
    return db;
  } catch (error) {
    await db.destroy();
    throw error;
  }
}
