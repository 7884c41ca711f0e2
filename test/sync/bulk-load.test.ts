import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  markMissingChildren,
  upsertRows,
  upsertStaged,
  type LoadRow,
} from '../../src/warehouse/bulk-load/index.js';
import { AR_TRANSACTIONS, LEASES } from '../../src/streams/leases/tables.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

function lease(id: number, status: number, extra: Partial<LoadRow> = {}): LoadRow {
  return {
    ...Object.fromEntries(Object.keys(LEASES.columns).map((column) => [column, null])),
    lease_id: id,
    property_id: 100001,
    lease_status_type_id: status,
    is_other_income: false,
    move_in_date: '2025-03-01',
    raw: { id: String(id), leaseStatusTypeId: String(status) },
    ...extra,
  } as LoadRow;
}

function ar(id: number, leaseId: number, amount: string): LoadRow {
  return {
    ...Object.fromEntries(Object.keys(AR_TRANSACTIONS.columns).map((column) => [column, null])),
    ar_transaction_id: id,
    lease_id: leaseId,
    property_id: 100001,
    amount,
    post_month: '2025-03-01',
    raw: { id, amount },
  } as LoadRow;
}

const versions = async () =>
  (
    await sql<{
      lease_id: number;
      xmin: string;
    }>`select lease_id, xmin::text as xmin from leases order by lease_id`.execute(t.db)
  ).rows;

describe('set-based upsert', () => {
  it('inserts new rows, leaves identical rows unwritten, and updates only what changed', async () => {
    expect(
      await upsertRows(t.db, LEASES, [lease(1, 4), lease(2, 4), lease(3, 1)], 7, { account: 'default' }),
    ).toEqual({ inserted: 3, updated: 0, unchanged: 0 });
    const before = await versions();

    expect(
      await upsertRows(t.db, LEASES, [lease(1, 4), lease(2, 4), lease(3, 1)], 8, { account: 'default' }),
    ).toEqual({ inserted: 0, updated: 0, unchanged: 3 });
    // No new row version at all for unchanged rows.
    expect(await versions()).toEqual(before);

    expect(
      await upsertRows(
        t.db,
        LEASES,
        [lease(1, 4), lease(2, 5, { raw: { id: '2', leaseStatusTypeId: '5' } }), lease(3, 1)],
        9,
        { account: 'default' },
      ),
    ).toEqual({
      inserted: 0,
      updated: 1,
      unchanged: 2,
    });
    const rows = await t.db
      .selectFrom('leases')
      .select(['lease_id', 'lease_status_type_id', 'last_run_id'])
      .orderBy('lease_id')
      .execute();
    expect(rows).toEqual([
      { lease_id: 1, lease_status_type_id: 4, last_run_id: 7 },
      { lease_id: 2, lease_status_type_id: 5, last_run_id: 9 },
      { lease_id: 3, lease_status_type_id: 1, last_run_id: 7 },
    ]);
  });

  it('keeps the last row of a key that a batch holds twice', async () => {
    const counts = await upsertRows(
      t.db,
      LEASES,
      [lease(10, 1), lease(10, 4, { raw: { id: '10', v: 2 } })],
      1,
      { account: 'default' },
    );
    expect(counts).toEqual({ inserted: 1, updated: 0, unchanged: 0 });
    const row = await t.db
      .selectFrom('leases')
      .select('lease_status_type_id')
      .where('lease_id', '=', 10)
      .executeTakeFirstOrThrow();
    expect(row.lease_status_type_id).toBe(4);
  });

  it('keeps money exact to the cent', async () => {
    await upsertRows(
      t.db,
      AR_TRANSACTIONS,
      [ar(100, 1, '0.10'), ar(101, 1, '0.20'), ar(102, 1, '-1234567.89'), ar(103, 1, '1470')],
      1,
      { account: 'default' },
    );
    const { rows } = await sql<{
      total: string;
    }>`select sum(amount)::text as total from ar_transactions where lease_id = 1`.execute(t.db);
    expect(rows[0].total).toBe('-1233097.59');
  });

  it('marks the children a parent no longer lists as deleted, and revives them when they come back', async () => {
    await upsertRows(
      t.db,
      AR_TRANSACTIONS,
      [ar(200, 50, '10.00'), ar(201, 50, '20.00'), ar(300, 60, '5.00')],
      1,
      { account: 'default' },
    );
    const kept = [ar(200, 50, '10.00')];
    await upsertRows(t.db, AR_TRANSACTIONS, kept, 2, { account: 'default' });
    expect(await markMissingChildren(t.db, AR_TRANSACTIONS, [50], kept, 2, 'default')).toBe(1);
    const deleted = await t.db
      .selectFrom('ar_transactions')
      .select(['ar_transaction_id'])
      .where('deleted_at', 'is not', null)
      .orderBy('ar_transaction_id')
      .execute();
    expect(deleted.map((row) => row.ar_transaction_id)).toEqual([201]);
    // Another parent's rows are never touched, and rows are never removed.
    expect(
      await t.db
        .selectFrom('ar_transactions')
        .select('ar_transaction_id')
        .where('lease_id', '=', 60)
        .execute(),
    ).toHaveLength(1);

    const back = await upsertRows(t.db, AR_TRANSACTIONS, [ar(200, 50, '10.00'), ar(201, 50, '20.00')], 3, {
      account: 'default',
    });
    expect(back).toEqual({ inserted: 0, updated: 1, unchanged: 1 });
    const revived = await t.db
      .selectFrom('ar_transactions')
      .select(['deleted_at', 'last_run_id'])
      .where('ar_transaction_id', '=', 201)
      .executeTakeFirstOrThrow();
    expect(revived).toEqual({ deleted_at: null, last_run_id: 3 });
  });

  it('stages several tables and merges them in one statement, marking deleted the children their parents no longer list', async () => {
    await upsertRows(t.db, LEASES, [lease(70, 4), lease(71, 4), lease(80, 4)], 1, { account: 'default' });
    await upsertRows(
      t.db,
      AR_TRANSACTIONS,
      [ar(700, 70, '1.00'), ar(701, 70, '2.00'), ar(702, 71, '3.00'), ar(800, 80, '4.00')],
      1,
      { account: 'default' },
    );
    await t.db.transaction().execute(async (trx) => {
      const statements: string[] = [];
      const counted = trx.withPlugin({
        transformQuery: (args) => (statements.push(args.node.kind), args.node),
        transformResult: async (args) => args.result,
      });
      // Lease 70 changes, keeps 700 (changed) and adds 703; lease 71 lists nothing any more; lease 80 is not
      // among the parents.
      const counts = await upsertStaged(
        counted,
        [
          { spec: LEASES, rows: [lease(70, 5), lease(71, 4)] },
          { spec: AR_TRANSACTIONS, rows: [ar(700, 70, '1.50'), ar(703, 70, '5.00')], parents: [70, 71] },
        ],
        4,
        'default',
      );
      expect(counts).toEqual([
        { inserted: 0, updated: 1, unchanged: 1 },
        { inserted: 1, updated: 1, unchanged: 0, deleted: 2 },
      ]);
      // Rows this few travel in the statement: one round trip merges and marks.
      expect(statements, 'one statement that merges and marks').toHaveLength(1);
    });
    const rows = await t.db
      .selectFrom('ar_transactions')
      .select(['ar_transaction_id', 'amount', 'deleted_at', 'last_run_id'])
      .where('lease_id', 'in', [70, 71, 80])
      .orderBy('ar_transaction_id')
      .execute();
    expect(
      rows.map((row) => [row.ar_transaction_id, row.amount, row.deleted_at !== null, row.last_run_id]),
    ).toEqual([
      [700, '1.50', false, 4],
      [701, '2.00', true, 4],
      [702, '3.00', true, 4],
      [703, '5.00', false, 4],
      [800, '4.00', false, 1],
    ]);
    expect(
      (
        await t.db
          .selectFrom('leases')
          .select('lease_status_type_id')
          .where('lease_id', '=', 70)
          .executeTakeFirstOrThrow()
      ).lease_status_type_id,
    ).toBe(5);
    // No rows at all: every child of the parents is marked.
    await t.db.transaction().execute(async (trx) => {
      expect(
        await upsertStaged(trx, [{ spec: AR_TRANSACTIONS, rows: [], parents: [70] }], 5, 'default'),
      ).toEqual([{ inserted: 0, updated: 0, unchanged: 0, deleted: 2 }]);
    });
    expect(await upsertRows(t.db, AR_TRANSACTIONS, [], 6, { account: 'default', parents: [80] })).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: 0,
      deleted: 1,
    });
  });

  it('loads text and the raw record exactly, whatever characters they hold', async () => {
    const awkward = 'back\\slash, tab\tnew\nline\r\ncr, quote " and \\N, \u00e9\u2019';
    const raw = { id: '90', propertyName: awkward, nested: { list: ['a\\b', 'c\td'] } };
    expect(
      await upsertRows(t.db, LEASES, [lease(90, 4, { property_name: awkward, lease_status: '', raw })], 11, {
        account: 'default',
      }),
    ).toEqual({ inserted: 1, updated: 0, unchanged: 0 });
    const row = await t.db
      .selectFrom('leases')
      .select(['property_name', 'lease_status', 'lease_type', 'raw'])
      .where('lease_id', '=', 90)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ property_name: awkward, lease_status: '', lease_type: null, raw });
    expect(
      await upsertRows(t.db, LEASES, [lease(90, 4, { property_name: awkward, lease_status: '', raw })], 12, {
        account: 'default',
      }),
    ).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
  });
});

describe('rows in the merge statement or through staging', () => {
  it('writes the same values either way, whatever characters, numbers and days they hold, and rewrites none of them after', async () => {
    const awkward =
      'back\\slash, tab\tnew\nline\r\ncr, quote " and \\N, {braces}, [brackets], \u00e9\u2019\u{1F600}';
    const raw = {
      id: '1',
      name: awkward,
      nested: { list: ['a\\b', 'c\td', null, 1e21, -0.5, true], empty: {} },
      big: 9007199254740991,
    };
    const page = (filler: number) => ({
      leases: [
        lease(1, 4, {
          property_name: awkward,
          lease_status: '',
          is_month_to_month: true,
          move_in_date: '2024-02-29',
          raw,
        }),
        lease(2, 5, {
          property_name: '\\N',
          lease_status: 'NULL',
          is_month_to_month: false,
          move_in_date: '1999-12-31',
          raw: ['a list', 2],
        }),
        ...Array.from({ length: filler }, (_, index) => lease(1000 + index, 4)),
      ],
      ar: [
        ar(10, 1, '0.10'),
        ar(11, 1, '-1234567.89'),
        ar(12, 1, '1470'),
        ar(13, 2, '12.5'),
        ar(14, 2, '-0'),
      ],
    });
    // Rows this few go in the statement (one round trip); with 300 more they go through staging.
    for (const [account, filler, statementCount] of [
      ['inline', 0, 1],
      ['staged', 300, 2],
    ] as const) {
      const { leases, ar: charges } = page(filler);
      // Written the first time, found unchanged the second.
      for (const first of [true, false]) {
        const counts = (rows: number) => ({
          inserted: first ? rows : 0,
          updated: 0,
          unchanged: first ? 0 : rows,
        });
        await t.db.transaction().execute(async (trx) => {
          const statements: string[] = [];
          const counted = trx.withPlugin({
            transformQuery: (args) => (statements.push(args.node.kind), args.node),
            transformResult: async (args) => args.result,
          });
          const [leaseCounts, arCounts] = await upsertStaged(
            counted,
            [
              { spec: LEASES, rows: leases },
              { spec: AR_TRANSACTIONS, rows: charges, parents: [1, 2] },
            ],
            21,
            account,
          );
          expect(leaseCounts, account).toEqual(counts(leases.length));
          expect(arCounts, account).toEqual({ ...counts(charges.length), deleted: 0 });
          // Besides the COPYs, which kysely's plugins do not see.
          expect(statements, account).toHaveLength(statementCount);
        });
      }
    }
    const loaded = async (account: string) => ({
      leases: await t.db
        .selectFrom('leases')
        .select([
          'lease_id',
          'property_name',
          'lease_status',
          'lease_type',
          'is_month_to_month',
          'move_in_date',
          'raw',
          'last_run_id',
        ])
        .where('account_id', '=', account)
        .where('lease_id', '<', 1000)
        .orderBy('lease_id')
        .execute(),
      ar: await t.db
        .selectFrom('ar_transactions')
        .select(['ar_transaction_id', 'lease_id', 'amount', 'post_month', 'raw'])
        .where('account_id', '=', account)
        .orderBy('ar_transaction_id')
        .execute(),
    });
    const inline = await loaded('inline');
    expect(inline.leases[0]).toMatchObject({
      property_name: awkward,
      lease_status: '',
      lease_type: null,
      is_month_to_month: true,
      move_in_date: '2024-02-29',
      raw,
    });
    expect(inline.leases[1]).toMatchObject({
      property_name: '\\N',
      lease_status: 'NULL',
      is_month_to_month: false,
      raw: ['a list', 2],
    });
    expect(inline.ar.map((row) => row.amount)).toEqual(['0.10', '-1234567.89', '1470.00', '12.50', '0.00']);
    expect(await loaded('staged')).toEqual(inline);
  });
});

describe('rows expected to be new (copied straight in)', () => {
  it('copies new rows into the table with the run, exactly as a merge writes them', async () => {
    const awkward = 'tab\there, back\\slash, new\nline';
    const rows = [
      lease(500, 4, { property_name: awkward, raw: { id: '500', note: awkward } }),
      lease(501, 1),
    ];
    expect(await upsertRows(t.db, LEASES, rows, 21, { account: 'default', fresh: true })).toEqual({
      inserted: 2,
      updated: 0,
      unchanged: 0,
    });
    const stored = await t.db
      .selectFrom('leases')
      .select(['lease_id', 'property_name', 'raw', 'last_run_id', 'deleted_at'])
      .where('lease_id', 'in', [500, 501])
      .orderBy('lease_id')
      .execute();
    expect(stored).toEqual([
      {
        lease_id: 500,
        property_name: awkward,
        raw: { id: '500', note: awkward },
        last_run_id: 21,
        deleted_at: null,
      },
      {
        lease_id: 501,
        property_name: null,
        raw: { id: '501', leaseStatusTypeId: '1' },
        last_run_id: 21,
        deleted_at: null,
      },
    ]);
  });

  it('copies rows of any size and script exactly, across chunks and past the first buffer', async () => {
    // Short and long values, ASCII and not (accents, a surrogate pair), escapes at either end;
    // 1,200 rows of about 1 kB: several chunks, each outgrowing its first buffer.
    const texts = [
      'é',
      'naïve café',
      '\u{1F600}',
      '\\N',
      'tab\t',
      `${'x'.repeat(23)}é`,
      `${'long text, '.repeat(80)}\u2019\u{1F600}\\end`,
      '\n'.repeat(30),
    ];
    const rows = Array.from({ length: 1200 }, (_, index) => {
      const text = texts[index % texts.length];
      return lease(20_000 + index, 4, {
        property_name: text,
        unit_number: String(index),
        raw: { id: String(20_000 + index), note: text, filler: 'f'.repeat(900) },
      });
    });
    expect(await upsertRows(t.db, LEASES, rows, 22, { account: 'chunks', fresh: true })).toEqual({
      inserted: 1200,
      updated: 0,
      unchanged: 0,
    });
    const stored = await t.db
      .selectFrom('leases')
      .select(['lease_id', 'property_name', 'unit_number', 'raw'])
      .where('account_id', '=', 'chunks')
      .orderBy('lease_id')
      .execute();
    expect(stored).toEqual(
      rows.map(({ lease_id, property_name, unit_number, raw }) => ({
        lease_id,
        property_name,
        unit_number,
        raw,
      })),
    );
  });

  it('merges instead when a key is there after all: nothing doubled, an unchanged row not rewritten, a deleted row revived', async () => {
    await upsertRows(t.db, LEASES, [lease(510, 4), lease(511, 4)], 30, { account: 'default' });
    await sql`update leases set deleted_at = now() where lease_id = 511`.execute(t.db);
    const before = (
      await sql<{ xmin: string }>`select xmin::text as xmin from leases where lease_id = 510`.execute(t.db)
    ).rows[0].xmin;

    const counts = await upsertRows(
      t.db,
      LEASES,
      [lease(509, 1), lease(510, 4), lease(511, 4), lease(512, 5)],
      31,
      { account: 'default', fresh: true },
    );
    expect(counts).toEqual({ inserted: 2, updated: 1, unchanged: 1 });
    const stored = await t.db
      .selectFrom('leases')
      .select(['lease_id', 'deleted_at', 'last_run_id'])
      .where('lease_id', '>=', 509)
      .where('lease_id', '<=', 512)
      .orderBy('lease_id')
      .execute();
    expect(stored).toEqual([
      { lease_id: 509, deleted_at: null, last_run_id: 31 },
      { lease_id: 510, deleted_at: null, last_run_id: 30 },
      { lease_id: 511, deleted_at: null, last_run_id: 31 },
      { lease_id: 512, deleted_at: null, last_run_id: 31 },
    ]);
    expect(
      (await sql<{ xmin: string }>`select xmin::text as xmin from leases where lease_id = 510`.execute(t.db))
        .rows[0].xmin,
    ).toBe(before);
  });

  it('leaves the transaction usable after a copy that met a key already there', async () => {
    await upsertRows(t.db, LEASES, [lease(520, 4)], 40, { account: 'default' });
    await t.db.transaction().execute(async (trx) => {
      expect(
        await upsertRows(trx, LEASES, [lease(520, 5), lease(521, 4)], 41, {
          account: 'default',
          fresh: true,
        }),
      ).toEqual({ inserted: 1, updated: 1, unchanged: 0 });
      expect(await upsertRows(trx, LEASES, [lease(522, 4)], 41, { account: 'default', fresh: true })).toEqual(
        { inserted: 1, updated: 0, unchanged: 0 },
      );
    });
    const ids = await t.db
      .selectFrom('leases')
      .select('lease_id')
      .where('last_run_id', '=', 41)
      .orderBy('lease_id')
      .execute();
    expect(ids.map((row) => row.lease_id)).toEqual([520, 521, 522]);
  });

  it('still refuses a value Postgres cannot hold', async () => {
    const bad = lease(530, 4, { move_in_date: 'not a day' });
    await expect(
      upsertRows(t.db, LEASES, [bad], 50, { account: 'default', fresh: true }),
    ).rejects.toMatchObject({ code: '22007' });
    expect(await t.db.selectFrom('leases').select('lease_id').where('lease_id', '=', 530).execute()).toEqual(
      [],
    );
  });
});

describe('accounts', () => {
  it("writes each account's rows under its own key: the same ids of another account are new rows, and neither is touched by the other's loads", async () => {
    const mine = async () =>
      t.db
        .selectFrom('leases')
        .select(['lease_id', 'lease_status_type_id', 'last_run_id'])
        .where('account_id', '=', 'default')
        .where('lease_id', 'in', [1, 2, 3])
        .orderBy('lease_id')
        .execute();
    const before = await mine();
    expect(before).toHaveLength(3);
    // Leases 1, 2 and 3 of account `other`, with another status: inserted, not merged into `default`'s.
    expect(
      await upsertRows(t.db, LEASES, [lease(1, 6), lease(2, 6), lease(3, 6)], 60, {
        account: 'other',
        fresh: true,
      }),
    ).toEqual({ inserted: 3, updated: 0, unchanged: 0 });
    expect(
      await upsertRows(t.db, LEASES, [lease(1, 6), lease(2, 6), lease(3, 6)], 61, { account: 'other' }),
    ).toEqual({ inserted: 0, updated: 0, unchanged: 3 });
    expect(await mine()).toEqual(before);
    const theirs = await t.db
      .selectFrom('leases')
      .select(['lease_id', 'lease_status_type_id', 'last_run_id'])
      .where('account_id', '=', 'other')
      .orderBy('lease_id')
      .execute();
    expect(theirs).toEqual(
      [1, 2, 3].map((id) => ({ lease_id: id, lease_status_type_id: 6, last_run_id: 60 })),
    );

    // A parent of `other` that no longer lists a child marks only `other`'s child deleted.
    await upsertRows(t.db, AR_TRANSACTIONS, [ar(200, 50, '10.00'), ar(201, 50, '20.00')], 62, {
      account: 'other',
    });
    expect(await markMissingChildren(t.db, AR_TRANSACTIONS, [50], [ar(201, 50, '20.00')], 63, 'other')).toBe(
      1,
    );
    const children = await t.db
      .selectFrom('ar_transactions')
      .select(['account_id', 'deleted_at'])
      .where('ar_transaction_id', '=', 200)
      .orderBy('account_id')
      .execute();
    expect(children.map((row) => [row.account_id, row.deleted_at === null])).toEqual([
      ['default', true],
      ['other', false],
    ]);
  });
});

describe('column types', () => {
  it('reads bigint and bigint[] as numbers, numeric as exact strings, dates as days', async () => {
    const { rows } = await sql<{ id: number; ids: number[]; money: string; day: string }>`
      select 9007199254740991::bigint as id, array[1, 2, null]::bigint[] as ids, 1234.50::numeric(14,2) as money, '2026-03-08'::date as day`.execute(
      t.db,
    );
    expect(rows[0]).toEqual({ id: 9007199254740991, ids: [1, 2, null], money: '1234.50', day: '2026-03-08' });
  });
});
