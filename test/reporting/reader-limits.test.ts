/**
 * Issue 35 items 2 and 9: `grant-reader ROLE --account A` refuses a role that would still read
 * every account (saying why), and the SQL it prints or runs quotes a mixed-case role.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runPropsync } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const suffix = randomBytes(4).toString('hex');
const allData = `propsync_test_alldata_${suffix}`;
const privateUser = `propsync_test_private_${suffix}`;
const privateGroup = `propsync_test_privgroup_${suffix}`;
const creator = `propsync_test_creator_${suffix}`;
const creatorMember = `propsync_test_crmember_${suffix}`;
const plain = `propsync_test_plain_${suffix}`;
const mixed = `Propsync_Test_Mixed_${suffix}`;
const person = `propsync_test_person_${suffix}`;
const ROLES = [allData, privateUser, privateGroup, creator, creatorMember, plain, mixed, person];

let database: TestDatabase;
let admin: pg.Client;

const q = (name: string) => `"${name}"`;

beforeAll(async () => {
  database = await createTestDatabase();
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(`insert into accounts (account_id, name) values ('north', 'North Homes')`);
  await admin.query(`create role ${allData} nologin in role pg_read_all_data`);
  await admin.query(`create role ${privateGroup} nologin`);
  await admin.query(`grant usage on schema reporting_private to ${privateGroup}`);
  await admin.query(`create role ${privateUser} nologin noinherit in role ${privateGroup}`);
  await admin.query(`create role ${creator} nologin createrole`);
  await admin.query(`create role ${creatorMember} nologin in role ${creator}`);
  await admin.query(`create role ${plain} nologin`);
});

afterAll(async () => {
  await admin?.end();
  await database?.drop();
  const server = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await server.connect();
  try {
    for (const role of ROLES) await server.query(`drop role if exists ${q(role)}`);
  } finally {
    await server.end();
  }
});

const grantReader = (args: string[], env: Record<string, string> = {}) =>
  runPropsync(['grant-reader', ...args], { env: { DATABASE_URL: database.url, ...env } });

describe('grant-reader --account refuses a role that still reads every account', () => {
  it.each([
    [allData, `it is a member of pg_read_all_data, which reads every table of the database`],
    [
      privateUser,
      `it is a member of ${privateGroup}, which may use schema reporting_private, which holds every account's rows`,
    ],
    [creator, 'it has CREATEROLE (it may grant itself any role, pg_read_all_data included)'],
    [creatorMember, `it is a member of ${creator}, which has CREATEROLE`],
  ])('%s: exit 2, saying why, and no limit recorded', async (role, why) => {
    const result = await grantReader([role, '--account', 'north']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`role ${role} cannot be limited to some accounts: ${why}`);
    expect(result.stdout).not.toMatch(/sees the rows of account/);
    const { rows } = await admin.query(
      `select count(*)::int as n from reporting_private.reader_accounts where role::text = $1`,
      [role],
    );
    expect(rows[0].n).toBe(0);
  });

  it('a role with none of these is limited', async () => {
    const result = await grantReader([plain, '--account', 'north']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${plain} sees the rows of account north only`);
  });
});

describe('grant-reader quotes the identifiers it prints and runs (issue 35 item 9)', () => {
  it('a mixed-case role is created as written, and the printed SQL gives a person its login', async () => {
    const result = await grantReader([mixed, '--account', 'north']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const printed = result.stdout
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => /^(create role|grant) /.test(line));
    expect(printed).toEqual([
      `create role alice login password 'a-strong-password';`,
      `grant "${mixed}" to alice;`,
    ]);
    // The printed statements, run for another person, work as printed.
    for (const statement of printed) await admin.query(statement.replaceAll('alice', person));
    const { rows } = await admin.query(
      `select pg_has_role($1, $2, 'MEMBER') as member,
              exists (select 1 from reporting_private.reader_accounts where role::text = quote_ident($2)) as limited`,
      [person, mixed],
    );
    expect(rows[0]).toEqual({ member: true, limited: true });
  });
});
