import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { Db, Warehouse } from '../../src/catalog/tables.js';
import { migrateWarehouse } from '../../src/app/migrate-warehouse.js';
import { connect } from '../../src/warehouse/db.js';
import { dropDatabase, ensureDatabase, withDatabase } from '../../src/warehouse/databases.js';

/** A database of one test file's own, on the run's Postgres server. */
export interface TestDatabase {
  name: string;
  url: string;
  db: Db;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

/**
 * Creates a fresh, empty database for the calling test file (files run in parallel, so none
 * shares one), migrated (its reporting views made from their definitions) unless `migrate: false`.
 */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `propsync_test_${randomBytes(5).toString('hex')}`;
  await ensureDatabase(adminUrl, name);
  const url = withDatabase(adminUrl, name);
  const db = connect<Warehouse>(url, { maxConnections: 8, applicationName: 'propsync-test' });
  if (options.migrate !== false) await migrateWarehouse(db);
  return {
    name,
    url,
    db,
    async drop() {
      await db.destroy();
      await dropDatabase(adminUrl, name);
    },
  };
}
