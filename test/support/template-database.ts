import { escapeIdentifier } from 'pg';
import type { Warehouse } from '../../src/catalog/tables.js';
import { migrateWarehouse } from '../../src/app/migrate-warehouse.js';
import { connect } from '../../src/warehouse/db.js';
import { dropDatabase, ensureDatabase, onAdmin, withDatabase } from '../../src/warehouse/databases.js';

/** The name under which the template is migrated, renamed to `template` once whole. */
export const building = (template: string): string => `${template}_building`;

/** This process's wait for the template (a test file asks once, however many databases it makes). */
let ready: Promise<string> | undefined;

/**
 * The run's migrated template database, made once for the whole run by the first test file
 * that asks (under an advisory lock, so that the other files wait for it) and copied by
 * `CREATE DATABASE ... TEMPLATE` for every file after it: a copy takes a fraction of the
 * migrations' time. It is migrated under another name and renamed once whole, so a file killed
 * halfway leaves no template that looks ready.
 */
export function migratedTemplate(adminUrl: string, template: string): Promise<string> {
  ready ??= onAdmin(adminUrl, async (client) => {
    await client.query('select pg_advisory_lock(hashtext($1))', [template]);
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [template]);
    if (rowCount) return template;
    const name = building(template);
    await dropDatabase(adminUrl, name);
    await ensureDatabase(adminUrl, name);
    const db = connect<Warehouse>(withDatabase(adminUrl, name), {
      maxConnections: 2,
      applicationName: 'propsync-test-template',
    });
    try {
      await migrateWarehouse(db);
    } finally {
      await db.destroy();
    }
    await client.query(`alter database ${escapeIdentifier(name)} rename to ${escapeIdentifier(template)}`);
    return template;
  });
  // A failed attempt is not kept: the next database asked for tries again.
  ready.catch(() => (ready = undefined));
  return ready;
}
