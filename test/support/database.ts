import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { Db, Warehouse } from '../../src/catalog/tables.js';
import { migrateWarehouse } from '../../src/app/migrate-warehouse.js';
import { connect } from '../../src/warehouse/db.js';
import { copyDatabase, dropDatabase, ensureDatabase, withDatabase } from '../../src/warehouse/databases.js';
import { migratedTemplate } from './template-database.js';

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
  // Outside vitest (a script such as `npm run docs:console`), the server is TEST_DATABASE_URL's.
  const adminUrl = process.env.VITEST ? inject('adminDatabaseUrl') : process.env.TEST_DATABASE_URL;
  if (!adminUrl)
    throw new Error('set TEST_DATABASE_URL to a Postgres server this script may create databases on');
  const name = `propsync_test_${randomBytes(5).toString('hex')}`;
  const migrate = options.migrate !== false;
  // Under vitest, a migrated database is a copy of the run's migrated template.
  const template =
    migrate && process.env.VITEST ? await migratedTemplate(adminUrl, inject('migratedTemplate')) : undefined;
  if (template) await copyDatabase(adminUrl, template, name);
  else await ensureDatabase(adminUrl, name);
  const url = withDatabase(adminUrl, name);
  const db = connect<Warehouse>(url, { maxConnections: 8, applicationName: 'propsync-test' });
  if (migrate && !template) await migrateWarehouse(db);
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
