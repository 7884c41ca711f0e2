// Writes docs/schema.sql, the warehouse's whole schema after `propsync migrate`: `npm run schema:snapshot`.
// It migrates a scratch database on the server of TEST_DATABASE_URL (else DATABASE_URL), a user
// that may create databases, and drops it after.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrateWarehouse } from '../src/app/migrate-warehouse.js';
import { connect } from '../src/warehouse/db.js';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/warehouse/databases.js';
import { renderSchema, SCHEMA_SNAPSHOT_PATH } from '../test/support/schema-snapshot.js';

const adminUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
if (!adminUrl) {
  process.stderr.write(
    'set TEST_DATABASE_URL (or DATABASE_URL) to a Postgres server where a database may be made\n',
  );
  process.exit(2);
}
const name = `propsync_schema_${randomBytes(4).toString('hex')}`;
await ensureDatabase(adminUrl, name);
const db = connect(withDatabase(adminUrl, name), { maxConnections: 1 });
try {
  await migrateWarehouse(db);
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  writeFileSync(resolve(root, SCHEMA_SNAPSHOT_PATH), await renderSchema(db));
  process.stdout.write(`wrote ${SCHEMA_SNAPSHOT_PATH}\n`);
} finally {
  await db.destroy();
  await dropDatabase(adminUrl, name);
}
