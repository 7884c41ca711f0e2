import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { scramVerifier } from '../../src/reporting/reader-role.js';
import { REPORTING_VIEWS } from '../../src/reporting/views.js';
import { personalColumnsOf, publicColumnsOf } from '../../src/reporting/personal-columns.js';
import { applyReportingDefinitions } from '../../src/reporting/apply-definitions.js';
import { BASE_TABLE_NAMES as SOURCE_TABLES } from '../../src/catalog/tables.js';
import { runPropsync } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const suffix = randomBytes(4).toString('hex');
const reader = `propsync_test_reader_${suffix}`;
const analyst = `propsync_test_analyst_${suffix}`;
const refused = `propsync_test_refused_${suffix}`;
const plain = `propsync_test_plain_${suffix}`;
const trusted = `propsync_test_trusted_${suffix}`;
const password = `pw-${randomBytes(8).toString('hex')}`;

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
  // Roles belong to the server, not the database: drop them once the database (and its grants) is gone.
  const admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await admin.connect();
  try {
    for (const role of [reader, analyst, refused, plain, trusted])
      await admin.query(`drop role if exists ${role}`);
  } finally {
    await admin.end();
  }
});

/** A connection to the test database as `user` (with the reader's password). */
async function connectAs(user: string): Promise<pg.Client> {
  const url = new URL(database.url);
  url.username = user;
  url.password = password;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return client;
}

/** The SQLSTATE of a statement's failure, or 'ok'. */
async function outcome(client: pg.Client, statement: string): Promise<string> {
  try {
    await client.query(statement);
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

const grantReader = (args: string[], env: Record<string, string> = {}) =>
  runPropsync(['grant-reader', ...args], { env: { DATABASE_URL: database.url, ...env } });

describe('propsync grant-reader', () => {
  it('creates a login role from PROPSYNC_READER_PASSWORD without printing it, and is idempotent', async () => {
    const first = await grantReader([reader, '--login'], { PROPSYNC_READER_PASSWORD: password });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`created role ${reader} (login`);
    expect(first.stdout).toContain(`may read schema reporting: ${REPORTING_VIEWS.length} views`);
    expect(first.stdout).toContain(`${reader} sees every account`);

    const again = await grantReader([reader, '--login'], { PROPSYNC_READER_PASSWORD: password });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`role ${reader} exists`);
    for (const output of [first.stdout, first.stderr, again.stdout, again.stderr])
      expect(output).not.toContain(password);

    // The server holds a SCRAM verifier of that password, never the password itself.
    const { rows } = await sql<{
      rolcanlogin: boolean;
      rolpassword: string;
    }>`select rolcanlogin, rolpassword from pg_authid where rolname = ${reader}`.execute(database.db);
    expect(rows[0].rolcanlogin).toBe(true);
    const [, iterations, salt] = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(rows[0].rolpassword)!;
    expect(rows[0].rolpassword).toBe(
      scramVerifier(password, Buffer.from(salt, 'base64'), Number(iterations)),
    );
  });

  it('the role reads every reporting view and nothing it was not granted', async () => {
    const client = await connectAs(reader);
    try {
      for (const view of REPORTING_VIEWS)
        expect([
          view.name,
          await outcome(
            client,
            `select ${publicColumnsOf(view).join(', ')} from reporting.${view.name} limit 1`,
          ),
        ]).toEqual([view.name, 'ok']);
      expect(await outcome(client, 'select reporting.today()')).toBe('ok');
      for (const table of [...SOURCE_TABLES, 'sync_runs', 'quarantine', 'kysely_migration']) {
        expect([table, await outcome(client, `select * from public.${table} limit 1`)]).toEqual([
          table,
          '42501',
        ]);
      }
      // What the views read from and the readers' accounts are out of reach.
      for (const statement of [
        'select * from reporting_private.properties',
        'select * from reporting_private.rent_roll',
        'select * from reporting_private.reader_accounts',
        "select reporting_private.visible_accounts('postgres')",
      ]) {
        expect([statement, await outcome(client, statement)]).toEqual([statement, '42501']);
      }
      expect(await outcome(client, `update reporting.settings set time_zone = 'UTC'`)).toBe('42501');
      expect(await outcome(client, 'create view reporting.mine as select 1 as one')).toBe('42501');

      // A view that a later migration adds (as the schema's owner) is readable at once.
      await sql`create view reporting.added_later as select 1 as one`.execute(database.db);
      expect(await outcome(client, 'select * from reporting.added_later')).toBe('ok');
      await sql`drop view reporting.added_later`.execute(database.db);
    } finally {
      await client.end();
    }
  });

  it('--base-tables also grants the source tables of public, not the bookkeeping', async () => {
    const result = await grantReader([analyst, '--base-tables']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`created role ${analyst} (nologin)`);
    expect(result.stdout).toContain(`may read the ${SOURCE_TABLES.length} source tables`);
    expect(result.stdout).toContain(`grant ${analyst} to alice;`);
    // The test's own connection (the server's admin, whatever its password), acting as the role.
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query(`set role ${analyst}`);
      expect(await outcome(admin, 'select * from public.leases limit 1')).toBe('ok');
      expect(await outcome(admin, 'select lease_id from reporting.rent_roll limit 1')).toBe('ok');
      expect(await outcome(admin, 'select * from public.sync_runs limit 1')).toBe('42501');
    } finally {
      await admin.end();
    }
  });

  it('a connecting user that may not create roles gets a clear error and exit 2', async () => {
    const url = new URL(database.url);
    url.username = reader;
    url.password = password;
    const result = await runPropsync(['grant-reader', refused], { env: { DATABASE_URL: url.toString() } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`the connecting user "${reader}" may not create roles`);
    expect(result.stderr).not.toContain(password);
  });

  it('refuses a bad role name and --login without a password, with exit 2', async () => {
    expect((await grantReader(['pg_reader'])).code).toBe(2);
    const noPassword = await grantReader([refused, '--login']);
    expect(noPassword.code).toBe(2);
    expect(noPassword.stderr).toContain('PROPSYNC_READER_PASSWORD');
  });
});

describe('propsync grant-reader: personal columns (issue 40)', () => {
  /** The outcome of selecting `columns` of a reporting view as `role`. */
  async function selectAs(role: string, view: string, columns: readonly string[]): Promise<string> {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query(`set role ${role}`);
      return await outcome(admin, `select ${columns.join(', ')} from reporting.${view} limit 1`);
    } finally {
      await admin.end();
    }
  }
  const personalViews = REPORTING_VIEWS.filter((view) => personalColumnsOf(view).length);

  it("declares the residents' names in the views as personal", () => {
    expect(personalColumnsOf(REPORTING_VIEWS.find((view) => view.name === 'rent_roll')!)).toEqual([
      'primary_resident',
    ]);
    expect(personalViews.map((view) => view.name)).toEqual(
      expect.arrayContaining(['rent_roll', 'ar_aging', 'ap_open_invoices']),
    );
  });

  it('without --personal a reader reads every column but the personal ones; with it, those too', async () => {
    const withheld = await grantReader([plain, '--base-tables']);
    expect(withheld.code, withheld.stderr).toBe(0);
    expect(withheld.stdout).toMatch(
      /may not read the columns holding personal data: .*rent_roll\.primary_resident/,
    );
    for (const view of personalViews) {
      expect([view.name, await selectAs(plain, view.name, publicColumnsOf(view))]).toEqual([view.name, 'ok']);
      for (const column of personalColumnsOf(view))
        expect([view.name, column, await selectAs(plain, view.name, [column])]).toEqual([
          view.name,
          column,
          '42501',
        ]);
      expect(await selectAs(plain, view.name, ['*'])).toBe('42501');
    }
    // The base tables too: lease_customers without its names and e-mail address.
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query(`set role ${plain}`);
      expect(await outcome(admin, 'select lease_id, customer_id from public.lease_customers')).toBe('ok');
      expect(await outcome(admin, 'select email_address from public.lease_customers')).toBe('42501');
      expect(await outcome(admin, 'select lease_id from public.leases')).toBe('ok');
    } finally {
      await admin.end();
    }

    const granted = await grantReader([trusted, '--personal']);
    expect(granted.code, granted.stderr).toBe(0);
    expect(granted.stdout).toContain(`${trusted} may read the columns holding personal data`);
    for (const view of personalViews) expect(await selectAs(trusted, view.name, ['*'])).toBe('ok');

    // Granted again without --personal, the columns are taken back; with it, given again.
    expect((await grantReader([trusted])).code).toBe(0);
    expect(await selectAs(trusted, 'rent_roll', ['primary_resident'])).toBe('42501');
    expect((await grantReader([trusted, '--personal'])).code).toBe(0);
    expect(await selectAs(trusted, 'rent_roll', ['primary_resident'])).toBe('ok');
  });

  it('a view made again by migrate keeps its personal columns from readers without --personal', async () => {
    const changed = REPORTING_VIEWS.map((view) =>
      view.name === 'rent_roll' ? { ...view, query: `${view.query}\n` } : view,
    );
    const outcome = await applyReportingDefinitions(database.db, changed);
    expect(outcome.replaced).toContain('rent_roll');
    expect(await selectAs(plain, 'rent_roll', ['primary_resident'])).toBe('42501');
    expect(await selectAs(plain, 'rent_roll', ['lease_id', 'unit_number'])).toBe('ok');
    expect(await selectAs(trusted, 'rent_roll', ['primary_resident'])).toBe('ok');
    await applyReportingDefinitions(database.db);
    expect(await selectAs(plain, 'rent_roll', ['primary_resident'])).toBe('42501');
  });
});
