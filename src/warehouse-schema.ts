import type { Kysely } from 'kysely';
import { INVOICE_TABLES } from './streams/invoices/tables.js';
import { LEASE_TABLES } from './streams/leases/tables.js';
import { SYNC_TABLES } from './sync/tables.js';
import { connect as connectTo, type ConnectOptions } from './warehouse/db.js';
import { migrateToLatest as migrateWithComments, type MigrationOutcome } from './warehouse/migrate.js';
import type { DatabaseOf } from './warehouse/schema.js';

/**
 * The warehouse's tables, assembled from their declarations: each stream's (in its folder,
 * parent table first) and the sync's bookkeeping. A new stream adds its table list here.
 */
export const STREAM_TABLES = {
  leases: LEASE_TABLES,
  invoices: INVOICE_TABLES,
} as const;

export const SOURCE_TABLES = Object.values(STREAM_TABLES).flat() as (typeof STREAM_TABLES)[keyof typeof STREAM_TABLES][number][];
export const WAREHOUSE_TABLES = [...SOURCE_TABLES, ...SYNC_TABLES];

/** Names of the tables that hold source data (as opposed to the sync's bookkeeping). */
export const SOURCE_TABLE_NAMES = SOURCE_TABLES.map((table) => table.name);

/** The warehouse as Kysely sees it, derived from the declarations. */
export type Warehouse = DatabaseOf<typeof WAREHOUSE_TABLES>;
export type Db = Kysely<Warehouse>;

/** Opens a pooled connection to the warehouse. Close it with `db.destroy()`. */
export function connect(url: string, options: ConnectOptions = {}): Db {
  return connectTo<Warehouse>(url, options);
}

/** Applies pending migrations, then writes every table's and column's comment from the declarations. */
export function migrateToLatest(db: Db): Promise<MigrationOutcome> {
  return migrateWithComments(db, WAREHOUSE_TABLES);
}
