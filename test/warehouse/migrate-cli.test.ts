import { readdirSync, writeFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { creationOrder } from '../../src/reporting/apply-definitions.js';
import { REPORTING_VIEWS } from '../../src/reporting/views.js';
import { MIGRATIONS_FOLDER } from '../../src/warehouse/migrate.js';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// `propsync migrate` as an operator runs it, against a fresh database of this file's own.
vi.setConfig({ testTimeout: 180_000 });

const migrationNames = readdirSync(MIGRATIONS_FOLDER)
  .filter((name) => /^\d{4}_.+\.ts$/.test(name))
  .map((name) => name.replace(/\.ts$/, ''))
  .sort();

let database: TestDatabase;
const folder = scratchFolder();

beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});

afterAll(async () => {
  folder.remove();
  await database?.drop();
});

async function tableCount(): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from information_schema.tables where table_schema = current_schema()`.execute(
    database.db,
  );
  return rows[0].n;
}

describe('propsync migrate', () => {
  it('applies every migration on an empty database, makes every reporting view, names each, and exits 0', async () => {
    expect(await tableCount()).toBe(0);
    // Only the database is needed: migrate never calls the source, so no API settings are set.
    const result = await runPropsync(['migrate'], { env: { DATABASE_URL: database.url } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        ...migrationNames.map((name) => `applied ${name}\n`),
        ...creationOrder(REPORTING_VIEWS).map((view) => `created reporting view ${view.name}\n`),
      ].join(''),
    );
    const tables = await database.db.introspection.getTables();
    expect(tables.map((table) => table.name)).toEqual(
      expect.arrayContaining([
        'leases',
        'ar_transactions',
        'invoices',
        'voided_payments',
        'sync_runs',
        'quarantine',
      ]),
    );
  });

  it('says so and changes nothing when run again, reading the database from --config', async () => {
    const before = await tableCount();
    const config = `${folder.dir}/propsync.yaml`;
    writeFileSync(config, `database:\n  url: ${database.url}\n`);
    const result = await runPropsync(['--config', config, 'migrate']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('warehouse is up to date; no migrations to apply\n');
    expect(await tableCount()).toBe(before);
  });

  it('exits non-zero and names the failure when the database does not answer, without its password', async () => {
    const unreachable = 'postgres://propsync:unreachable-pw-31@127.0.0.1:9/warehouse';
    const result = await runPropsync(['migrate'], { env: { DATABASE_URL: unreachable } });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^propsync: .*ECONNREFUSED/m);
    expect(result.stderr).not.toContain('unreachable-pw-31');
  });
});
