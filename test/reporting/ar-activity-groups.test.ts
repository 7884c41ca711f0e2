import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Migrator, sql } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Warehouse } from '../../src/catalog/tables.js';
import { updateArActivityGroups } from '../../src/reporting/ar-activity-groups.js';
import { grantReader } from '../../src/reporting/reader-role.js';
import { refreshReporting } from '../../src/reporting/refresh.js';
import { connect } from '../../src/warehouse/db.js';
import { migrationProvider } from '../../src/warehouse/migrate.js';
import { waitFor } from '../cli/support.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { insertFixture, SOUTH } from './fixture.js';

const ZONE = 'America/Denver';
const ORDER = 'order by account_id, property_id, post_month, ar_code_id';

/** The sum of one transaction type's amounts. */
const money = (type: number, name: string) => `coalesce(sum(t.amount) filter (where t.transaction_type_id = ${type}), 0)::numeric(14,2) as ${name}`;

/** ar_activity_monthly as migration 0014 computed it: the whole ledger summed, then named. */
const FULL = `
  select g.account_id, a.name as account_name, g.property_id, p.property_name, g.post_month, g.ar_code_id, g.ar_code_name, g.transactions,
         g.charges, g.deposits, g.payments, g.concessions, g.deposit_applications, g.refunds, g.write_offs, g.net_amount
    from (select t.account_id, t.property_id, t.post_month, t.ar_code_id, min(t.ar_code_name) as ar_code_name, count(*)::int as transactions,
                 ${money(1, 'charges')}, ${money(4, 'deposits')}, ${money(2, 'payments')}, ${money(3, 'concessions')},
                 ${money(5, 'deposit_applications')}, ${money(6, 'refunds')}, ${money(7, 'write_offs')},
                 coalesce(sum(t.amount), 0)::numeric(14,2) as net_amount
            from public.ar_transactions t
            join public.leases l on l.account_id = t.account_id and l.lease_id = t.lease_id and l.deleted_at is null
           where t.deleted_at is null and t.is_temporary is not true and t.is_reversed is not true and t.post_month is not null
           group by t.property_id, t.post_month, t.ar_code_id, t.account_id) g
    left join public.accounts a on a.account_id = g.account_id
    left join reporting_private.properties p on p.account_id = g.account_id and p.property_id = g.property_id`;

let database: TestDatabase;
let nextId = 5000;

/** A ledger row of `account`, on property 100 unless said. */
function arRow(account: string, lease: number, postMonth: string | null, amount: string, extra: Record<string, unknown> = {}) {
  return {
    account_id: account,
    ar_transaction_id: nextId++,
    lease_id: lease,
    property_id: 100,
    transaction_type_id: 1,
    ar_code_id: 101,
    ar_code_name: 'Rent',
    post_month: postMonth,
    amount,
    is_temporary: false,
    is_reversed: false,
    raw: {},
    ...extra,
  };
}

async function addAr(...rows: ReturnType<typeof arRow>[]): Promise<void> {
  await database.db.insertInto('ar_transactions').values(rows as never).execute();
}

/** The groups noted dirty, as account/property/month. */
async function dirty(db: Db = database.db): Promise<string[]> {
  const { rows } = await sql<{ group: string }>`
    select account_id || '/' || property_id || '/' || to_char(post_month, 'YYYY-MM') as group from reporting_private.ar_activity_dirty order by 1`.execute(db);
  return rows.map((row) => row.group);
}

/** The maintained rows and the full query's, each in the grain's order. */
async function bothWays(db: Db = database.db): Promise<{ maintained: unknown[]; full: unknown[] }> {
  const maintained = (await sql.raw(`select * from reporting_private.ar_activity_monthly ${ORDER}`).execute(db)).rows;
  const full = (await sql.raw(`select * from (${FULL}) f ${ORDER}`).execute(db)).rows;
  return { maintained, full };
}

/** Refreshes as the end of a sync does, then expects the maintained rows to be the full query's, and nothing left dirty. */
async function expectMaintained(): Promise<unknown[]> {
  const outcome = await refreshReporting(database.db, { timeZone: ZONE });
  expect(outcome).toEqual({ refreshed: ['properties', 'ar_activity_monthly', 'occupancy_monthly', 'vendor_spend_monthly'], skipped: [] });
  const { maintained, full } = await bothWays();
  expect(maintained).toEqual(full);
  expect(await dirty()).toEqual([]);
  return maintained;
}

/** The sums of one group of an account, by AR code. */
async function group(account: string, month: string, property = 100): Promise<{ ar_code_id: number | null; transactions: number; net_amount: string }[]> {
  const { rows } = await sql<{ ar_code_id: number | null; transactions: number; net_amount: string }>`
    select ar_code_id, transactions, net_amount from reporting_private.ar_activity_groups
     where account_id = ${account} and property_id = ${property} and post_month = ${month}::date order by ar_code_id`.execute(database.db);
  return rows;
}

beforeAll(async () => {
  database = await createTestDatabase();
  await insertFixture(database.db, 'north');
  await insertFixture(database.db, 'south', SOUTH);
  await sql`insert into accounts (account_id, name) values ('north', 'North Homes'), ('south', 'South Estates')`.execute(database.db);
  await refreshReporting(database.db, { timeZone: ZONE });
});
afterAll(async () => {
  await database?.drop();
});

describe('ar_activity_monthly maintained group by group', () => {
  it('is a plain view over the groups, and gives the full query\'s rows after the migration and a refresh', async () => {
    const { rows } = await sql<{ kind: string }>`select relkind::text as kind from pg_class where oid = 'reporting_private.ar_activity_monthly'::regclass`.execute(database.db);
    expect(rows).toEqual([{ kind: 'v' }]);
    const maintained = await expectMaintained();
    expect(maintained.length).toBeGreaterThan(10);
    expect(new Set(maintained.map((row: any) => row.account_id))).toEqual(new Set(['north', 'south']));
  });

  it('sums again the groups of inserted transactions: one it had, one new, one without an AR code', async () => {
    await addAr(arRow('north', 1, '2024-06-01', '10.00'), arRow('north', 2, '2024-08-01', '20.00'), arRow('north', 2, '2024-08-01', '5.00', { ar_code_id: null, ar_code_name: null }));
    expect(await dirty()).toEqual(['north/100/2024-06', 'north/100/2024-08']);
    await expectMaintained();
    expect(await group('north', '2024-08-01')).toEqual([
      { ar_code_id: 101, transactions: 1, net_amount: '20.00' },
      { ar_code_id: null, transactions: 1, net_amount: '5.00' },
    ]);
  });

  it('follows updates: amount, post month moved, reversal, temporary and deleted flags; a group left empty disappears', async () => {
    await sql`update ar_transactions set amount = amount + 1 where account_id = 'north' and ar_transaction_id = 1`.execute(database.db);
    expect(await dirty()).toEqual(['north/100/2024-06']);
    await expectMaintained();
    // Transaction 13 is the only one of April: moved to March, April's group is gone.
    expect(await group('north', '2024-04-01')).toHaveLength(1);
    await sql`update ar_transactions set post_month = '2024-03-01' where account_id = 'north' and ar_transaction_id = 13`.execute(database.db);
    expect(await dirty()).toEqual(['north/100/2024-03', 'north/100/2024-04']);
    await expectMaintained();
    expect(await group('north', '2024-04-01')).toEqual([]);
    expect(await group('north', '2024-03-01')).toEqual([{ ar_code_id: 140, transactions: 1, net_amount: '-50.00' }]);
    // The returned payment and its reversal count again once no longer marked reversed; then again not.
    await sql`update ar_transactions set is_reversed = false where account_id = 'north' and ar_transaction_id in (4, 5)`.execute(database.db);
    await expectMaintained();
    await sql`update ar_transactions set is_reversed = true where account_id = 'north' and ar_transaction_id in (4, 5)`.execute(database.db);
    await sql`update ar_transactions set is_temporary = false where account_id = 'north' and ar_transaction_id = 7`.execute(database.db);
    await expectMaintained();
    expect((await group('north', '2024-06-01')).map((row) => row.ar_code_id)).toContain(190);
    await sql`update ar_transactions set is_temporary = true where account_id = 'north' and ar_transaction_id = 7`.execute(database.db);
    // Transaction 10 is the only one of May: marked deleted, May's group is gone.
    await sql`update ar_transactions set deleted_at = now() where account_id = 'north' and ar_transaction_id = 10`.execute(database.db);
    await expectMaintained();
    expect(await group('north', '2024-05-01')).toEqual([]);
    // A post month cleared leaves the view; a row deleted too.
    await sql`update ar_transactions set post_month = null where account_id = 'north' and ar_transaction_id = 13`.execute(database.db);
    expect(await dirty()).toEqual(['north/100/2024-03']);
    await sql`delete from ar_transactions where account_id = 'north' and ar_transaction_id = 9`.execute(database.db);
    expect(await dirty()).toEqual(['north/100/2024-02', 'north/100/2024-03']);
    await expectMaintained();
    expect(await group('north', '2024-03-01')).toEqual([]);
  });

  it('drops the groups of a lease marked deleted and brings them back when it is revived; a lease arriving after its transactions brings them in', async () => {
    const before = (await bothWays()).maintained;
    await sql`update leases set unit_number = '101A' where account_id = 'north' and lease_id = 1`.execute(database.db);
    expect(await dirty()).toEqual([]);
    await sql`update leases set deleted_at = now() where account_id = 'north' and lease_id = 1`.execute(database.db);
    expect(await dirty()).toEqual(['north/100/2024-02', 'north/100/2024-06']);
    await expectMaintained();
    expect(await group('north', '2024-02-01')).toEqual([]);
    // Marked deleted again (another timestamp): nothing changes for the view.
    await sql`update leases set deleted_at = now() + interval '1 day' where account_id = 'north' and lease_id = 1`.execute(database.db);
    expect(await dirty()).toEqual([]);
    await sql`update leases set deleted_at = null where account_id = 'north' and lease_id = 1`.execute(database.db);
    expect(await expectMaintained()).toEqual(before);

    // Transactions of lease 9 come before the lease: left out until it arrives, then summed.
    await addAr(arRow('north', 9, '2024-09-01', '30.00', { property_id: 200 }));
    await expectMaintained();
    expect(await group('north', '2024-09-01', 200)).toEqual([]);
    await database.db.insertInto('leases').values({ account_id: 'north', lease_id: 9, property_id: 200, raw: {} } as never).execute();
    expect(await dirty()).toEqual(['north/200/2024-09']);
    await expectMaintained();
    expect(await group('north', '2024-09-01', 200)).toEqual([{ ar_code_id: 101, transactions: 1, net_amount: '30.00' }]);
    // A lease deleted outright.
    await sql`delete from leases where account_id = 'north' and lease_id = 9`.execute(database.db);
    expect(await dirty()).toEqual(['north/200/2024-09']);
    await expectMaintained();
    expect(await group('north', '2024-09-01', 200)).toEqual([]);
  });

  it('notes the groups of rows loaded with COPY', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const line = (id: number, month: string, amount: string) => ['south', id, 1, 100, 1, 101, 'South Rent', month, amount, 'f', 'f', '{}'].join('\t');
      const text = `${[line(nextId++, '2024-06-01', '11.00'), line(nextId++, '2024-11-01', '12.00'), line(nextId++, '2024-11-01', '13.00')].join('\n')}\n`;
      await pipeline(
        Readable.from([text]),
        client.query(
          copyFrom('copy ar_transactions (account_id, ar_transaction_id, lease_id, property_id, transaction_type_id, ar_code_id, ar_code_name, post_month, amount, is_temporary, is_reversed, raw) from stdin'),
        ),
      );
    } finally {
      await client.end();
    }
    expect(await dirty()).toEqual(['south/100/2024-06', 'south/100/2024-11']);
    await expectMaintained();
    expect(await group('south', '2024-11-01')).toEqual([{ ar_code_id: 101, transactions: 2, net_amount: '25.00' }]);
  });

  it('notes the groups of rows inserted and updated by INSERT ... ON CONFLICT DO UPDATE', async () => {
    // Transaction 8 of south moves from February to December; a new one is posted in October.
    await sql`
      insert into ar_transactions as t (account_id, ar_transaction_id, lease_id, property_id, transaction_type_id, ar_code_id, ar_code_name, post_month, amount, raw)
      values ('south', 8, 1, 100, 1, 101, 'South Rent', '2024-12-01', '3000.00', '{}'),
             ('south', ${nextId++}, 1, 100, 1, 101, 'South Rent', '2024-10-01', '7.00', '{}')
      on conflict (account_id, ar_transaction_id) do update set post_month = excluded.post_month
      where t.post_month is distinct from excluded.post_month`.execute(database.db);
    expect(await dirty()).toEqual(['south/100/2024-02', 'south/100/2024-10', 'south/100/2024-12']);
    await expectMaintained();
    expect(await group('south', '2024-12-01')).toEqual([{ ar_code_id: 101, transactions: 1, net_amount: '3000.00' }]);
  });

  it("leaves an account's groups untouched when another account changes the same ids", async () => {
    const rows = sql<{ ctid: string }>`
      select ctid::text from reporting_private.ar_activity_groups where account_id = 'north' and property_id = 100 and post_month = '2024-06-01' order by ar_code_id`;
    const before = (await rows.execute(database.db)).rows;
    const southBefore = (await group('south', '2024-06-01')).map((row) => row.net_amount);
    await sql`update ar_transactions set amount = amount + 100 where account_id = 'south' and ar_transaction_id = 1`.execute(database.db);
    expect(await dirty()).toEqual(['south/100/2024-06']);
    await expectMaintained();
    // The same row versions: not deleted and inserted again.
    expect((await rows.execute(database.db)).rows).toEqual(before);
    expect((await group('south', '2024-06-01')).map((row) => row.net_amount)).not.toEqual(southBefore);
  });

  it('sums the whole ledger once when most of the groups of a warehouse of hundreds are dirty (as after a full load)', async () => {
    const rows = sql<{ ctid: string }>`
      select ctid::text from reporting_private.ar_activity_groups where account_id = 'north' and property_id = 100 and post_month = '2024-06-01' order by ar_code_id`;
    const before = (await rows.execute(database.db)).rows;
    // 300 months of a property loaded at once: most groups are new.
    await sql`
      insert into ar_transactions (account_id, ar_transaction_id, lease_id, property_id, transaction_type_id, ar_code_id, ar_code_name, post_month, amount, raw)
      select 'north', 900000 + n, 1, 900, 1 + n % 7, 101, 'Rent', date '2000-01-01' + make_interval(months => n), (n * 1.25)::numeric(14,2), '{}'
        from generate_series(0, 299) n`.execute(database.db);
    expect((await dirty()).length).toBe(300);
    await expectMaintained();
    // Every row written again, those of groups no row of which changed too.
    expect((await rows.execute(database.db)).rows).not.toEqual(before);
    // A few groups among hundreds: those only.
    const after = (await rows.execute(database.db)).rows;
    await sql`update ar_transactions set amount = amount + 1 where account_id = 'north' and ar_transaction_id = 900007`.execute(database.db);
    expect(await dirty()).toEqual(['north/900/2000-08']);
    await expectMaintained();
    expect((await rows.execute(database.db)).rows).toEqual(after);
  });

  it('names the account and the property as they are now: a renamed property after the refresh, with no group summed again', async () => {
    await sql`update accounts set name = 'North Homes LLC' where account_id = 'north'`.execute(database.db);
    const names = sql<{ account_name: string; property_name: string }>`
      select distinct account_name, property_name from reporting.ar_activity_monthly where account_id = 'north' and property_id = 100`;
    expect((await names.execute(database.db)).rows).toEqual([{ account_name: 'North Homes LLC', property_name: 'Maple Court' }]);
    await sql`insert into properties (account_id, property_id, marketing_name, raw) values ('north', 100, 'Maple Court Residences', '{}')`.execute(database.db);
    expect(await dirty()).toEqual([]);
    await expectMaintained();
    expect((await names.execute(database.db)).rows).toEqual([{ account_name: 'North Homes LLC', property_name: 'Maple Court Residences' }]);
  });

  it('notes every group after a truncate', async () => {
    await database.db
      .transaction()
      .execute(async (trx) => {
        await sql`truncate ar_transactions`.execute(trx);
        expect((await dirty(trx)).length).toBeGreaterThan(5);
        expect(await updateArActivityGroups(trx)).toBeGreaterThan(5);
        expect((await sql`select 1 from reporting_private.ar_activity_groups`.execute(trx)).rows).toEqual([]);
        throw new Error('undo');
      })
      .catch((error: Error) => {
        if (error.message !== 'undo') throw error;
      });
    expect((await bothWays()).maintained).toEqual((await bothWays()).full);
  });
});

describe('ar_activity_monthly updated while others write or update', () => {
  /** A connection of its own, as another process would hold. */
  async function session(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: database.url, application_name: 'other-process' });
    await client.connect();
    return client;
  }

  const waitingOn = (pattern: string) => async () =>
    (await sql`select 1 from pg_stat_activity where query ilike ${pattern} and wait_event_type = 'Lock'`.execute(database.db)).rows.length > 0;

  it("waits for a sync's transaction that noted a group, and sums its rows once it commits", async () => {
    const sync = await session();
    const refreshing: Db = connect<Warehouse>(database.url, { maxConnections: 1 });
    let done: Promise<unknown> | undefined;
    try {
      // June is dirty already: the sync's note of it is the row there (on conflict do nothing).
      await sql`update ar_transactions set amount = amount + 1 where account_id = 'north' and ar_transaction_id = 2`.execute(database.db);
      await sync.query('begin');
      await sync.query(`insert into ar_transactions (account_id, ar_transaction_id, lease_id, property_id, transaction_type_id, ar_code_id, ar_code_name, post_month, amount, raw)
                        values ('north', ${nextId++}, 2, 100, 1, 101, 'Rent', '2024-06-01', '40.00', '{}'), ('north', ${nextId++}, 2, 100, 1, 101, 'Rent', '2025-01-01', '40.00', '{}')`);
      done = refreshReporting(refreshing, { timeZone: ZONE, lockTimeoutMs: 60_000 });
      await waitFor(waitingOn('lock table reporting_private.ar_activity_dirty%'), 20_000, 'the update to wait for the dirty groups');
      await sync.query('commit');
      expect(await done).toEqual({ refreshed: ['properties', 'ar_activity_monthly', 'occupancy_monthly', 'vendor_spend_monthly'], skipped: [] });
      // Its snapshot came after the lock: the committed rows are summed, and their groups forgotten.
      expect(await group('north', '2025-01-01')).toEqual([{ ar_code_id: 101, transactions: 1, net_amount: '40.00' }]);
      const { maintained, full } = await bothWays();
      expect(maintained).toEqual(full);
      expect(await dirty()).toEqual([]);
    } finally {
      await sync.end().catch(() => {});
      await done?.catch(() => {});
      await refreshing.destroy();
    }
  });

  it('keeps a group noted while an update is under way for the next one, and skips an update that cannot have its lock', async () => {
    const sync = await session();
    const updating: Db = connect<Warehouse>(database.url, { maxConnections: 1 });
    let written: Promise<unknown> | undefined;
    try {
      await sql`update ar_transactions set amount = amount + 1 where account_id = 'north' and ar_transaction_id = 1`.execute(database.db);
      await updating
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          expect(await updateArActivityGroups(trx)).toBe(1);
          // A sync writes meanwhile: it waits for this update to end, then notes its group.
          written = sync.query(`update ar_transactions set amount = amount + 2 where account_id = 'north' and ar_transaction_id = 3`);
          await waitFor(waitingOn('update ar_transactions%'), 20_000, 'the sync to wait for the update');
          // A second update cannot have the lock: skipped, the materialized views refreshed.
          expect(await refreshReporting(database.db, { timeZone: ZONE, lockTimeoutMs: 200 })).toEqual({
            refreshed: ['properties', 'occupancy_monthly', 'vendor_spend_monthly'],
            skipped: ['ar_activity_monthly'],
          });
        });
      await written;
      expect(await dirty()).toEqual(['north/100/2024-06']);
      await expectMaintained();
    } finally {
      await written?.catch(() => {});
      await sync.end().catch(() => {});
      await updating.destroy();
    }
  });

  it('two processes updating at once take turns: no group doubled, none lost', async () => {
    await sql`update ar_transactions set amount = amount + 1 where account_id in ('north', 'south') and ar_transaction_id in (1, 2, 3)`.execute(database.db);
    const pools = [0, 1].map(() => connect<Warehouse>(database.url, { maxConnections: 2 }));
    try {
      const outcomes = await Promise.all(pools.map((pool) => refreshReporting(pool, { timeZone: ZONE, parallel: true })));
      for (const outcome of outcomes) expect(outcome.skipped).toEqual([]);
    } finally {
      for (const pool of pools) await pool.destroy();
    }
    const { maintained, full } = await bothWays();
    expect(maintained).toEqual(full);
    expect(await dirty()).toEqual([]);
  });
});

describe('migration 0015 on a warehouse of 0014', () => {
  let old: TestDatabase;
  const reader = `propsync_test_groups_${Math.random().toString(16).slice(2, 10)}`;

  /** The reader view and the view behind it as Postgres has them: kind, options, columns with types, indexes, who may read them. */
  async function shape(): Promise<unknown[]> {
    const { rows } = await sql`
      select c.oid::regclass::text as relation, c.relkind::text as kind, c.reloptions::text[] as options,
             array(select a.attname || ' ' || format_type(a.atttypid, a.atttypmod) from pg_attribute a
                    where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as columns,
             array(select pg_get_indexdef(x.indexrelid) from pg_index x where x.indrelid = c.oid order by 1) as indexes,
             array(select distinct pg_get_userbyid(acl.grantee)::text from aclexplode(c.relacl) acl where acl.grantee <> c.relowner order by 1) as readers
        from pg_class c
       where c.oid in ('reporting.ar_activity_monthly'::regclass, 'reporting_private.ar_activity_monthly'::regclass)
       order by 1`.execute(old.db);
    return rows;
  }

  /** Every row of reporting.ar_activity_monthly, as its owner and as the reader limited to account north. */
  async function rows(): Promise<{ owner: unknown[]; reader: unknown[] }> {
    const owner = (await sql.raw(`select * from reporting.ar_activity_monthly ${ORDER}`).execute(old.db)).rows;
    const limited = await old.db.transaction().execute(async (trx) => {
      await sql`set local role ${sql.id(reader)}`.execute(trx);
      return (await sql.raw(`select * from reporting.ar_activity_monthly ${ORDER}`).execute(trx)).rows;
    });
    return { owner, reader: limited };
  }

  beforeAll(async () => {
    old = await createTestDatabase({ migrate: false });
    const migrator = new Migrator({ db: old.db, provider: migrationProvider() });
    expect((await migrator.migrateTo('0014_account_load_costs')).error).toBeUndefined();
    await insertFixture(old.db, 'north');
    await insertFixture(old.db, 'south', SOUTH);
    await sql`insert into accounts (account_id, name) values ('north', 'North Homes'), ('south', 'South Estates')`.execute(old.db);
    await grantReader(old.db, { role: reader, accounts: ['north'] });
    await refreshReporting(old.db, { timeZone: ZONE });
  });
  afterAll(async () => {
    if (old) {
      await sql`drop owned by ${sql.id(reader)}`.execute(old.db).catch(() => {});
      await sql`drop role if exists ${sql.id(reader)}`.execute(old.db);
    }
    await old?.drop();
  });

  it('keeps the columns, types, rows, options and readers of ar_activity_monthly; down makes the materialized view of 0014 again', async () => {
    const before = await shape();
    const rowsBefore = await rows();
    expect(rowsBefore.owner.length).toBeGreaterThan(rowsBefore.reader.length);
    expect(rowsBefore.reader.length).toBeGreaterThan(0);
    expect(before).toEqual([
      expect.objectContaining({ relation: 'reporting.ar_activity_monthly', kind: 'v', options: ['security_barrier=true'], readers: [reader] }),
      expect.objectContaining({ relation: 'reporting_private.ar_activity_monthly', kind: 'm', indexes: [expect.stringContaining('ar_activity_monthly_grain_idx')] }),
    ]);

    const migrator = new Migrator({ db: old.db, provider: migrationProvider() });
    expect((await migrator.migrateTo('0015_ar_activity_groups')).results?.map((result) => result.migrationName)).toEqual(['0015_ar_activity_groups']);
    const [readerView, privateView] = before as { kind: string; indexes: string[] }[];
    expect(await shape()).toEqual([readerView, { ...privateView, kind: 'v', indexes: [] }]);
    expect(await rows()).toEqual(rowsBefore);
    const { rows: comment } = await sql<{ comment: string }>`select obj_description('reporting.ar_activity_monthly'::regclass, 'pg_class') as comment`.execute(old.db);
    expect(comment[0].comment).toMatch(/Maintained group by group: .* refreshed at the end of each sync/);

    expect((await migrator.migrateTo('0014_account_load_costs')).error).toBeUndefined();
    expect(await shape()).toEqual(before);
    expect(await rows()).toEqual(rowsBefore);
    const { rows: left } = await sql`
      select relname from pg_class where relnamespace = 'reporting_private'::regnamespace and relname like 'ar_activity_%' and relkind <> 'i'
      union all select proname from pg_proc where proname like 'note_ar_activity%'
      union all select tgname from pg_trigger where tgname like 'ar_activity%'`.execute(old.db);
    expect(left).toEqual([{ relname: 'ar_activity_monthly' }]);
  });
});
