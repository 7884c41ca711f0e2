import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshReporting } from '../../src/reporting/refresh.js';
import { updateGroups } from '../../src/reporting/maintained-groups.js';
import { VENDOR_SPEND as MAINTAINED } from '../../src/reporting/definitions/vendor-spend-monthly.js';
import type { Db } from '../../src/catalog/tables.js';
import { waitFor } from '../cli/support.js';
import type { TestDatabase } from '../support/database.js';
import {
  dropWarehouse,
  maintainedViewTests,
  migrationTests,
  migrator,
  openWarehouse,
  REFRESHED,
  ZONE,
  type MaintainedViewCase,
} from './maintained-view-support.js';

/**
 * vendor_spend_monthly summed whole: every line posted, invoices and credit memos alike (a credit
 * that names the invoice it adjusts leaves that invoice counted: issue 43), then named.
 */
const FULL = `
  with spend as (
    select i.account_id, i.invoice_id, i.post_month, i.vendor_id, i.vendor_name, i.invoice_type_id
      from public.invoices i
     where i.deleted_at is null and i.post_month is not null
       and i.invoice_type_id is distinct from 20
  ),
  totals as (
    select s.account_id, s.post_month, s.vendor_id, max(s.vendor_name) as vendor_name, li.property_id,
           count(distinct s.invoice_id) filter (where s.invoice_type_id is distinct from 12)::int as invoices,
           count(distinct s.invoice_id) filter (where s.invoice_type_id = 12)::int as credit_memos,
           coalesce(sum(li.amount), 0)::numeric(14,2) as amount,
           coalesce(sum(li.amount) filter (where s.invoice_type_id = 12), 0)::numeric(14,2) as credit_memo_amount
      from spend s
      join public.invoice_line_items li on li.account_id = s.account_id and li.invoice_id = s.invoice_id and li.deleted_at is null
     group by s.post_month, s.vendor_id, li.property_id, s.account_id
  )
  select g.account_id, a.name as account_name, g.post_month, g.vendor_id, g.vendor_name, g.property_id, p.property_name,
         g.invoices, g.credit_memos, g.amount, g.credit_memo_amount
    from totals g
    left join public.accounts a on a.account_id = g.account_id
    left join reporting_private.properties p on p.account_id = g.account_id and p.property_id = g.property_id`;

/** vendor_spend_monthly, maintained by migration 0016: its groups are an account's post month. */
const VENDOR_SPEND: MaintainedViewCase = {
  view: 'vendor_spend_monthly',
  groups: 'vendor_spend_groups',
  dirty: 'vendor_spend_dirty',
  stem: 'vendor_spend',
  // The groups noted dirty, as account/month.
  label: `account_id || '/' || to_char(post_month, 'YYYY-MM')`,
  order: 'order by account_id, post_month, vendor_id, property_id',
  full: FULL,
  previousMigration: '0015_ar_activity_groups',
  update: (trx) => updateGroups(trx, MAINTAINED),
};

let database: TestDatabase;
let nextId = 5000;
const view = maintainedViewTests(VENDOR_SPEND, () => database);
const { dirty, bothWays, expectMaintained, session, waitingOn } = view;

/** An invoice of `account`, a standard one of vendor 501 unless said. */
function invoiceRow(account: string, postMonth: string | null, extra: Record<string, unknown> = {}) {
  return {
    account_id: account,
    invoice_id: nextId++,
    invoice_type_id: 5,
    vendor_id: 501,
    vendor_name: 'Acme Plumbing',
    post_month: postMonth,
    amount: '0.00',
    amount_due: '0.00',
    raw: {},
    ...extra,
  };
}

/** A line of an invoice, on property 100 unless said. */
function lineRow(account: string, invoice: number, amount: string, extra: Record<string, unknown> = {}) {
  return {
    account_id: account,
    line_item_id: nextId++,
    invoice_id: invoice,
    property_id: 100,
    amount,
    raw: {},
    ...extra,
  };
}

/** Inserts an invoice and its lines of the amounts given, in two statements as a sync does; returns its id. */
async function addInvoice(
  account: string,
  postMonth: string,
  amounts: string[],
  extra: Record<string, unknown> = {},
  lineExtra: Record<string, unknown> = {},
): Promise<number> {
  const invoice = invoiceRow(account, postMonth, extra);
  await database.db
    .insertInto('invoices')
    .values(invoice as never)
    .execute();
  if (amounts.length)
    await database.db
      .insertInto('invoice_line_items')
      .values(amounts.map((amount) => lineRow(account, invoice.invoice_id, amount, lineExtra)) as never)
      .execute();
  return invoice.invoice_id;
}

interface Spend {
  vendor_id: number | null;
  vendor_name: string | null;
  property_id: number | null;
  invoices: number;
  credit_memos: number;
  amount: string;
}

/** The sums of one month of an account, by vendor and property. */
async function month(account: string, postMonth: string): Promise<Spend[]> {
  const { rows } = await sql<Spend>`
    select vendor_id, vendor_name, property_id, invoices, credit_memos, amount from reporting_private.vendor_spend_groups
     where account_id = ${account} and post_month = ${postMonth}::date order by vendor_id, property_id`.execute(
    database.db,
  );
  return rows;
}

/** The row versions of north's June groups: the same ones when those groups were not summed again. */
const NORTH_JUNE = `account_id = 'north' and post_month = '2024-06-01'`;
const northJuneVersions = view.rowVersions(NORTH_JUNE);

beforeAll(async () => {
  database = await openWarehouse();
});
afterAll(() => dropWarehouse(database));

describe('vendor_spend_monthly maintained group by group', () => {
  it("is a plain view over the groups, and gives the full query's rows after the migration and a refresh", async () => {
    await view.expectPlainView(5);
    // North's invoice 4 is reversed in full by 5, south's 5 names no invoice: both net to zero by their amounts.
    expect(await month('north', '2024-06-01')).toContainEqual({
      vendor_id: 502,
      vendor_name: 'Bright Electric',
      property_id: 100,
      invoices: 1,
      credit_memos: 1,
      amount: '0.00',
    });
    expect(await month('south', '2024-06-01')).toContainEqual({
      vendor_id: 502,
      vendor_name: 'South Bright Electric',
      property_id: 100,
      invoices: 1,
      credit_memos: 1,
      amount: '0.00',
    });
  });

  it('sums again the months of inserted invoices and lines: one it had, one new, one without a vendor nor a property', async () => {
    await addInvoice('north', '2024-06-01', ['10.00', '5.00']);
    await addInvoice(
      'north',
      '2024-08-01',
      ['20.00'],
      { vendor_id: null, vendor_name: null },
      { property_id: null },
    );
    expect(await dirty()).toEqual(['north/2024-06', 'north/2024-08']);
    await expectMaintained();
    expect(await month('north', '2024-08-01')).toEqual([
      {
        vendor_id: null,
        vendor_name: null,
        property_id: null,
        invoices: 1,
        credit_memos: 0,
        amount: '20.00',
      },
    ]);
  });

  it('notes nothing for an update of what is due or paid, nor takes a lock an update of the groups would wait for', async () => {
    await database.db.transaction().execute(async (trx) => {
      await sql`update invoices set amount_due = 0, is_on_hold = true, last_synced_at = now() where account_id = 'north' and invoice_id in (1, 2, 7, 8)`.execute(
        trx,
      );
      await sql`update invoice_line_items set raw = '{"memo": "x"}', last_synced_at = now() where account_id = 'north' and line_item_id in (1, 3)`.execute(
        trx,
      );
      const { rows } = await sql`
        select 1 from pg_locks where pid = pg_backend_pid() and relation = 'reporting_private.vendor_spend_dirty'::regclass`.execute(
        trx,
      );
      expect(rows).toEqual([]);
    });
    expect(await dirty()).toEqual([]);
  });

  it('follows the lines: amount, property, moved to another invoice, marked deleted and revived, deleted', async () => {
    // Line 8 is invoice 7's (May), line 1 invoice 1's (June).
    await sql`update invoice_line_items set amount = amount + 1 where account_id = 'north' and line_item_id = 8`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/2024-05']);
    await expectMaintained();
    expect(await month('north', '2024-05-01')).toEqual([
      {
        vendor_id: 501,
        vendor_name: 'Acme Plumbing',
        property_id: 100,
        invoices: 1,
        credit_memos: 0,
        amount: '251.00',
      },
    ]);
    await sql`update invoice_line_items set property_id = 200 where account_id = 'north' and line_item_id = 8`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/2024-05']);
    await expectMaintained();
    expect((await month('north', '2024-05-01')).map((row) => row.property_id)).toEqual([200]);
    // Moved to invoice 8 (July): both months.
    await sql`update invoice_line_items set invoice_id = 8 where account_id = 'north' and line_item_id = 8`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/2024-05', 'north/2024-07']);
    await expectMaintained();
    expect(await month('north', '2024-05-01')).toEqual([]);
    await sql`update invoice_line_items set invoice_id = 7 where account_id = 'north' and line_item_id = 8`.execute(
      database.db,
    );
    await expectMaintained();
    // Marked deleted (the source no longer lists it), again with another time (nothing changes), revived.
    await sql`update invoice_line_items set deleted_at = now() where account_id = 'north' and line_item_id = 8`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/2024-05']);
    await expectMaintained();
    expect(await month('north', '2024-05-01')).toEqual([]);
    await sql`update invoice_line_items set deleted_at = now() + interval '1 day' where account_id = 'north' and line_item_id = 8`.execute(
      database.db,
    );
    expect(await dirty()).toEqual([]);
    await sql`update invoice_line_items set deleted_at = null where account_id = 'north' and line_item_id = 8`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/2024-05']);
    await expectMaintained();
    // Line 9 of May was marked deleted: deleting it changes nothing; deleting line 2 (June, property 200) does.
    await sql`delete from invoice_line_items where account_id = 'north' and line_item_id = 9`.execute(
      database.db,
    );
    expect(await dirty()).toEqual([]);
    await sql`delete from invoice_line_items where account_id = 'north' and line_item_id = 2`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/2024-06']);
    await expectMaintained();
    expect((await month('north', '2024-06-01')).map((row) => row.property_id)).not.toContain(200);
  });

  it('follows the invoices: post month moved, vendor and its name changed, type changed to credit memo and to customer refund, marked deleted', async () => {
    // Invoice 7 is the only one of May: moved to March, May's group is gone.
    await sql`update invoices set post_month = '2024-03-01' where account_id = 'north' and invoice_id = 7`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/2024-03', 'north/2024-05']);
    await expectMaintained();
    expect(await month('north', '2024-05-01')).toEqual([]);
    expect(await month('north', '2024-03-01')).toEqual([
      {
        vendor_id: 501,
        vendor_name: 'Acme Plumbing',
        property_id: 200,
        invoices: 1,
        credit_memos: 0,
        amount: '251.00',
      },
    ]);
    // A post month cleared leaves the view.
    await sql`update invoices set post_month = null where account_id = 'north' and invoice_id = 7`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/2024-03']);
    await expectMaintained();
    expect(await month('north', '2024-03-01')).toEqual([]);

    await sql`update invoices set vendor_id = 503 where account_id = 'north' and invoice_id = 8`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/2024-07']);
    await expectMaintained();
    expect((await month('north', '2024-07-01')).map((row) => row.vendor_id)).toEqual([503]);
    await sql`update invoices set vendor_name = 'Bright Electric Co' where account_id = 'north' and invoice_id = 8`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/2024-07']);
    await expectMaintained();
    expect((await month('north', '2024-07-01')).map((row) => row.vendor_name)).toEqual([
      'Bright Electric Co',
    ]);

    // Invoice 1 becomes a credit memo, then a refund to a resident (no longer spend), then a standard invoice again.
    await sql`update invoices set invoice_type_id = 12 where account_id = 'north' and invoice_id = 1`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/2024-06']);
    await expectMaintained();
    expect(
      (await month('north', '2024-06-01')).find((row) => row.vendor_id === 501 && row.property_id === 100)
        ?.credit_memos,
    ).toBe(2);
    await sql`update invoices set invoice_type_id = 20 where account_id = 'north' and invoice_id = 1`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/2024-06']);
    await expectMaintained();
    expect(
      (await month('north', '2024-06-01')).find((row) => row.vendor_id === 501 && row.property_id === 100)
        ?.credit_memos,
    ).toBe(1);
    await sql`update invoices set invoice_type_id = 5 where account_id = 'north' and invoice_id = 1`.execute(
      database.db,
    );
    await expectMaintained();

    // Invoice 8 marked deleted: July's group is gone; again with another time, nothing; revived, back.
    await sql`update invoices set deleted_at = now() where account_id = 'north' and invoice_id = 8`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/2024-07']);
    await expectMaintained();
    expect(await month('north', '2024-07-01')).toEqual([]);
    await sql`update invoices set deleted_at = now() + interval '1 day' where account_id = 'north' and invoice_id = 8`.execute(
      database.db,
    );
    expect(await dirty()).toEqual([]);
    await sql`update invoices set deleted_at = null where account_id = 'north' and invoice_id = 8`.execute(
      database.db,
    );
    await expectMaintained();
    expect(await month('north', '2024-07-01')).toHaveLength(1);
  });

  it('counts a credit memo that names an earlier invoice by its own amounts, in its own month; the invoice stays counted', async () => {
    // Invoice 8 (July) is credited by a credit memo posted in August that names it.
    const credit = await addInvoice(
      'north',
      '2024-08-01',
      ['-60.00'],
      { invoice_type_id: 12, vendor_id: 503, reversal_invoice_id: 8 },
      { property_id: 200 },
    );
    expect(await dirty()).toEqual(['north/2024-07', 'north/2024-08']);
    await expectMaintained();
    expect(await month('north', '2024-07-01')).toHaveLength(1);
    expect((await month('north', '2024-08-01')).map((row) => row.amount)).toEqual(['-60.00', '20.00']);
    // The credit marked deleted: August without it, July as it was.
    await sql`update invoices set deleted_at = now() where account_id = 'north' and invoice_id = ${credit}`.execute(
      database.db,
    );
    await expectMaintained();
    expect(await month('north', '2024-07-01')).toHaveLength(1);
    expect((await month('north', '2024-08-01')).map((row) => row.amount)).toEqual(['20.00']);
    // Revived, then naming no invoice: the same sums as naming one.
    await sql`update invoices set deleted_at = null where account_id = 'north' and invoice_id = ${credit}`.execute(
      database.db,
    );
    await expectMaintained();
    const named = await month('north', '2024-08-01');
    await sql`update invoices set reversal_invoice_id = null where account_id = 'north' and invoice_id = ${credit}`.execute(
      database.db,
    );
    await expectMaintained();
    expect(await month('north', '2024-08-01')).toEqual(named);
    await sql`delete from invoices where account_id = 'north' and invoice_id = ${credit}`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['north/2024-08']);
    await expectMaintained();
    expect(await month('north', '2024-07-01')).toHaveLength(1);
    // South's invoice 5 starts naming its 4, both of June: south's full credit nets to zero by its own amounts.
    const northJune = await northJuneVersions();
    await sql`update invoices set reversal_invoice_id = 4 where account_id = 'south' and invoice_id = 5`.execute(
      database.db,
    );
    expect(await dirty()).toEqual(['south/2024-06']);
    await expectMaintained();
    const bright = (await month('south', '2024-06-01')).filter((row) => row.vendor_id === 502);
    expect(bright.map((row) => row.amount)).toEqual(['0.00']);
    expect(await northJuneVersions()).toEqual(northJune);
  });

  it('notes the months of invoices and lines loaded with COPY', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const [invoice, other] = [nextId++, nextId++];
    try {
      const copy = async (statement: string, lines: string[]) =>
        pipeline(Readable.from([`${lines.join('\n')}\n`]), client.query(copyFrom(statement)));
      await copy(
        'copy invoices (account_id, invoice_id, invoice_type_id, vendor_id, vendor_name, post_month, amount, amount_due, raw) from stdin',
        [
          ['south', invoice, 5, 601, 'South Copy Co', '2024-11-01', '30.00', '30.00', '{}'].join('\t'),
          ['south', other, 5, 601, 'South Copy Co', '2024-06-01', '0.00', '0.00', '{}'].join('\t'),
        ],
      );
      expect(await dirty()).toEqual(['south/2024-06', 'south/2024-11']);
      await copy(
        'copy invoice_line_items (account_id, line_item_id, invoice_id, property_id, amount, raw) from stdin',
        [
          ['south', nextId++, invoice, 100, '12.00', '{}'].join('\t'),
          ['south', nextId++, invoice, 100, '18.00', '{}'].join('\t'),
        ],
      );
    } finally {
      await client.end();
    }
    expect(await dirty()).toEqual(['south/2024-06', 'south/2024-11']);
    await expectMaintained();
    expect(await month('south', '2024-11-01')).toEqual([
      {
        vendor_id: 601,
        vendor_name: 'South Copy Co',
        property_id: 100,
        invoices: 1,
        credit_memos: 0,
        amount: '30.00',
      },
    ]);
  });

  it('notes the months of rows inserted and updated by INSERT ... ON CONFLICT DO UPDATE', async () => {
    // South's invoice 7 moves from May to December; a new one is posted in October; invoice 1's line 1 changes amount.
    await sql`
      insert into invoices as i (account_id, invoice_id, invoice_type_id, vendor_id, vendor_name, post_month, amount, amount_due, raw)
      values ('south', 7, 5, 501, 'South Acme Plumbing', '2024-12-01', '500.00', '0.00', '{}'),
             ('south', ${nextId++}, 5, 501, 'South Acme Plumbing', '2024-10-01', '0.00', '0.00', '{}')
      on conflict (account_id, invoice_id) do update set post_month = excluded.post_month
      where i.post_month is distinct from excluded.post_month`.execute(database.db);
    expect(await dirty()).toEqual(['south/2024-05', 'south/2024-10', 'south/2024-12']);
    await sql`
      insert into invoice_line_items as l (account_id, line_item_id, invoice_id, property_id, amount, raw)
      values ('south', 1, 1, 100, '801.00', '{}')
      on conflict (account_id, line_item_id) do update set amount = excluded.amount
      where l.amount is distinct from excluded.amount`.execute(database.db);
    expect(await dirty()).toEqual(['south/2024-05', 'south/2024-06', 'south/2024-10', 'south/2024-12']);
    await expectMaintained();
    expect(await month('south', '2024-05-01')).toEqual([]);
    expect((await month('south', '2024-12-01')).map((row) => row.amount)).toEqual(['500.00']);
  });

  it("leaves an account's groups untouched when another account changes the same ids", async () => {
    await view.expectOtherAccountUntouched({
      untouched: NORTH_JUNE,
      sums: () => month('south', '2024-06-01'),
      writes: [
        `update invoice_line_items set amount = amount + 100 where account_id = 'south' and line_item_id = 1`,
        `update invoices set vendor_name = 'South Acme Plumbing Inc' where account_id = 'south' and invoice_id = 1`,
      ],
      noted: ['south/2024-06'],
    });
  });

  it('sums all invoices once when most of the groups of a warehouse of hundreds are dirty (as after a full load)', async () => {
    await view.expectWholeSumAfterFullLoad({
      untouched: NORTH_JUNE,
      // 300 months of a vendor loaded at once: most groups are new.
      load: [
        `insert into invoices (account_id, invoice_id, invoice_type_id, vendor_id, vendor_name, post_month, amount, amount_due, raw)
         select 'north', 900000 + n, 5, 901, 'Loaded', date '2000-01-01' + make_interval(months => n), 0, 0, '{}' from generate_series(0, 299) n`,
        `insert into invoice_line_items (account_id, line_item_id, invoice_id, property_id, amount, raw)
         select 'north', 900000 + n, 900000 + n, 100, (n * 1.25)::numeric(14,2), '{}' from generate_series(0, 299) n`,
      ],
      groups: 300,
      write: `update invoice_line_items set amount = amount + 1 where account_id = 'north' and line_item_id = 900007`,
      noted: ['north/2000-08'],
    });
  });

  it('names the account and the property as they are now, with no group summed again', async () => {
    await view.expectNamesAsNow(`account_id = 'north' and property_id = 100 and post_month = '2024-06-01'`);
  });

  it('notes every group after a truncate of the lines or of the invoices', async () => {
    await view.expectTruncateNotesAll(['invoice_line_items', 'invoices'], 300);
  });
});

describe('vendor_spend_monthly updated while others write or update', () => {
  it("waits for a sync's transaction that noted a group, and sums its rows once it commits", async () => {
    const invoice = nextId++;
    await view.expectWaitForNotingSync({
      // June is dirty already.
      dirtyFirst: `update invoice_line_items set amount = amount + 1 where account_id = 'north' and line_item_id = 1`,
      writes: [
        `insert into invoices (account_id, invoice_id, invoice_type_id, vendor_id, vendor_name, post_month, amount, amount_due, raw)
         values ('north', ${invoice}, 5, 701, 'Late Co', '2025-01-01', 0, 0, '{}')`,
        `insert into invoice_line_items (account_id, line_item_id, invoice_id, property_id, amount, raw)
         values ('north', ${nextId++}, ${invoice}, 100, '40.00', '{}'), ('north', ${nextId++}, 1, 100, '2.00', '{}')`,
      ],
      expectSummed: async () =>
        expect(await month('north', '2025-01-01')).toEqual([
          {
            vendor_id: 701,
            vendor_name: 'Late Co',
            property_id: 100,
            invoices: 1,
            credit_memos: 0,
            amount: '40.00',
          },
        ]),
    });
  });

  it('waits for a transaction that wrote a line of an invoice it could not see yet, though it noted no group', async () => {
    const loader = await session();
    const lines = await session();
    const invoice = nextId++;
    let done: Promise<unknown> | undefined;
    try {
      await loader.query('begin');
      await loader.query(`insert into invoices (account_id, invoice_id, invoice_type_id, vendor_id, vendor_name, post_month, amount, amount_due, raw)
                          values ('north', ${invoice}, 5, 702, 'Unseen Co', '2025-02-01', 0, 0, '{}')`);
      // Another transaction writes a line of that invoice, which it cannot see: no month to note.
      await lines.query('begin');
      await lines.query(
        `insert into invoice_line_items (account_id, line_item_id, invoice_id, property_id, amount, raw) values ('north', ${nextId++}, ${invoice}, 100, '55.00', '{}')`,
      );
      await loader.query('commit');
      expect(await dirty()).toEqual(['north/2025-02']);
      done = refreshReporting(database.db, { timeZone: ZONE, lockTimeoutMs: 60_000 });
      await waitFor(
        // (that of properties first: the line noted its account there)
        waitingOn('lock table reporting_private.%_dirty%'),
        20_000,
        'the update to wait for the line',
      );
      await lines.query('commit');
      expect(await done).toEqual({ refreshed: REFRESHED, skipped: [] });
      expect((await month('north', '2025-02-01')).map((row) => row.amount)).toEqual(['55.00']);
      expect((await bothWays()).maintained).toEqual((await bothWays()).full);
    } finally {
      for (const client of [loader, lines]) await client.end().catch(() => {});
      await done?.catch(() => {});
    }
  });

  it('does not wait for a transaction that changed only what is due: a BI-unrelated write holds nothing back', async () => {
    const sync = await session();
    try {
      await sql`update invoice_line_items set amount = amount + 1 where account_id = 'north' and line_item_id = 1`.execute(
        database.db,
      );
      await sync.query('begin');
      await sync.query(
        `update invoices set amount_due = amount_due + 1 where account_id = 'north' and invoice_id in (1, 8)`,
      );
      expect(await refreshReporting(database.db, { timeZone: ZONE, lockTimeoutMs: 500 })).toEqual({
        refreshed: REFRESHED,
        skipped: [],
      });
      expect(await dirty()).toEqual([]);
      await sync.query('commit');
      expect(await dirty()).toEqual([]);
    } finally {
      await sync.end().catch(() => {});
    }
  });

  it('keeps a group noted while an update is under way for the next one, and skips an update that cannot have its lock', async () => {
    await view.expectNotedDuringUpdate({
      dirtyFirst: `update invoice_line_items set amount = amount + 1 where account_id = 'north' and line_item_id = 1`,
      write: `update invoice_line_items set amount = amount + 2 where account_id = 'north' and line_item_id = 10`,
      writeWaiting: 'update invoice_line_items%',
      noted: ['north/2024-07'],
    });
  });

  it('two processes updating at once take turns: no group doubled, none lost', async () => {
    await view.expectTurnsTaken(
      `update invoice_line_items set amount = amount + 1 where account_id in ('north', 'south') and line_item_id in (1, 3, 8, 10)`,
    );
  });
});

/** Applies the migrations up to 0016 (those after it are not its test's business); their names. */
async function upTo0016(db: Db): Promise<string[] | undefined> {
  const { results } = await migrator(db).migrateTo('0016_vendor_spend_groups');
  return results?.map((result) => result.migrationName);
}

describe('migration 0016 on a warehouse of 0015', () => {
  const migration = migrationTests(VENDOR_SPEND, 'propsync_test_spend');
  beforeAll(() => migration.open());
  afterAll(() => migration.close());

  it('keeps the columns, types, rows, options and readers of vendor_spend_monthly; down makes the materialized view of 0014 again', async () => {
    const old = migration.db();
    const before = await migration.expectMaterialized();
    expect(await migration.made()).toEqual([{ name: 'vendor_spend_monthly' }]);

    expect(await upTo0016(old)).toEqual(['0016_vendor_spend_groups']);
    await migration.expectMaintainedAfterUp(before);
    // The reader may read the view, not the tables behind it.
    await old.transaction().execute(async (trx) => {
      await sql`set local role ${sql.id(migration.reader)}`.execute(trx);
      await expect(sql`select 1 from reporting_private.vendor_spend_groups`.execute(trx)).rejects.toThrow(
        /permission denied/,
      );
    });
    expect((await migration.made()).length).toBe(14);
    // A write after the migration is noted and summed by a refresh.
    await sql`update invoice_line_items set amount = amount + 1 where account_id = 'north' and line_item_id = 1`.execute(
      old,
    );
    expect((await refreshReporting(old, { timeZone: ZONE })).skipped).toEqual([]);
    expect((await migration.rows()).owner).not.toEqual(before.rows.owner);
    await sql`update invoice_line_items set amount = amount - 1 where account_id = 'north' and line_item_id = 1`.execute(
      old,
    );
    await refreshReporting(old, { timeZone: ZONE });

    await migration.expectMaterializedAfterDown(before);
    // And up again.
    expect(await upTo0016(old)).toEqual(['0016_vendor_spend_groups']);
    expect(await migration.rows()).toEqual(before.rows);
  });
});
