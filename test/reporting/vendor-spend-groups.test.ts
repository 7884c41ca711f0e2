import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Migrator, sql } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Warehouse } from '../../src/catalog/tables.js';
import { grantReader } from '../../src/reporting/reader-role.js';
import { refreshReporting } from '../../src/reporting/refresh.js';
import { updateVendorSpendGroups } from '../../src/reporting/vendor-spend-groups.js';
import { connect } from '../../src/warehouse/db.js';
import { migrateToLatest, migrationProvider } from '../../src/warehouse/migrate.js';
import { waitFor } from '../cli/support.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { insertFixture, SOUTH } from './fixture.js';

const ZONE = 'America/Denver';
const ORDER = 'order by account_id, post_month, vendor_id, property_id';
const REFRESHED = ['properties', 'ar_activity_monthly', 'occupancy_monthly', 'vendor_spend_monthly'];

/** vendor_spend_monthly as migration 0014 computed it: every invoice line summed, then named. */
const FULL = `
  with spend as (
    select i.account_id, i.invoice_id, i.post_month, i.vendor_id, i.vendor_name, i.invoice_type_id
      from public.invoices i
     where i.deleted_at is null and i.post_month is not null
       and i.invoice_type_id is distinct from 20
       and i.reversal_invoice_id is null
       and not exists (select 1 from public.invoices r where r.account_id = i.account_id and r.reversal_invoice_id = i.invoice_id and r.deleted_at is null)
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

let database: TestDatabase;
let nextId = 5000;

/** An invoice of `account`, a standard one of vendor 501 unless said. */
function invoiceRow(account: string, postMonth: string | null, extra: Record<string, unknown> = {}) {
  return { account_id: account, invoice_id: nextId++, invoice_type_id: 5, vendor_id: 501, vendor_name: 'Acme Plumbing', post_month: postMonth, amount: '0.00', amount_due: '0.00', raw: {}, ...extra };
}

/** A line of an invoice, on property 100 unless said. */
function lineRow(account: string, invoice: number, amount: string, extra: Record<string, unknown> = {}) {
  return { account_id: account, line_item_id: nextId++, invoice_id: invoice, property_id: 100, amount, raw: {}, ...extra };
}

/** Inserts an invoice and its lines of the amounts given, in two statements as a sync does; returns its id. */
async function addInvoice(account: string, postMonth: string, amounts: string[], extra: Record<string, unknown> = {}, lineExtra: Record<string, unknown> = {}): Promise<number> {
  const invoice = invoiceRow(account, postMonth, extra);
  await database.db.insertInto('invoices').values(invoice as never).execute();
  if (amounts.length) await database.db.insertInto('invoice_line_items').values(amounts.map((amount) => lineRow(account, invoice.invoice_id, amount, lineExtra)) as never).execute();
  return invoice.invoice_id;
}

/** The groups noted dirty, as account/month. */
async function dirty(db: Db = database.db): Promise<string[]> {
  const { rows } = await sql<{ group: string }>`
    select account_id || '/' || to_char(post_month, 'YYYY-MM') as group from reporting_private.vendor_spend_dirty order by 1`.execute(db);
  return rows.map((row) => row.group);
}

/** The maintained rows and the full query's, each in the grain's order. */
async function bothWays(db: Db = database.db): Promise<{ maintained: unknown[]; full: unknown[] }> {
  const maintained = (await sql.raw(`select * from reporting_private.vendor_spend_monthly ${ORDER}`).execute(db)).rows;
  const full = (await sql.raw(`select * from (${FULL}) f ${ORDER}`).execute(db)).rows;
  return { maintained, full };
}

/** Refreshes as the end of a sync does, then expects the maintained rows to be the full query's, and nothing left dirty. */
async function expectMaintained(): Promise<unknown[]> {
  expect(await refreshReporting(database.db, { timeZone: ZONE })).toEqual({ refreshed: REFRESHED, skipped: [] });
  const { maintained, full } = await bothWays();
  expect(maintained).toEqual(full);
  expect(await dirty()).toEqual([]);
  return maintained;
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
     where account_id = ${account} and post_month = ${postMonth}::date order by vendor_id, property_id`.execute(database.db);
  return rows;
}

/** The row versions of north's June groups: the same ones when those groups were not summed again. */
const NORTH_JUNE = sql<{ ctid: string }>`
  select ctid::text from reporting_private.vendor_spend_groups where account_id = 'north' and post_month = '2024-06-01' order by vendor_id, property_id`;

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

describe('vendor_spend_monthly maintained group by group', () => {
  it("is a plain view over the groups, and gives the full query's rows after the migration and a refresh", async () => {
    const { rows } = await sql<{ kind: string }>`select relkind::text as kind from pg_class where oid = 'reporting_private.vendor_spend_monthly'::regclass`.execute(database.db);
    expect(rows).toEqual([{ kind: 'v' }]);
    const maintained = await expectMaintained();
    expect(maintained.length).toBeGreaterThan(5);
    expect(new Set(maintained.map((row: any) => row.account_id))).toEqual(new Set(['north', 'south']));
    // North's invoice 4 is reversed by 5: neither counts; south's 5 reverses nothing, so both count there.
    expect((await month('north', '2024-06-01')).map((row) => row.vendor_id)).not.toContain(502);
    expect(await month('south', '2024-06-01')).toContainEqual({ vendor_id: 502, vendor_name: 'South Bright Electric', property_id: 100, invoices: 1, credit_memos: 1, amount: '0.00' });
  });

  it('sums again the months of inserted invoices and lines: one it had, one new, one without a vendor nor a property', async () => {
    await addInvoice('north', '2024-06-01', ['10.00', '5.00']);
    await addInvoice('north', '2024-08-01', ['20.00'], { vendor_id: null, vendor_name: null }, { property_id: null });
    expect(await dirty()).toEqual(['north/2024-06', 'north/2024-08']);
    await expectMaintained();
    expect(await month('north', '2024-08-01')).toEqual([{ vendor_id: null, vendor_name: null, property_id: null, invoices: 1, credit_memos: 0, amount: '20.00' }]);
  });

  it('notes nothing for an update of what is due or paid, nor takes a lock an update of the groups would wait for', async () => {
    await database.db.transaction().execute(async (trx) => {
      await sql`update invoices set amount_due = 0, is_on_hold = true, last_synced_at = now() where account_id = 'north' and invoice_id in (1, 2, 7, 8)`.execute(trx);
      await sql`update invoice_line_items set raw = '{"memo": "x"}', last_synced_at = now() where account_id = 'north' and line_item_id in (1, 3)`.execute(trx);
      const { rows } = await sql`
        select 1 from pg_locks where pid = pg_backend_pid() and relation = 'reporting_private.vendor_spend_dirty'::regclass`.execute(trx);
      expect(rows).toEqual([]);
    });
    expect(await dirty()).toEqual([]);
  });

  it('follows the lines: amount, property, moved to another invoice, marked deleted and revived, deleted', async () => {
    // Line 8 is invoice 7's (May), line 1 invoice 1's (June).
    await sql`update invoice_line_items set amount = amount + 1 where account_id = 'north' and line_item_id = 8`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-05']);
    await expectMaintained();
    expect(await month('north', '2024-05-01')).toEqual([{ vendor_id: 501, vendor_name: 'Acme Plumbing', property_id: 100, invoices: 1, credit_memos: 0, amount: '251.00' }]);
    await sql`update invoice_line_items set property_id = 200 where account_id = 'north' and line_item_id = 8`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-05']);
    await expectMaintained();
    expect((await month('north', '2024-05-01')).map((row) => row.property_id)).toEqual([200]);
    // Moved to invoice 8 (July): both months.
    await sql`update invoice_line_items set invoice_id = 8 where account_id = 'north' and line_item_id = 8`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-05', 'north/2024-07']);
    await expectMaintained();
    expect(await month('north', '2024-05-01')).toEqual([]);
    await sql`update invoice_line_items set invoice_id = 7 where account_id = 'north' and line_item_id = 8`.execute(database.db);
    await expectMaintained();
    // Marked deleted (the source no longer lists it), again with another time (nothing changes), revived.
    await sql`update invoice_line_items set deleted_at = now() where account_id = 'north' and line_item_id = 8`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-05']);
    await expectMaintained();
    expect(await month('north', '2024-05-01')).toEqual([]);
    await sql`update invoice_line_items set deleted_at = now() + interval '1 day' where account_id = 'north' and line_item_id = 8`.execute(database.db);
    expect(await dirty()).toEqual([]);
    await sql`update invoice_line_items set deleted_at = null where account_id = 'north' and line_item_id = 8`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-05']);
    await expectMaintained();
    // Line 9 of May was marked deleted: deleting it changes nothing; deleting line 2 (June, property 200) does.
    await sql`delete from invoice_line_items where account_id = 'north' and line_item_id = 9`.execute(database.db);
    expect(await dirty()).toEqual([]);
    await sql`delete from invoice_line_items where account_id = 'north' and line_item_id = 2`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-06']);
    await expectMaintained();
    expect((await month('north', '2024-06-01')).map((row) => row.property_id)).not.toContain(200);
  });

  it('follows the invoices: post month moved, vendor and its name changed, type changed to credit memo and to customer refund, marked deleted', async () => {
    // Invoice 7 is the only one of May: moved to March, May's group is gone.
    await sql`update invoices set post_month = '2024-03-01' where account_id = 'north' and invoice_id = 7`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-03', 'north/2024-05']);
    await expectMaintained();
    expect(await month('north', '2024-05-01')).toEqual([]);
    expect(await month('north', '2024-03-01')).toEqual([{ vendor_id: 501, vendor_name: 'Acme Plumbing', property_id: 200, invoices: 1, credit_memos: 0, amount: '251.00' }]);
    // A post month cleared leaves the view.
    await sql`update invoices set post_month = null where account_id = 'north' and invoice_id = 7`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-03']);
    await expectMaintained();
    expect(await month('north', '2024-03-01')).toEqual([]);

    await sql`update invoices set vendor_id = 503 where account_id = 'north' and invoice_id = 8`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-07']);
    await expectMaintained();
    expect((await month('north', '2024-07-01')).map((row) => row.vendor_id)).toEqual([503]);
    await sql`update invoices set vendor_name = 'Bright Electric Co' where account_id = 'north' and invoice_id = 8`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-07']);
    await expectMaintained();
    expect((await month('north', '2024-07-01')).map((row) => row.vendor_name)).toEqual(['Bright Electric Co']);

    // Invoice 1 becomes a credit memo, then a refund to a resident (no longer spend), then a standard invoice again.
    await sql`update invoices set invoice_type_id = 12 where account_id = 'north' and invoice_id = 1`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-06']);
    await expectMaintained();
    expect((await month('north', '2024-06-01')).find((row) => row.vendor_id === 501 && row.property_id === 100)?.credit_memos).toBe(2);
    await sql`update invoices set invoice_type_id = 20 where account_id = 'north' and invoice_id = 1`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-06']);
    await expectMaintained();
    expect((await month('north', '2024-06-01')).find((row) => row.vendor_id === 501 && row.property_id === 100)?.credit_memos).toBe(1);
    await sql`update invoices set invoice_type_id = 5 where account_id = 'north' and invoice_id = 1`.execute(database.db);
    await expectMaintained();

    // Invoice 8 marked deleted: July's group is gone; again with another time, nothing; revived, back.
    await sql`update invoices set deleted_at = now() where account_id = 'north' and invoice_id = 8`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-07']);
    await expectMaintained();
    expect(await month('north', '2024-07-01')).toEqual([]);
    await sql`update invoices set deleted_at = now() + interval '1 day' where account_id = 'north' and invoice_id = 8`.execute(database.db);
    expect(await dirty()).toEqual([]);
    await sql`update invoices set deleted_at = null where account_id = 'north' and invoice_id = 8`.execute(database.db);
    await expectMaintained();
    expect(await month('north', '2024-07-01')).toHaveLength(1);
  });

  it('takes out a reversed invoice and its reversal when the reversal arrives in another month, and brings the reversed one back when the reversal is deleted', async () => {
    // Invoice 8 (July) is reversed by an invoice posted in August.
    const reversal = await addInvoice('north', '2024-08-01', ['-60.00'], { invoice_type_id: 12, vendor_id: 503, reversal_invoice_id: 8 }, { property_id: 200 });
    expect(await dirty()).toEqual(['north/2024-07', 'north/2024-08']);
    await expectMaintained();
    expect(await month('north', '2024-07-01')).toEqual([]);
    expect((await month('north', '2024-08-01')).map((row) => row.amount)).toEqual(['20.00']);
    // The reversal marked deleted: invoice 8 counts again.
    await sql`update invoices set deleted_at = now() where account_id = 'north' and invoice_id = ${reversal}`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-07', 'north/2024-08']);
    await expectMaintained();
    expect(await month('north', '2024-07-01')).toHaveLength(1);
    // Revived, then reversing nothing: both count.
    await sql`update invoices set deleted_at = null where account_id = 'north' and invoice_id = ${reversal}`.execute(database.db);
    await expectMaintained();
    expect(await month('north', '2024-07-01')).toEqual([]);
    await sql`update invoices set reversal_invoice_id = null where account_id = 'north' and invoice_id = ${reversal}`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-07', 'north/2024-08']);
    await expectMaintained();
    expect(await month('north', '2024-07-01')).toHaveLength(1);
    expect((await month('north', '2024-08-01')).map((row) => row.amount)).toEqual(['-60.00', '20.00']);
    // Reversing again, then deleted outright.
    await sql`update invoices set reversal_invoice_id = 8 where account_id = 'north' and invoice_id = ${reversal}`.execute(database.db);
    await expectMaintained();
    expect(await month('north', '2024-07-01')).toEqual([]);
    await sql`delete from invoices where account_id = 'north' and invoice_id = ${reversal}`.execute(database.db);
    expect(await dirty()).toEqual(['north/2024-07', 'north/2024-08']);
    await expectMaintained();
    expect(await month('north', '2024-07-01')).toHaveLength(1);
    // South's invoice 5 starts reversing its 4, both of June: in south only.
    const northJune = (await NORTH_JUNE.execute(database.db)).rows;
    await sql`update invoices set reversal_invoice_id = 4 where account_id = 'south' and invoice_id = 5`.execute(database.db);
    expect(await dirty()).toEqual(['south/2024-06']);
    await expectMaintained();
    expect((await month('south', '2024-06-01')).map((row) => row.vendor_id)).not.toContain(502);
    expect((await NORTH_JUNE.execute(database.db)).rows).toEqual(northJune);
  });

  it('notes the months of invoices and lines loaded with COPY', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const [invoice, other] = [nextId++, nextId++];
    try {
      const copy = async (statement: string, lines: string[]) => pipeline(Readable.from([`${lines.join('\n')}\n`]), client.query(copyFrom(statement)));
      await copy('copy invoices (account_id, invoice_id, invoice_type_id, vendor_id, vendor_name, post_month, amount, amount_due, raw) from stdin', [
        ['south', invoice, 5, 601, 'South Copy Co', '2024-11-01', '30.00', '30.00', '{}'].join('\t'),
        ['south', other, 5, 601, 'South Copy Co', '2024-06-01', '0.00', '0.00', '{}'].join('\t'),
      ]);
      expect(await dirty()).toEqual(['south/2024-06', 'south/2024-11']);
      await copy('copy invoice_line_items (account_id, line_item_id, invoice_id, property_id, amount, raw) from stdin', [
        ['south', nextId++, invoice, 100, '12.00', '{}'].join('\t'),
        ['south', nextId++, invoice, 100, '18.00', '{}'].join('\t'),
      ]);
    } finally {
      await client.end();
    }
    expect(await dirty()).toEqual(['south/2024-06', 'south/2024-11']);
    await expectMaintained();
    expect(await month('south', '2024-11-01')).toEqual([{ vendor_id: 601, vendor_name: 'South Copy Co', property_id: 100, invoices: 1, credit_memos: 0, amount: '30.00' }]);
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
    const before = (await NORTH_JUNE.execute(database.db)).rows;
    const southBefore = await month('south', '2024-06-01');
    await sql`update invoice_line_items set amount = amount + 100 where account_id = 'south' and line_item_id = 1`.execute(database.db);
    await sql`update invoices set vendor_name = 'South Acme Plumbing Inc' where account_id = 'south' and invoice_id = 1`.execute(database.db);
    expect(await dirty()).toEqual(['south/2024-06']);
    await expectMaintained();
    // The same row versions: not deleted and inserted again.
    expect((await NORTH_JUNE.execute(database.db)).rows).toEqual(before);
    expect(await month('south', '2024-06-01')).not.toEqual(southBefore);
  });

  it('sums all invoices once when most of the groups of a warehouse of hundreds are dirty (as after a full load)', async () => {
    const before = (await NORTH_JUNE.execute(database.db)).rows;
    // 300 months of a vendor loaded at once: most groups are new.
    await sql`
      insert into invoices (account_id, invoice_id, invoice_type_id, vendor_id, vendor_name, post_month, amount, amount_due, raw)
      select 'north', 900000 + n, 5, 901, 'Loaded', date '2000-01-01' + make_interval(months => n), 0, 0, '{}' from generate_series(0, 299) n`.execute(database.db);
    await sql`
      insert into invoice_line_items (account_id, line_item_id, invoice_id, property_id, amount, raw)
      select 'north', 900000 + n, 900000 + n, 100, (n * 1.25)::numeric(14,2), '{}' from generate_series(0, 299) n`.execute(database.db);
    expect((await dirty()).length).toBe(300);
    await expectMaintained();
    // Every row written again, those of groups no row of which changed too.
    expect((await NORTH_JUNE.execute(database.db)).rows).not.toEqual(before);
    // A few groups among hundreds: those only.
    const after = (await NORTH_JUNE.execute(database.db)).rows;
    await sql`update invoice_line_items set amount = amount + 1 where account_id = 'north' and line_item_id = 900007`.execute(database.db);
    expect(await dirty()).toEqual(['north/2000-08']);
    await expectMaintained();
    expect((await NORTH_JUNE.execute(database.db)).rows).toEqual(after);
  });

  it('names the account and the property as they are now, with no group summed again', async () => {
    await sql`update accounts set name = 'North Homes LLC' where account_id = 'north'`.execute(database.db);
    const names = sql<{ account_name: string; property_name: string }>`
      select distinct account_name, property_name from reporting.vendor_spend_monthly where account_id = 'north' and property_id = 100 and post_month = '2024-06-01'`;
    expect((await names.execute(database.db)).rows).toEqual([{ account_name: 'North Homes LLC', property_name: 'Maple Court' }]);
    await sql`insert into properties (account_id, property_id, marketing_name, raw) values ('north', 100, 'Maple Court Residences', '{}')`.execute(database.db);
    expect(await dirty()).toEqual([]);
    await expectMaintained();
    expect((await names.execute(database.db)).rows).toEqual([{ account_name: 'North Homes LLC', property_name: 'Maple Court Residences' }]);
  });

  it('notes every group after a truncate of the lines or of the invoices', async () => {
    for (const table of ['invoice_line_items', 'invoices']) {
      await database.db
        .transaction()
        .execute(async (trx) => {
          await sql`truncate ${sql.table(table)}`.execute(trx);
          expect((await dirty(trx)).length).toBeGreaterThan(300);
          expect(await updateVendorSpendGroups(trx)).toBeGreaterThan(300);
          expect((await sql`select 1 from reporting_private.vendor_spend_groups`.execute(trx)).rows).toEqual([]);
          throw new Error('undo');
        })
        .catch((error: Error) => {
          if (error.message !== 'undo') throw error;
        });
    }
    const { maintained, full } = await bothWays();
    expect(maintained).toEqual(full);
  });
});

describe('vendor_spend_monthly updated while others write or update', () => {
  /** A connection of its own, as another process would hold. */
  async function session(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: database.url, application_name: 'other-process' });
    await client.connect();
    return client;
  }

  const waitingOn = (pattern: string) => async () =>
    (await sql`select 1 from pg_stat_activity where datname = current_database() and query ilike ${pattern} and wait_event_type = 'Lock'`.execute(database.db)).rows.length > 0;

  it("waits for a sync's transaction that noted a group, and sums its rows once it commits", async () => {
    const sync = await session();
    const refreshing: Db = connect<Warehouse>(database.url, { maxConnections: 1 });
    let done: Promise<unknown> | undefined;
    try {
      // June is dirty already: the sync's note of it is the row there (on conflict do nothing).
      await sql`update invoice_line_items set amount = amount + 1 where account_id = 'north' and line_item_id = 1`.execute(database.db);
      const invoice = nextId++;
      await sync.query('begin');
      await sync.query(`insert into invoices (account_id, invoice_id, invoice_type_id, vendor_id, vendor_name, post_month, amount, amount_due, raw)
                        values ('north', ${invoice}, 5, 701, 'Late Co', '2025-01-01', 0, 0, '{}')`);
      await sync.query(`insert into invoice_line_items (account_id, line_item_id, invoice_id, property_id, amount, raw)
                        values ('north', ${nextId++}, ${invoice}, 100, '40.00', '{}'), ('north', ${nextId++}, 1, 100, '2.00', '{}')`);
      done = refreshReporting(refreshing, { timeZone: ZONE, lockTimeoutMs: 60_000 });
      await waitFor(waitingOn('lock table reporting_private.vendor_spend_dirty%'), 20_000, 'the update to wait for the dirty groups');
      await sync.query('commit');
      expect(await done).toEqual({ refreshed: REFRESHED, skipped: [] });
      // Its snapshot came after the lock: the committed rows are summed, and their groups forgotten.
      expect(await month('north', '2025-01-01')).toEqual([{ vendor_id: 701, vendor_name: 'Late Co', property_id: 100, invoices: 1, credit_memos: 0, amount: '40.00' }]);
      const { maintained, full } = await bothWays();
      expect(maintained).toEqual(full);
      expect(await dirty()).toEqual([]);
    } finally {
      await sync.end().catch(() => {});
      await done?.catch(() => {});
      await refreshing.destroy();
    }
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
      await lines.query(`insert into invoice_line_items (account_id, line_item_id, invoice_id, property_id, amount, raw) values ('north', ${nextId++}, ${invoice}, 100, '55.00', '{}')`);
      await loader.query('commit');
      expect(await dirty()).toEqual(['north/2025-02']);
      done = refreshReporting(database.db, { timeZone: ZONE, lockTimeoutMs: 60_000 });
      await waitFor(waitingOn('lock table reporting_private.vendor_spend_dirty%'), 20_000, 'the update to wait for the line');
      await lines.query('commit');
      expect(await done).toEqual({ refreshed: REFRESHED, skipped: [] });
      expect((await month('north', '2025-02-01')).map((row) => row.amount)).toEqual(['55.00']);
      expect((await bothWays()).maintained).toEqual((await bothWays()).full);
    } finally {
      for (const client of [loader, lines]) await client.end().catch(() => {});
      await done?.catch(() => {});
    }
  });

  it("does not wait for a transaction that changed only what is due: a BI-unrelated write holds nothing back", async () => {
    const sync = await session();
    try {
      await sql`update invoice_line_items set amount = amount + 1 where account_id = 'north' and line_item_id = 1`.execute(database.db);
      await sync.query('begin');
      await sync.query(`update invoices set amount_due = amount_due + 1 where account_id = 'north' and invoice_id in (1, 8)`);
      expect(await refreshReporting(database.db, { timeZone: ZONE, lockTimeoutMs: 500 })).toEqual({ refreshed: REFRESHED, skipped: [] });
      expect(await dirty()).toEqual([]);
      await sync.query('commit');
      expect(await dirty()).toEqual([]);
    } finally {
      await sync.end().catch(() => {});
    }
  });

  it('keeps a group noted while an update is under way for the next one, and skips an update that cannot have its lock', async () => {
    const sync = await session();
    const updating: Db = connect<Warehouse>(database.url, { maxConnections: 1 });
    let written: Promise<unknown> | undefined;
    try {
      await sql`update invoice_line_items set amount = amount + 1 where account_id = 'north' and line_item_id = 1`.execute(database.db);
      await updating
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          expect(await updateVendorSpendGroups(trx)).toBe(1);
          // A sync writes meanwhile: it waits for this update to end, then notes its group.
          written = sync.query(`update invoice_line_items set amount = amount + 2 where account_id = 'north' and line_item_id = 10`);
          await waitFor(waitingOn('update invoice_line_items%'), 20_000, 'the sync to wait for the update');
          // A second update cannot have the lock: skipped, the others refreshed.
          expect(await refreshReporting(database.db, { timeZone: ZONE, lockTimeoutMs: 200 })).toEqual({
            refreshed: ['properties', 'ar_activity_monthly', 'occupancy_monthly'],
            skipped: ['vendor_spend_monthly'],
          });
        });
      await written;
      expect(await dirty()).toEqual(['north/2024-07']);
      await expectMaintained();
    } finally {
      await written?.catch(() => {});
      await sync.end().catch(() => {});
      await updating.destroy();
    }
  });

  it('two processes updating at once take turns: no group doubled, none lost', async () => {
    await sql`update invoice_line_items set amount = amount + 1 where account_id in ('north', 'south') and line_item_id in (1, 3, 8, 10)`.execute(database.db);
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

describe('migration 0016 on a warehouse of 0015', () => {
  let old: TestDatabase;
  const reader = `propsync_test_spend_${Math.random().toString(16).slice(2, 10)}`;

  /** The reader view and the view behind it as Postgres has them: kind, options, columns with types, indexes, who may read them. */
  async function shape(): Promise<unknown[]> {
    const { rows } = await sql`
      select c.oid::regclass::text as relation, c.relkind::text as kind, c.reloptions::text[] as options,
             array(select a.attname || ' ' || format_type(a.atttypid, a.atttypmod) from pg_attribute a
                    where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as columns,
             array(select pg_get_indexdef(x.indexrelid) from pg_index x where x.indrelid = c.oid order by 1) as indexes,
             array(select distinct pg_get_userbyid(acl.grantee)::text from aclexplode(c.relacl) acl where acl.grantee <> c.relowner order by 1) as readers
        from pg_class c
       where c.oid in ('reporting.vendor_spend_monthly'::regclass, 'reporting_private.vendor_spend_monthly'::regclass)
       order by 1`.execute(old.db);
    return rows;
  }

  /** Every row of reporting.vendor_spend_monthly, as its owner and as the reader limited to account north. */
  async function rows(): Promise<{ owner: unknown[]; reader: unknown[] }> {
    const owner = (await sql.raw(`select * from reporting.vendor_spend_monthly ${ORDER}`).execute(old.db)).rows;
    const limited = await old.db.transaction().execute(async (trx) => {
      await sql`set local role ${sql.id(reader)}`.execute(trx);
      return (await sql.raw(`select * from reporting.vendor_spend_monthly ${ORDER}`).execute(trx)).rows;
    });
    return { owner, reader: limited };
  }

  /** What 0016 makes besides the view: tables, functions, triggers. */
  async function made(): Promise<unknown[]> {
    return (
      await sql`
        select relname as name from pg_class where relnamespace = 'reporting_private'::regnamespace and relname like 'vendor_spend_%' and relkind <> 'i'
        union all select proname from pg_proc where proname like 'note_vendor_spend%'
        union all select tgname || ' on ' || tgrelid::regclass::text from pg_trigger where tgname like 'vendor_spend%'
        order by 1`.execute(old.db)
    ).rows;
  }

  beforeAll(async () => {
    old = await createTestDatabase({ migrate: false });
    const migrator = new Migrator({ db: old.db, provider: migrationProvider() });
    expect((await migrator.migrateTo('0015_ar_activity_groups')).error).toBeUndefined();
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

  it('keeps the columns, types, rows, options and readers of vendor_spend_monthly; down makes the materialized view of 0014 again', async () => {
    const before = await shape();
    const rowsBefore = await rows();
    expect(rowsBefore.owner.length).toBeGreaterThan(rowsBefore.reader.length);
    expect(rowsBefore.reader.length).toBeGreaterThan(0);
    expect(before).toEqual([
      expect.objectContaining({ relation: 'reporting.vendor_spend_monthly', kind: 'v', options: ['security_barrier=true'], readers: [reader] }),
      expect.objectContaining({ relation: 'reporting_private.vendor_spend_monthly', kind: 'm', indexes: [expect.stringContaining('vendor_spend_monthly_grain_idx')] }),
    ]);
    expect(await made()).toEqual([{ name: 'vendor_spend_monthly' }]);

    expect((await migrateToLatest(old.db)).applied).toEqual(['0016_vendor_spend_groups']);
    const [readerView, privateView] = before as { kind: string; indexes: string[] }[];
    expect(await shape()).toEqual([readerView, { ...privateView, kind: 'v', indexes: [] }]);
    expect(await rows()).toEqual(rowsBefore);
    const { rows: comment } = await sql<{ comment: string }>`select obj_description('reporting.vendor_spend_monthly'::regclass, 'pg_class') as comment`.execute(old.db);
    expect(comment[0].comment).toMatch(/Maintained group by group: .* refreshed at the end of each sync/);
    // The reader may read the view, not the tables behind it.
    await old.db.transaction().execute(async (trx) => {
      await sql`set local role ${sql.id(reader)}`.execute(trx);
      await expect(sql`select 1 from reporting_private.vendor_spend_groups`.execute(trx)).rejects.toThrow(/permission denied/);
    });
    expect((await made()).length).toBe(14);
    // A write after the migration is noted and summed by a refresh.
    await sql`update invoice_line_items set amount = amount + 1 where account_id = 'north' and line_item_id = 1`.execute(old.db);
    expect((await refreshReporting(old.db, { timeZone: ZONE })).skipped).toEqual([]);
    expect((await rows()).owner).not.toEqual(rowsBefore.owner);
    await sql`update invoice_line_items set amount = amount - 1 where account_id = 'north' and line_item_id = 1`.execute(old.db);
    await refreshReporting(old.db, { timeZone: ZONE });

    const migrator = new Migrator({ db: old.db, provider: migrationProvider() });
    expect((await migrator.migrateTo('0015_ar_activity_groups')).error).toBeUndefined();
    expect(await shape()).toEqual(before);
    expect(await rows()).toEqual(rowsBefore);
    expect(await made()).toEqual([{ name: 'vendor_spend_monthly' }]);
    // And up again.
    expect((await migrateToLatest(old.db)).applied).toEqual(['0016_vendor_spend_groups']);
    expect(await rows()).toEqual(rowsBefore);
  });
});
