import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { acrossVersions, renderSchema, SCHEMA_SNAPSHOT_PATH } from '../support/schema-snapshot.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe('schema snapshot', () => {
  it(`${SCHEMA_SNAPSHOT_PATH} is the schema a migrated warehouse has (npm run schema:snapshot writes it)`, async () => {
    const path = resolve(dirname(fileURLToPath(import.meta.url)), '../..', SCHEMA_SNAPSHOT_PATH);
    const committed = readFileSync(path, 'utf8');
    const rendered = await renderSchema(database.db);
    // Exactly, on the server's major version it was written on (15); else all but what only the version changes.
    if (rendered.match(/^-- PostgreSQL \d+$/m)?.[0] === committed.match(/^-- PostgreSQL \d+$/m)?.[0])
      expect(rendered).toBe(committed);
    else expect(acrossVersions(rendered)).toBe(acrossVersions(committed));
  });
});
