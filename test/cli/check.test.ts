import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { createTestDatabase } from '../support/database.js';
import { PASSWORD, startCliWorld, USER, type CliWorld } from './support.js';

let world: CliWorld;
beforeAll(async () => {
  world = await startCliWorld();
});
afterAll(async () => {
  await world?.close();
});

const linesOf = (stdout: string) => stdout.trimEnd().split('\n');

describe('propsync check', () => {
  it('passes a good configuration: database, TLS, migrations, rights and the account, one line each', async () => {
    const result = await runPropsync(['check'], { env: world.env });
    expect(result.code, result.stderr).toBe(0);
    const lines = linesOf(result.stdout);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^ok {3}database: reachable at postgres:\/\/.*; TLS not asked for \(no sslmode/);
    expect(lines[1]).toBe('ok   migrations: current');
    expect(lines[2]).toMatch(/^ok {3}role: \w+ has the rights propsync needs$/);
    expect(lines[3]).toMatch(
      /^ok {3}account default: http:\/\/127\.0\.0\.1:\d+: credentials accepted \(basic\); \d+ properties/,
    );
  }, 120_000);

  it('a wrong password: the account fails, saying which settings to check, and never shows it', async () => {
    const wrong = `wrong-${randomBytes(4).toString('hex')}`;
    const result = await runPropsync(['check'], { env: { ...world.env, PROPSYNC_API_PASSWORD: wrong } });
    expect(result.code).toBe(2);
    const line = linesOf(result.stdout).find((text) => text.includes('account default'));
    expect(line).toMatch(
      /^FAIL account default: .*authentication failed.*; check PROPSYNC_API_USERNAME and PROPSYNC_API_PASSWORD/i,
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain(wrong);
    // The database is fine all the same.
    expect(result.stdout).toMatch(/^ok {3}database:/m);
  }, 120_000);

  it('two accounts: one line each, the failing one named by its own keys', async () => {
    const folder = scratchFolder({
      'accounts.yaml': [
        'accounts:',
        '  - id: north',
        `    source: { url: "${world.sim.url}", allowInsecureHttp: true, auth: { type: basic, username: ${USER}, passwordEnv: NORTH_PW } }`,
        '  - id: south',
        `    source: { url: "${world.sim.url}", allowInsecureHttp: true, auth: { type: basic, username: ${USER}, passwordEnv: SOUTH_PW } }`,
      ].join('\n'),
    });
    try {
      const {
        PROPSYNC_API_URL: _url,
        PROPSYNC_API_USERNAME: _user,
        PROPSYNC_API_PASSWORD: _pw,
        ...env
      } = world.env;
      const result = await runPropsync(['--config', 'accounts.yaml', 'check'], {
        cwd: folder.dir,
        env: { ...env, NORTH_PW: PASSWORD, SOUTH_PW: 'not-it' },
      });
      expect(result.code, result.stderr).toBe(2);
      const lines = linesOf(result.stdout);
      expect(lines.filter((line) => line.includes(' account '))).toEqual([
        expect.stringMatching(/^ok {3}account north: .*credentials accepted/),
        expect.stringMatching(
          /^FAIL account south: .*check accounts\[1\]\.source\.auth\.username and the password \(accounts\[1\]\.source\.auth\.passwordEnv/,
        ),
      ]);
    } finally {
      folder.remove();
    }
  }, 120_000);

  it('a wrong database: fails at once saying so (and the account is still checked)', async () => {
    const url = new URL(world.env.DATABASE_URL);
    url.pathname = `/no_such_db_${randomBytes(4).toString('hex')}`;
    const result = await runPropsync(['check'], { env: { ...world.env, DATABASE_URL: url.toString() } });
    expect(result.code).toBe(2);
    const lines = linesOf(result.stdout);
    expect(lines[0]).toMatch(
      /^FAIL database: cannot reach the warehouse at .*: database "no_such_db_\w+" does not exist; check DATABASE_URL/,
    );
    expect(lines.some((line) => /^ok {3}account default/.test(line))).toBe(true);
  }, 120_000);

  it('an unmigrated database, and a role without rights on the tables', async () => {
    const empty = await createTestDatabase({ migrate: false });
    const role = `propsync_check_${randomBytes(4).toString('hex')}`;
    try {
      const bare = await runPropsync(['check'], { env: { ...world.env, DATABASE_URL: empty.url } });
      expect(bare.code).toBe(2);
      expect(bare.stdout).toMatch(/^FAIL migrations: \d+ pending \(.*\); run `propsync migrate`$/m);

      await sql`create role ${sql.id(role)} login password ${sql.lit(role)}`.execute(world.database.db);
      const url = new URL(world.env.DATABASE_URL);
      url.username = role;
      url.password = role;
      const result = await runPropsync(['check'], { env: { ...world.env, DATABASE_URL: url.toString() } });
      expect(result.code).toBe(2);
      expect(result.stdout).toMatch(
        new RegExp(
          `^FAIL role: ${role} lacks DELETE on \\d+ tables .*; SELECT on .*: grant them, or set DATABASE_URL`,
          'm',
        ),
      );
    } finally {
      await sql`drop role if exists ${sql.id(role)}`.execute(world.database.db).catch(() => {});
      await empty.drop();
    }
  }, 180_000);
});
