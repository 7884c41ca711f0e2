import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BASE_TABLE_NAMES, SOURCE_TABLE_NAMES, type Warehouse } from '../../src/catalog/tables.js';
import { refreshReporting } from '../../src/reporting/refresh.js';
import { REPORTING_VIEWS } from '../../src/reporting/views.js';
import { connect } from '../../src/warehouse/db.js';
import { runPropsync } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { FIXTURE_NOW, insertFixture, SOUTH } from './fixture.js';

const suffix = randomBytes(4).toString('hex');
/** Readers limited to north, to both accounts, and one never limited. */
const north = `propsync_test_north_${suffix}`;
const both = `propsync_test_both_${suffix}`;
const everyone = `propsync_test_all_${suffix}`;
/** A person who logs in and uses north's privileges; a role in north's and an unlimited reader's. */
const alice = `propsync_test_alice_${suffix}`;
const mixed = `propsync_test_mixed_${suffix}`;
const ROLES = [alice, mixed, north, both, everyone];
const password = `pw-${randomBytes(8).toString('hex')}`;

/** What only account south holds: its id, its name and the words its data is written with. */
const SOUTH_MARKERS = /south/i;

/** Tables that are not source data, given to the north reader by hand, as an administrator might. */
const BOOKKEEPING = [
  'accounts',
  'sync_runs',
  'sync_work_units',
  'sync_work_unit_seen',
  'sync_cursors',
  'quarantine',
];

let database: TestDatabase;

/**
 * Rows of both accounts in every table with an account_id: the fixture, the other source tables and the bookkeeping.
 */
async function insertBothAccounts(): Promise<void> {
  await insertFixture(database.db, 'north');
  await insertFixture(database.db, 'south', SOUTH);
  await sql`insert into accounts (account_id, name) values ('north', 'North Homes'), ('south', 'South Estates')`.execute(
    database.db,
  );
  for (const account of ['north', 'south']) {
    const label = account === 'south' ? 'South' : 'North';
    await sql`insert into properties (account_id, property_id, marketing_name, raw) values (${account}, 100, ${`${label} Maple Court`}, '{}')`.execute(
      database.db,
    );
    await sql`insert into lease_activities (account_id, lease_activity_id, lease_id, raw) values (${account}, 1, 1, ${JSON.stringify({ note: label })})`.execute(
      database.db,
    );
    await sql`insert into invoice_payments (account_id, invoice_id, payment_id, payee_name, raw) values (${account}, 1, 1, ${`${label} Payee`}, '{}')`.execute(
      database.db,
    );
    const { rows } = await sql<{
      run_id: number;
    }>`insert into sync_runs (account_id, kind, streams) values (${account}, 'sync', '{leases}') returning run_id`.execute(
      database.db,
    );
    const { rows: units } = await sql<{ work_unit_id: number }>`
      insert into sync_work_units (account_id, run_id, stream, kind, unit_key) values (${account}, ${rows[0].run_id}, 'leases', 'live', ${`${label} unit`}) returning work_unit_id`.execute(
      database.db,
    );
    await sql`insert into sync_work_unit_seen (account_id, work_unit_id, entity, key) values (${account}, ${units[0].work_unit_id}, 'lease', 1)`.execute(
      database.db,
    );
    await sql`insert into sync_cursors (account_id, stream, scope, cursor) values (${account}, 'leases', '100', ${`${label} cursor`})`.execute(
      database.db,
    );
    await sql`insert into quarantine (account_id, stream, entity, reason, raw) values (${account}, 'leases', 'lease', ${`${label} record`}, '{}')`.execute(
      database.db,
    );
  }
  await sql`analyze`.execute(database.db);
}

/**
 * A connection to the test database: the admin's, acting as `user` when given, or a login of `user` with the
 * test's password.
 */
async function connectAs(user?: string, login = false): Promise<pg.Client> {
  const url = new URL(database.url);
  if (user && login) {
    url.username = user;
    url.password = password;
  }
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  if (user && !login) await client.query(`set role ${user}`);
  return client;
}

/** Every relation (any schema but the catalogs) the session's user may select. */
async function selectable(client: pg.Client): Promise<{ relation: string; accountColumn: boolean }[]> {
  const { rows } = await client.query<{ relation: string; account_column: boolean }>(`
    select format('%I.%I', n.nspname, c.relname) as relation,
           exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'account_id' and not a.attisdropped) as account_column
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'v', 'm', 'p', 'f')
       and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
       and has_table_privilege(c.oid, 'select')
     order by 1`);
  return rows.map((row) => ({ relation: row.relation, accountColumn: row.account_column }));
}

/** Per relation: its rows by account, and how many of its rows mention south anywhere. */
async function census(
  client: pg.Client,
): Promise<Map<string, { accounts: Record<string, number>; southText: number }>> {
  const found = new Map<string, { accounts: Record<string, number>; southText: number }>();
  for (const { relation, accountColumn } of await selectable(client)) {
    const accounts: Record<string, number> = {};
    if (accountColumn) {
      const { rows } = await client.query<{ account_id: string; n: number }>(
        `select account_id, count(*)::int as n from ${relation} group by 1`,
      );
      for (const row of rows) accounts[row.account_id] = row.n;
    }
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from ${relation} t where t::text ~* $1`,
      [SOUTH_MARKERS.source],
    );
    found.set(relation, { accounts, southText: rows[0].n });
  }
  return found;
}

const grantReader = (args: string[]) =>
  runPropsync(['grant-reader', ...args], { env: { DATABASE_URL: database.url } });

beforeAll(async () => {
  database = await createTestDatabase();
  await insertBothAccounts();
  const session = connect<Warehouse>(database.url, { maxConnections: 1 });
  try {
    await sql`select set_config('reporting.now', ${FIXTURE_NOW}, false)`.execute(session);
    await refreshReporting(session, { timeZone: 'America/Denver' });
  } finally {
    await session.destroy();
  }
});
afterAll(async () => {
  await database?.drop();
  const admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await admin.connect();
  try {
    for (const role of ROLES) await admin.query(`drop role if exists ${role}`);
  } finally {
    await admin.end();
  }
});

describe('grant-reader --account: a reader of some accounts', () => {
  // --personal: every column readable, the personal ones included, so the census searches them too.
  it('limits a role to the accounts named, and says so', async () => {
    const result = await grantReader([north, '--account', 'north', '--base-tables', '--personal']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${north} sees the rows of account north only`);
    expect(
      (await grantReader([both, '--account', 'north,south', '--base-tables', '--personal'])).stdout,
    ).toContain(`${both} sees the rows of accounts north, south only`);
    expect((await grantReader([everyone, '--base-tables', '--personal'])).stdout).toContain(
      `${everyone} sees every account`,
    );
    // An account no run has synced yet is accepted, with a warning.
    const ahead = await grantReader([both, '--account', 'north,south,west', '--base-tables', '--personal']);
    expect(ahead.code).toBe(0);
    expect(ahead.stderr).toContain('no run has synced account west yet');

    // Bookkeeping granted by hand; a person who logs in with north's privileges; a role in north's and the
    // unlimited reader's.
    const admin = await connectAs();
    try {
      await admin.query(`grant select on ${BOOKKEEPING.join(', ')} to ${north}, ${everyone}`);
      await admin.query(`create role ${alice} login password '${password}'`);
      await admin.query(`grant ${north} to ${alice}`);
      await admin.query(`create role ${mixed} nologin`);
      await admin.query(`grant ${north}, ${everyone} to ${mixed}`);
    } finally {
      await admin.end();
    }
  });

  it("north's reader, and a person in its role, see no row of south anywhere they can select", async () => {
    for (const [who, login] of [
      [north, false],
      [alice, true],
      [mixed, false],
    ] as const) {
      const client = await connectAs(who, login);
      try {
        const seen = await census(client);
        const relations = [...seen.keys()];
        // Every reporting view, every source table and the bookkeeping granted: nothing else.
        expect(relations.sort(), who).toEqual(
          [
            ...REPORTING_VIEWS.map((view) => `reporting.${view.name}`),
            'reporting.settings',
            ...[...BASE_TABLE_NAMES, ...BOOKKEEPING].map((table) => `public.${table}`),
          ].sort(),
        );
        for (const [relation, { accounts, southText }] of seen) {
          expect([who, relation, southText], 'rows that mention south').toEqual([who, relation, 0]);
          expect(
            [who, relation, Object.keys(accounts).filter((account) => account !== 'north')],
            'rows of another account',
          ).toEqual([who, relation, []]);
          if (relation !== 'reporting.settings')
            expect(accounts.north, `${who}: rows of north in ${relation}`).toBeGreaterThan(0);
        }
        // Not through the planner's statistics either.
        const { rows } = await client.query(
          `select tablename, most_common_vals::text from pg_stats where schemaname = 'public' and tablename = 'leases'`,
        );
        expect(rows).toEqual([]);
      } finally {
        await client.end();
      }
    }
  });

  it("a reader's own cheap function sees no row of south before the filter does", async () => {
    const client = await connectAs(north);
    const notices: string[] = [];
    client.on('notice', (notice) => notices.push(notice.message ?? ''));
    try {
      await client.query(`
        create function pg_temp.peek(value text) returns boolean language plpgsql cost 0.000001 as $$
        begin raise notice 'peek %', value; return true; end $$`);
      for (const [relation, column] of [
        ['reporting.rent_roll', 'primary_resident'],
        ['reporting.properties', 'property_name'],
        ['reporting.vendor_spend_monthly', 'vendor_name'],
        ['reporting.portfolio', 'account_name'],
        ['public.lease_customers', 'name_full'],
        ['public.accounts', 'name'],
      ]) {
        await client.query(`select count(*) from ${relation} where pg_temp.peek(${column}::text)`);
      }
      expect(notices.length).toBeGreaterThan(0);
      expect(notices.filter((notice) => SOUTH_MARKERS.test(notice))).toEqual([]);
    } finally {
      await client.end();
    }
  });

  it('a reader of both accounts, and one never limited, see both', async () => {
    for (const who of [both, everyone]) {
      const client = await connectAs(who);
      try {
        for (const view of REPORTING_VIEWS) {
          const { rows } = await client.query<{ account_id: string }>(
            `select distinct account_id from reporting.${view.name} order by 1`,
          );
          expect([who, view.name, rows.map((row) => row.account_id)]).toEqual([
            who,
            view.name,
            ['north', 'south'],
          ]);
        }
        const { rows } = await client.query<{ n: number }>(
          `select count(distinct account_id)::int as n from public.leases`,
        );
        expect(rows[0].n).toBe(2);
      } finally {
        await client.end();
      }
    }
  });

  it('again without --account, the limit is lifted; a role that bypasses it cannot be limited', async () => {
    const result = await grantReader([north, '--base-tables']);
    expect(result.stdout).toContain(`${north} sees every account`);
    const client = await connectAs(north);
    try {
      const { rows } = await client.query<{ account_id: string }>(
        `select distinct account_id from reporting.rent_roll order by 1`,
      );
      expect(rows.map((row) => row.account_id)).toEqual(['north', 'south']);
    } finally {
      await client.end();
    }
    // The test's own user is a superuser: it sees every account whatever a table says, so the limit is refused.
    const superuser = new URL(database.url).username;
    const refused = await grantReader([superuser, '--account', 'north']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `role ${superuser} cannot be limited to some accounts: it is a superuser`,
    );
    expect((await grantReader([north, '--account', 'North!'])).code).toBe(2);
  });

  it('every table of public with an account_id carries the row-level security the readers rely on', async () => {
    const { rows } = await sql<{ table: string; secured: boolean; policies: string[] }>`
      select c.relname as table, c.relrowsecurity as secured, array(select p.polname::text from pg_policy p where p.polrelid = c.oid) as policies
        from pg_class c
       where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
         and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'account_id')
       order by 1`.execute(database.db);
    expect(rows.length).toBeGreaterThanOrEqual(SOURCE_TABLE_NAMES.length + BOOKKEEPING.length);
    // A table added by a later migration needs the same: enable row level security and policy
    // account_readers (see 0011).
    expect(
      rows.filter((row) => !row.secured || row.policies.join() !== 'account_readers').map((row) => row.table),
    ).toEqual([]);
  });
});
