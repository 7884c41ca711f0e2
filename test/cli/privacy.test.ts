import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { PASSWORD, USER, startCliWorld, type CliWorld } from './support.js';

/**
 * Issue 40: residents' personal data under `privacy:`, through the CLI against the simulator and
 * a real warehouse: nothing personal from the simulator's truth anywhere in the warehouse or the
 * logs under hash and drop, the same resident hashed the same in every table, a change of policy
 * refused until `propsync privacy apply` has rewritten the rows, a missing key stopped at start-up.
 */

const KEY = 'k'.repeat(40);
const hmac = (value: string) => createHmac('sha256', KEY).update(value).digest('hex');

let world: CliWorld;
beforeAll(async () => {
  world = await startCliWorld();
}, 300_000);
afterAll(async () => {
  await world?.close();
}, 300_000);

/** A config file with `privacy:` as the issue writes it; the rest from the environment. */
function configWith(privacy: string): { dir: string; remove(): void; path: string } {
  const folder = scratchFolder({ 'propsync.yaml': `privacy:\n${privacy}\n` });
  return { ...folder, path: `${folder.dir}/propsync.yaml` };
}

/** The residents' names, e-mail addresses, phones and street addresses in the simulator's truth. */
function personalTruth(): string[] {
  const values = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string' && value.length >= 5) values.add(value);
  };
  const list = (value: unknown): Record<string, unknown>[] =>
    value === undefined || value === null
      ? []
      : Array.isArray(value)
        ? (value as Record<string, unknown>[])
        : [value as Record<string, unknown>];
  for (const lease of world.sim.dataset.leases)
    for (const customer of list(lease.customers?.customer)) {
      add(customer.nameFull);
      add(customer.emailAddress);
      for (const phone of list((customer.phones as { phone?: unknown } | undefined)?.phone))
        add(String(phone.phoneNumber ?? ''));
      for (const address of list((customer.addresses as { address?: unknown } | undefined)?.address))
        add(address.streetLine1);
      for (const contact of list(
        (customer.customerContacts as { customerContact?: unknown } | undefined)?.customerContact,
      )) {
        add(contact.nameFull);
        add(String(contact.phoneNumber ?? ''));
      }
    }
  return [...values];
}

/**
 * Each table of the warehouse's public schema with the rows whose text holds any of the values;
 * with `account`, only the tables keyed by account, and only that account's rows.
 */
async function leaks(
  database: TestDatabase,
  values: readonly string[],
  account?: string,
): Promise<Record<string, number>> {
  const { rows: tables } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables t
     where table_schema = 'public' and table_type = 'BASE TABLE'
       and (${account ?? null}::text is null or exists (
             select 1 from information_schema.columns c
              where c.table_schema = 'public' and c.table_name = t.table_name and c.column_name = 'account_id'))
     order by 1`.execute(database.db);
  const pattern = new RegExp(values.map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));
  const found: Record<string, number> = {};
  for (const { name } of tables) {
    // Every column of every row, as Postgres writes the row (jsonb and text included).
    const { rows } = await sql<{ row: string }>`select t::text as row from ${sql.table(name)} t
      where ${account === undefined ? sql`true` : sql`t.account_id = ${account}`}`.execute(database.db);
    const n = rows.filter(({ row }) => pattern.test(row)).length;
    if (n > 0) found[name] = n;
  }
  return found;
}

/** A fresh warehouse for the tests of one describe block, dropped after them. */
function freshDatabase(): () => TestDatabase {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  }, 300_000);
  afterAll(async () => {
    await database?.drop();
  }, 300_000);
  return () => database;
}

async function count(database: TestDatabase, query: ReturnType<typeof sql>): Promise<number> {
  const { rows } = await (query as ReturnType<typeof sql<{ n: number }>>).execute(database.db);
  return Number(rows[0].n);
}

describe('privacy: hash', () => {
  const warehouse = freshDatabase();

  it('stops at start-up when the key is missing, saying what to set', { timeout: 400_000 }, async () => {
    const database = warehouse();
    const config = configWith(
      '  hashKeyEnv: PROPSYNC_PRIVACY_KEY\n  personal: hash\n  classes: { phone: drop }',
    );
    try {
      const run = await runPropsync(['--config', config.path, 'sync'], {
        env: { ...world.env, DATABASE_URL: database.url },
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/privacy\.hashKeyEnv.*PROPSYNC_PRIVACY_KEY/);
      const short = await runPropsync(['--config', config.path, 'sync'], {
        env: { ...world.env, DATABASE_URL: database.url, PROPSYNC_PRIVACY_KEY: 'abc123xyz' },
      });
      expect(short.code).toBe(2);
      expect(short.stderr).toMatch(/shorter than 32 bytes/);
      expect(short.stderr).not.toContain('abc123xyz');
    } finally {
      config.remove();
    }
  });

  it(
    'writes no name, e-mail, phone or street address anywhere, and logs none, while counts stay exact',
    { timeout: 400_000 },
    async () => {
      const database = warehouse();
      const config = configWith(
        '  hashKeyEnv: PROPSYNC_PRIVACY_KEY\n  personal: hash\n  classes: { phone: drop }',
      );
      try {
        const env = { ...world.env, DATABASE_URL: database.url, PROPSYNC_PRIVACY_KEY: KEY };
        const run = await runPropsync(['--config', config.path, 'migrate'], { env });
        expect(run.code, run.stderr).toBe(0);
        const sync = await runPropsync(['--config', config.path, 'sync'], { env });
        expect(sync.code, sync.stderr).toBe(0);
        const truth = personalTruth();
        expect(truth.length).toBeGreaterThan(20);
        expect(await leaks(database, truth)).toEqual({});
        for (const value of truth) expect(sync.stdout + sync.stderr).not.toContain(value);
        expect(sync.stdout + sync.stderr).not.toContain(KEY);

        const leases = world.sim.dataset.leases;
        expect(await count(database, sql`select count(*) as n from leases`)).toBe(leases.length);
        const customers = leases.flatMap((lease) => {
          const list = lease.customers?.customer as unknown;
          return Array.isArray(list) ? list : list ? [list] : [];
        }) as { nameFull: string; emailAddress?: string }[];
        expect(await count(database, sql`select count(*) as n from lease_customers`)).toBe(
          new Set(
            leases.flatMap((lease) => {
              const list = lease.customers?.customer as unknown;
              return (Array.isArray(list) ? list : list ? [list] : []).map(
                (customer) => `${lease.id}:${(customer as { id: unknown }).id}`,
              );
            }),
          ).size,
        );
        // Hashed as HMAC-SHA256 of the source's value under the key: the same in the typed column and in raw.
        const [one] = customers.filter((customer) => customer.emailAddress);
        const { rows } = await sql<{
          name_full: string;
          email_address: string;
          raw: Record<string, unknown>;
        }>`
        select name_full, email_address, raw from lease_customers where email_address = ${hmac(one.emailAddress!)}`.execute(
          database.db,
        );
        expect(rows.length).toBeGreaterThan(0);
        expect(rows[0].raw.emailAddress).toBe(hmac(one.emailAddress!));
        // Phones dropped: gone from raw.
        const phones = await count(
          database,
          sql`select count(*) as n from lease_customers where raw::text like '%phoneNumber%'`,
        );
        expect(phones).toBe(0);
        // The same resident hashes the same in every table: a refund's payee is the lease's customer.
        const joined = await count(
          database,
          sql`select count(*) as n from invoices i join lease_customers c on c.name_full = i.vendor_name where i.invoice_type_id = 20`,
        );
        const refunds = await count(
          database,
          sql`select count(*) as n from invoices where invoice_type_id = 20`,
        );
        expect(joined).toBeGreaterThanOrEqual(refunds);
        // Money exact, as the source's truth.
        const policy = await database.db.selectFrom('privacy_policies').selectAll().executeTakeFirstOrThrow();
        expect(policy.modes).toMatchObject({ name: 'hash', email: 'hash', phone: 'drop' });
        expect(JSON.stringify(policy)).not.toContain(KEY);
        // verify compares under the policy: the hashed and dropped columns match the source's values.
        const verify = await runPropsync(['--config', config.path, 'verify', '--all', '--json'], { env });
        expect(verify.code, verify.stdout + verify.stderr).toBe(0);
        expect((JSON.parse(verify.stdout) as { ok: boolean }).ok).toBe(true);
        for (const value of truth) expect(verify.stdout + verify.stderr).not.toContain(value);
      } finally {
        config.remove();
      }
    },
  );
});

describe('privacy: a change of policy on a warehouse with data', () => {
  const warehouse = freshDatabase();

  it(
    'refuses to sync under another policy until privacy apply has rewritten the rows',
    { timeout: 400_000 },
    async () => {
      const database = warehouse();
      const keep = configWith('  personal: keep');
      const drop = configWith('  personal: drop');
      try {
        const env = { ...world.env, DATABASE_URL: database.url };
        expect((await runPropsync(['--config', keep.path, 'migrate'], { env })).code).toBe(0);
        const first = await runPropsync(['--config', keep.path, 'sync'], { env });
        expect(first.code, first.stderr).toBe(0);
        const truth = personalTruth();
        expect(Object.keys(await leaks(database, truth))).toContain('lease_customers');

        const refused = await runPropsync(['--config', drop.path, 'sync'], { env });
        expect(refused.code).toBe(1);
        expect(refused.stdout + refused.stderr).toMatch(/propsync privacy apply/);
        expect(Object.keys(await leaks(database, truth))).toContain('lease_customers');
        // status says which policy the rows are under, and that the configured one waits for apply.
        const before = await runPropsync(['--config', drop.path, 'status', '--json'], { env });
        expect(before.code, before.stderr).toBe(0);
        const [account] = (JSON.parse(before.stdout) as { accounts: { privacy: Record<string, unknown> }[] })
          .accounts;
        expect(account.privacy).toMatchObject({ state: 'differs', inForce: { modes: { name: 'keep' } } });
        const text = await runPropsync(['--config', drop.path, 'status'], { env });
        expect(text.stdout).toMatch(/privacy: rows written under "keep.*propsync privacy apply/);

        const apply = await runPropsync(['--config', drop.path, 'privacy', 'apply'], { env });
        expect(apply.code, apply.stderr).toBe(0);
        const customers = await count(database, sql`select count(*) as n from lease_customers`);
        expect(apply.stdout).toMatch(new RegExp(`lease_customers\\s+${customers}\\b`));
        expect(await leaks(database, truth)).toEqual({});
        expect(
          await count(database, sql`select count(*) as n from lease_customers where name_full is not null`),
        ).toBe(0);
        // Done: a second apply has nothing to change.
        const again = await runPropsync(['--config', drop.path, 'privacy', 'apply'], { env });
        expect(again.stdout).toMatch(/0 row\(s\) rewritten/);
        const after = await runPropsync(['--config', drop.path, 'status'], { env });
        expect(after.stdout).toMatch(/privacy: name drop, email drop/);

        const next = await runPropsync(['--config', drop.path, 'sync'], { env });
        expect(next.code, next.stderr).toBe(0);
        const { rows } = await sql<{ inserted: number; updated: number }>`
        select rows_inserted as inserted, rows_updated as updated from sync_runs order by run_id desc limit 1`.execute(
          database.db,
        );
        // Rows rewritten by apply are what the policy makes of the source's records: none is written again.
        expect(rows[0]).toEqual({ inserted: 0, updated: 0 });
        const digestless = await count(
          database,
          sql`select count(*) as n from leases where source_hash is null`,
        );
        expect(digestless).toBe(0);
        expect(await leaks(database, truth)).toEqual({});
      } finally {
        keep.remove();
        drop.remove();
      }
    },
  );
});

describe('privacy: a policy per account', () => {
  const warehouse = freshDatabase();

  it(
    "hashes one client's residents and keeps another's, each in force and shown per account",
    { timeout: 400_000 },
    async () => {
      const database = warehouse();
      const source = (variable: string) =>
        `{ url: '${world.env.PROPSYNC_API_URL}', auth: { type: basic, username: ${USER}, passwordEnv: ${variable} } }`;
      const folder = scratchFolder({
        'propsync.yaml':
          `privacy:\n  hashKeyEnv: PROPSYNC_PRIVACY_KEY\n  personal: keep\n` +
          `accounts:\n` +
          `  - id: plain\n    source: ${source('PLAIN_PW')}\n` +
          `  - id: guarded\n    source: ${source('GUARDED_PW')}\n` +
          `    privacy: { personal: hash, classes: { phone: drop } }\n`,
      });
      const config = `${folder.dir}/propsync.yaml`;
      const env = {
        DATABASE_URL: database.url,
        PLAIN_PW: PASSWORD,
        GUARDED_PW: PASSWORD,
        PROPSYNC_CONCURRENCY: '3',
        PROPSYNC_MAX_CLOCK_SKEW_HOURS: '0',
      };
      try {
        // The guarded account hashes: without its key, nothing starts, and its own keys are named.
        const keyless = await runPropsync(['--config', config, 'sync'], { env });
        expect(keyless.code).toBe(2);
        expect(keyless.stderr).toMatch(
          /privacy\.hashKeyEnv: "PROPSYNC_PRIVACY_KEY" names a variable that is not set.*accounts\[1\]'s name/,
        );

        const keyed = { ...env, PROPSYNC_PRIVACY_KEY: KEY };
        expect((await runPropsync(['--config', config, 'migrate'], { env: keyed })).code).toBe(0);
        const sync = await runPropsync(['--config', config, 'sync'], { env: keyed });
        expect(sync.code, sync.stderr).toBe(0);
        const truth = personalTruth();
        expect(await leaks(database, truth, 'guarded')).toEqual({});
        expect(Object.keys(await leaks(database, truth, 'plain'))).toContain('lease_customers');
        for (const value of truth) expect(sync.stderr).not.toContain(value);

        // The same residents, kept in one account and hashed under the key in the other.
        const { rows } = await sql<{ plain: string; guarded: string }>`
          select p.email_address as plain, g.email_address as guarded
            from lease_customers p
            join lease_customers g on g.account_id = 'guarded' and g.lease_id = p.lease_id
                                  and g.customer_id = p.customer_id
           where p.account_id = 'plain' and p.email_address is not null`.execute(database.db);
        expect(rows.length).toBeGreaterThan(10);
        for (const row of rows) expect(row.guarded).toBe(hmac(row.plain));
        const counts = await sql<{ account_id: string; n: number }>`
          select account_id, count(*)::int as n from leases group by 1 order by 1`.execute(database.db);
        expect(counts.rows.map((row) => row.n)).toEqual([
          world.sim.dataset.leases.length,
          world.sim.dataset.leases.length,
        ]);

        // Each account's policy in force, per account, in status.
        const status = await runPropsync(['--config', config, 'status', '--json'], { env: keyed });
        expect(status.code, status.stderr).toBe(0);
        const accounts = (
          JSON.parse(status.stdout) as {
            accounts: {
              account: string;
              privacy: { state: string; inForce: { modes: Record<string, string> } };
            }[];
          }
        ).accounts;
        const byId = Object.fromEntries(accounts.map((account) => [account.account, account.privacy]));
        expect(byId.guarded).toMatchObject({
          state: 'in force',
          inForce: { modes: { name: 'hash', phone: 'drop' } },
        });
        expect(byId.plain).toMatchObject({ inForce: { modes: { name: 'keep', phone: 'keep' } } });

        // privacy apply checks each account's own key before it rewrites anything.
        const apply = await runPropsync(['--config', config, 'privacy', 'apply'], { env });
        expect(apply.code).toBe(2);
        expect(apply.stderr).toMatch(/accounts\[1\]\.privacy\.hashKeyEnv: names a variable that is not set/);
        // ... and refuses a key too short to hash with, as a sync does, never quoting it.
        const short = await runPropsync(['--config', config, 'privacy', 'apply'], {
          env: { ...env, PROPSYNC_PRIVACY_KEY: 'short-privacy-key' },
        });
        expect(short.code).toBe(2);
        expect(short.stderr).toMatch(/accounts\[1\]\.privacy\.hashKeyEnv: .*shorter than 32 bytes/);
        expect(short.stderr).not.toContain('short-privacy-key');
      } finally {
        folder.remove();
      }
    },
  );
});
