import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateGroups } from '../../src/reporting/maintained-groups.js';
import { AR_ACTIVITY as MAINTAINED } from '../../src/reporting/definitions/ar-activity-monthly.js';
import type { TestDatabase } from '../support/database.js';
import {
  dropWarehouse,
  maintainedViewTests,
  migrationTests,
  migrator,
  openWarehouse,
  type MaintainedViewCase,
} from './maintained-view-support.js';

/** The sum of one transaction type's amounts. */
const money = (type: number, name: string) =>
  `coalesce(sum(t.amount) filter (where t.transaction_type_id = ${type}), 0)::numeric(14,2) as ${name}`;

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

/** ar_activity_monthly, maintained by migration 0015: its groups are an account's property and post month. */
const AR_ACTIVITY: MaintainedViewCase = {
  view: 'ar_activity_monthly',
  groups: 'ar_activity_groups',
  dirty: 'ar_activity_dirty',
  stem: 'ar_activity',
  // The groups noted dirty, as account/property/month.
  label: `account_id || '/' || property_id || '/' || to_char(post_month, 'YYYY-MM')`,
  order: 'order by account_id, property_id, post_month, ar_code_id',
  full: FULL,
  previousMigration: '0014_account_load_costs',
  update: (trx) => updateGroups(trx, MAINTAINED),
};

let database: TestDatabase;
let nextId = 5000;
const view = maintainedViewTests(AR_ACTIVITY, () => database);
const { dirty, bothWays, expectMaintained } = view;

/** A ledger row of `account`, on property 100 unless said. */
function arRow(
  account: string,
  lease: number,
  postMonth: string | null,
  amount: string,
  extra: Record<string, unknown> = {},
) {
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
  await database.db
    .insertInto('ar_transactions')
    .values(rows as never)
    .execute();
}

/** The sums of one group of an account, by AR code. */
async function group(
  account: string,
  month: string,
  property = 100,
): Promise<{ ar_code_id: number | null; transactions: number; net_amount: string }[]> {
  const { rows } = await sql<{ ar_code_id: number | null; transactions: number; net_amount: string }>`
    select ar_code_id, transactions, net_amount from reporting_private.ar_activity_groups
     where account_id = ${account} and property_id = ${property} and post_month = ${month}::date order by ar_code_id`.execute(
    database.db,
  );
  return rows;
}

beforeAll(async () => {
  database = await openWarehouse();
});
afterAll(() => dropWarehouse(database));

describe('ar_activity_monthly maintained group by group', () => {
  it("is a plain view over the groups, and gives the full query's rows after the migration and a refresh", async () => {
    await view.expectPlainView(10);
  });

  it('sums again the groups of inserted transactions: one it had, one new, one without an AR code', async () => {
    await addAr(
      arRow('north', 1, '2024-06-01', '10.00'),
      arRow('north', 2, '2024-08-01', '20.00'),
      arRow('north', 2, '2024-08-01', '5.00', { ar_code_id: null, ar_code_name: null }),
    );
    expect(await dirty()).toEqual(['north/100/2024-06', 'north/100/2024-08']);
    await expectMaintained();
    expect(await group('north', '2024-08-01')).toEqual([
      { ar_code_id: 101, transactions: 1, net_amount: '20.00' },
      { ar_code_id: null, transactions: 1, net_amount: '5.00' },
    ]);
  });

  it('follows updates: amount, post month moved, reversal, temporary and deleted flags; a group left empty disappears', async () => {
    await sql`update ar_transactions set amount = amount + 1 where account_id = 'north' and ar_transaction_id = 1`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/100/2024-06']);
    await expectMaintained();
    // Transaction 13 is the only one of April: moved to March, April's group is gone.
    expect(await group('north', '2024-04-01')).toHaveLength(1);
    await sql`update ar_transactions set post_month = '2024-03-01' where account_id = 'north' and ar_transaction_id = 13`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/100/2024-03', 'north/100/2024-04']);
    await expectMaintained();
    expect(await group('north', '2024-04-01')).toEqual([]);
    expect(await group('north', '2024-03-01')).toEqual([
      { ar_code_id: 140, transactions: 1, net_amount: '-50.00' },
    ]);
    // The returned payment and its reversal count again once no longer marked reversed; then again not.
    await sql`update ar_transactions set is_reversed = false where account_id = 'north' and ar_transaction_id in (4, 5)`.execute(
      database.db,
    );
    await expectMaintained();
    await sql`update ar_transactions set is_reversed = true where account_id = 'north' and ar_transaction_id in (4, 5)`.execute(
      database.db,
    );
    await sql`update ar_transactions set is_temporary = false where account_id = 'north' and ar_transaction_id = 7`.execute(
      database.db,
    );
    await expectMaintained();
    expect((await group('north', '2024-06-01')).map((row) => row.ar_code_id)).toContain(190);
    await sql`update ar_transactions set is_temporary = true where account_id = 'north' and ar_transaction_id = 7`.execute(
      database.db,
    );
    // Transaction 10 is the only one of May: marked deleted, May's group is gone.
    await sql`update ar_transactions set deleted_at = now() where account_id = 'north' and ar_transaction_id = 10`.execute(
      database.db,
    );
    await expectMaintained();
    expect(await group('north', '2024-05-01')).toEqual([]);
    // A post month cleared leaves the view; a row deleted too.
    await sql`update ar_transactions set post_month = null where account_id = 'north' and ar_transaction_id = 13`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/100/2024-03']);
    await sql`delete from ar_transactions where account_id = 'north' and ar_transaction_id = 9`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/100/2024-02', 'north/100/2024-03']);
    await expectMaintained();
    expect(await group('north', '2024-03-01')).toEqual([]);
  });

  it('drops the groups of a lease marked deleted and brings them back when it is revived; a lease arriving after its transactions brings them in', async () => {
    const before = (await bothWays()).maintained;
    await sql`update leases set unit_number = '101A' where account_id = 'north' and lease_id = 1`.execute(
      database.db,
    );
    expect(await dirty()).toEqual([]);
    await sql`update leases set deleted_at = now() where account_id = 'north' and lease_id = 1`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/100/2024-02', 'north/100/2024-06']);
    await expectMaintained();
    expect(await group('north', '2024-02-01')).toEqual([]);
    // Marked deleted again (another timestamp): nothing changes for the view.
    await sql`update leases set deleted_at = now() + interval '1 day' where account_id = 'north' and lease_id = 1`.execute(
      database.db,
    );
    expect(await dirty()).toEqual([]);
    await sql`update leases set deleted_at = null where account_id = 'north' and lease_id = 1`.execute(
      database.db,
    );
    expect(await expectMaintained()).toEqual(before);

    // Transactions of lease 9 come before the lease: left out until it arrives, then summed.
    await addAr(arRow('north', 9, '2024-09-01', '30.00', { property_id: 200 }));
    await expectMaintained();
    expect(await group('north', '2024-09-01', 200)).toEqual([]);
    await database.db
      .insertInto('leases')
      .values({ account_id: 'north', lease_id: 9, property_id: 200, raw: {} } as never)
      .execute();
    expect(await dirty()).toEqual(['north/200/2024-09']);
    await expectMaintained();
    expect(await group('north', '2024-09-01', 200)).toEqual([
      { ar_code_id: 101, transactions: 1, net_amount: '30.00' },
    ]);
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
      const line = (id: number, month: string, amount: string) =>
        ['south', id, 1, 100, 1, 101, 'South Rent', month, amount, 'f', 'f', '{}'].join('\t');
      const text = `${[line(nextId++, '2024-06-01', '11.00'), line(nextId++, '2024-11-01', '12.00'), line(nextId++, '2024-11-01', '13.00')].join('\n')}\n`;
      await pipeline(
        Readable.from([text]),
        client.query(
          copyFrom(
            'copy ar_transactions (account_id, ar_transaction_id, lease_id, property_id, transaction_type_id, ar_code_id, ar_code_name, post_month, amount, is_temporary, is_reversed, raw) from stdin',
          ),
        ),
      );
    } finally {
      await client.end();
    }
    expect(await dirty()).toEqual(['south/100/2024-06', 'south/100/2024-11']);
    await expectMaintained();
    expect(await group('south', '2024-11-01')).toEqual([
      { ar_code_id: 101, transactions: 2, net_amount: '25.00' },
    ]);
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
    expect(await group('south', '2024-12-01')).toEqual([
      { ar_code_id: 101, transactions: 1, net_amount: '3000.00' },
    ]);
  });

  it("leaves an account's groups untouched when another account changes the same ids", async () => {
    await view.expectOtherAccountUntouched({
      untouched: `account_id = 'north' and property_id = 100 and post_month = '2024-06-01'`,
      sums: async () => (await group('south', '2024-06-01')).map((row) => row.net_amount),
      writes: [
        `update ar_transactions set amount = amount + 100 where account_id = 'south' and ar_transaction_id = 1`,
      ],
      noted: ['south/100/2024-06'],
    });
  });

  it('sums the whole ledger once when most of the groups of a warehouse of hundreds are dirty (as after a full load)', async () => {
    await view.expectWholeSumAfterFullLoad({
      untouched: `account_id = 'north' and property_id = 100 and post_month = '2024-06-01'`,
      // 300 months of a property loaded at once: most groups are new.
      load: [
        `insert into ar_transactions (account_id, ar_transaction_id, lease_id, property_id, transaction_type_id, ar_code_id, ar_code_name, post_month, amount, raw)
         select 'north', 900000 + n, 1, 900, 1 + n % 7, 101, 'Rent', date '2000-01-01' + make_interval(months => n), (n * 1.25)::numeric(14,2), '{}'
           from generate_series(0, 299) n`,
      ],
      groups: 300,
      write: `update ar_transactions set amount = amount + 1 where account_id = 'north' and ar_transaction_id = 900007`,
      noted: ['north/900/2000-08'],
    });
  });

  it('names the account and the property as they are now: a renamed property after the refresh, with no group summed again', async () => {
    await view.expectNamesAsNow(`account_id = 'north' and property_id = 100`);
  });

  it('notes every group after a truncate', async () => {
    await view.expectTruncateNotesAll(['ar_transactions'], 5);
  });
});

describe('ar_activity_monthly updated while others write or update', () => {
  it("waits for a sync's transaction that noted a group, and sums its rows once it commits", async () => {
    await view.expectWaitForNotingSync({
      // June is dirty already.
      dirtyFirst: `update ar_transactions set amount = amount + 1 where account_id = 'north' and ar_transaction_id = 2`,
      writes: [
        `insert into ar_transactions (account_id, ar_transaction_id, lease_id, property_id, transaction_type_id, ar_code_id, ar_code_name, post_month, amount, raw)
         values ('north', ${nextId++}, 2, 100, 1, 101, 'Rent', '2024-06-01', '40.00', '{}'), ('north', ${nextId++}, 2, 100, 1, 101, 'Rent', '2025-01-01', '40.00', '{}')`,
      ],
      expectSummed: async () =>
        expect(await group('north', '2025-01-01')).toEqual([
          { ar_code_id: 101, transactions: 1, net_amount: '40.00' },
        ]),
    });
  });

  it('keeps a group noted while an update is under way for the next one, and skips an update that cannot have its lock', async () => {
    await view.expectNotedDuringUpdate({
      dirtyFirst: `update ar_transactions set amount = amount + 1 where account_id = 'north' and ar_transaction_id = 1`,
      write: `update ar_transactions set amount = amount + 2 where account_id = 'north' and ar_transaction_id = 3`,
      writeWaiting: 'update ar_transactions%',
      noted: ['north/100/2024-06'],
    });
  });

  it('two processes updating at once take turns: no group doubled, none lost', async () => {
    await view.expectTurnsTaken(
      `update ar_transactions set amount = amount + 1 where account_id in ('north', 'south') and ar_transaction_id in (1, 2, 3)`,
    );
  });
});

describe('migration 0015 on a warehouse of 0014', () => {
  const migration = migrationTests(AR_ACTIVITY, 'propsync_test_groups');
  beforeAll(() => migration.open());
  afterAll(() => migration.close());

  it('keeps the columns, types, rows, options and readers of ar_activity_monthly; down makes the materialized view of 0014 again', async () => {
    const before = await migration.expectMaterialized();
    expect(
      (await migrator(migration.db()).migrateTo('0015_ar_activity_groups')).results?.map(
        (result) => result.migrationName,
      ),
    ).toEqual(['0015_ar_activity_groups']);
    await migration.expectMaintainedAfterUp(before);
    await migration.expectMaterializedAfterDown(before);
  });
});
