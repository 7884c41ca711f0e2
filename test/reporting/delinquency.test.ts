import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshReporting } from '../../src/reporting/refresh.js';
import type { Db, Warehouse } from '../../src/catalog/tables.js';
import { connect } from '../../src/warehouse/db.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { FIXTURE_NOW, insertFixture } from './fixture.js';

/**
 * Issue 43 items 3 and 5 on the hand-computed fixture (today 2024-06-30 in Denver), with more rows:
 * a cancelled application's admin fee and a future lease's application fee (not residents'
 * delinquency), an unapplied payment of lease 1 (a credit), payments of lease 2 (the last one
 * reversed), and invoices that owe only their retention, owe retention besides, or are an old
 * open credit memo.
 */
let database: TestDatabase;
let db: Db;
const raw = {};

const ar = (
  id: number,
  lease: number,
  type: number,
  post: string,
  amount: string,
  balance: string,
  extra = {},
) => ({
  account_id: 'default',
  ar_transaction_id: id,
  lease_id: lease,
  property_id: 100,
  transaction_type_id: type,
  ar_code_id: type === 2 ? 160 : 120,
  ar_code_name: type === 2 ? 'Resident Payment' : 'Admin Fee',
  transaction_date: post,
  post_date: post,
  post_month: `${post.slice(0, 7)}-01`,
  due_date: post,
  amount,
  amount_paid: (Number(amount) - Number(balance)).toFixed(2),
  balance_due: balance,
  is_temporary: false,
  is_reversed: false,
  raw,
  ...extra,
});

const invoice = (
  id: number,
  type: number,
  amount: string,
  due: string,
  amountDue: string,
  retention: string,
) => ({
  account_id: 'default',
  invoice_id: id,
  invoice_number: `INV-${id}`,
  invoice_type_id: type,
  invoice_type: type === 12 ? 'Credit Memo' : 'Standard',
  vendor_id: 503,
  vendor_name: 'Cedar Roofing',
  invoice_date: '2022-01-01',
  post_date: '2022-01-01',
  post_month: '2022-01-01',
  due_date: due,
  post_status: 'Posted',
  is_on_hold: false,
  amount,
  amount_due: amountDue,
  retention,
  raw,
});

beforeAll(async () => {
  database = await createTestDatabase();
  await insertFixture(database.db);
  await sql`insert into accounts (account_id, name) values ('default', 'Front Range Homes')`.execute(
    database.db,
  );
  await database.db
    .insertInto('leases')
    .values({
      account_id: 'default',
      lease_id: 9,
      property_id: 100,
      property_name: 'Maple Court',
      unit_id: 3,
      unit_number: '103',
      lease_status_type_id: 3,
      lease_status: 'Future',
      current_lease_interval_id: 91,
      raw,
    } as never)
    .execute();
  await database.db
    .insertInto('ar_transactions')
    .values([
      ar(101, 5, 1, '2024-03-01', '150.00', '150.00'), // cancelled application: 121 days past due
      ar(102, 9, 1, '2024-06-20', '50.00', '50.00'), // future lease: 10 days past due
      ar(103, 1, 2, '2024-06-25', '-120.00', '-120.00'), // an unapplied payment: a credit
      ar(104, 2, 2, '2024-06-05', '-900.00', '0.00'),
      ar(105, 2, 2, '2024-06-28', '-900.00', '0.00', { is_reversed: true }), // returned
      ar(106, 2, 2, '2024-06-29', '900.00', '0.00', { is_reversed: true }), // its reversal
    ] as never)
    .execute();
  await database.db
    .insertInto('invoices')
    .values([
      invoice(9, 5, '1000.00', '2024-03-01', '100.00', '100.00'), // owes exactly its retention
      invoice(10, 5, '2000.00', '2024-05-15', '2000.00', '200.00'), // 46 days past due, retention besides
      invoice(11, 12, '-75.00', '2022-01-01', '-75.00', '0.00'), // an open credit memo 911 days old
    ] as never)
    .execute();
  await database.db
    .insertInto('invoice_line_items')
    .values(
      [9, 10, 11].map((id) => ({
        account_id: 'default',
        line_item_id: 100 + id,
        invoice_id: id,
        property_id: 100,
        property_name: 'Maple Court',
        amount: id === 11 ? '-75.00' : '1000.00',
        raw,
      })) as never,
    )
    .execute();
  db = connect<Warehouse>(database.url, { maxConnections: 1 });
  await sql`select set_config('reporting.now', ${FIXTURE_NOW}, false)`.execute(db);
  await refreshReporting(db, { timeZone: 'America/Denver' });
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

async function rows(query: string): Promise<unknown[]> {
  return (await sql.raw(query).execute(db)).rows;
}

describe('delinquency apart from applications, credits apart', () => {
  it('ar_aging: per lease, charges past due without credits, the oldest days past due and the last payment', async () => {
    expect(
      await rows(`select lease_id, balance, is_application, past_due, past_due_1_30, past_due_31_60, past_due_61_90,
                         past_due_over_90, open_credits, oldest_days_past_due, last_payment_date, last_payment_amount
                    from reporting.ar_aging order by lease_id`),
    ).toEqual([
      // 75 not yet due + 500 (June rent) + 200 (February rent, 150 days) - 120 unapplied.
      {
        lease_id: 1,
        balance: '655.00',
        is_application: false,
        past_due: '700.00',
        past_due_1_30: '500.00',
        past_due_31_60: '0.00',
        past_due_61_90: '0.00',
        past_due_over_90: '200.00',
        open_credits: '-120.00',
        oldest_days_past_due: 150,
        last_payment_date: '2024-06-25',
        last_payment_amount: '-120.00',
      },
      // The payment of June 28 was returned: the last payment is that of June 5.
      {
        lease_id: 2,
        balance: '300.00',
        is_application: false,
        past_due: '300.00',
        past_due_1_30: '0.00',
        past_due_31_60: '300.00',
        past_due_61_90: '0.00',
        past_due_over_90: '0.00',
        open_credits: '0.00',
        oldest_days_past_due: 60,
        last_payment_date: '2024-06-05',
        last_payment_amount: '-900.00',
      },
      {
        lease_id: 3,
        balance: '-50.00',
        is_application: false,
        past_due: '0.00',
        past_due_1_30: '0.00',
        past_due_31_60: '0.00',
        past_due_61_90: '0.00',
        past_due_over_90: '0.00',
        open_credits: '-50.00',
        oldest_days_past_due: 0,
        last_payment_date: null,
        last_payment_amount: null,
      },
      {
        lease_id: 5,
        balance: '150.00',
        is_application: true,
        past_due: '150.00',
        past_due_1_30: '0.00',
        past_due_31_60: '0.00',
        past_due_61_90: '0.00',
        past_due_over_90: '150.00',
        open_credits: '0.00',
        oldest_days_past_due: 121,
        last_payment_date: null,
        last_payment_amount: null,
      },
      {
        lease_id: 9,
        balance: '50.00',
        is_application: true,
        past_due: '50.00',
        past_due_1_30: '50.00',
        past_due_31_60: '0.00',
        past_due_61_90: '0.00',
        past_due_over_90: '0.00',
        open_credits: '0.00',
        oldest_days_past_due: 10,
        last_payment_date: null,
        last_payment_amount: null,
      },
    ]);
  });

  it('ar_aging_by_property and portfolio: residents past due apart from applications, credits apart', async () => {
    expect(
      await rows(`select leases, balance, over_90, resident_leases, resident_past_due, resident_past_due_1_30,
                         resident_past_due_31_60, resident_past_due_61_90, resident_past_due_over_90,
                         resident_open_credits, application_leases, application_balance
                    from reporting.ar_aging_by_property`),
    ).toEqual([
      {
        leases: 5,
        balance: '1105.00',
        // The bucket of every lease holds the cancelled application's fee; the residents' does not.
        over_90: '350.00',
        resident_leases: 3,
        resident_past_due: '1000.00',
        resident_past_due_1_30: '500.00',
        resident_past_due_31_60: '300.00',
        resident_past_due_61_90: '0.00',
        resident_past_due_over_90: '200.00',
        resident_open_credits: '-170.00',
        application_leases: 2,
        application_balance: '200.00',
      },
    ]);
    expect(
      await rows(`select open_ar_balance, past_due_ar_balance, resident_past_due_ar, resident_ar_credits,
                         application_ar_balance
                    from reporting.portfolio`),
    ).toEqual([
      {
        open_ar_balance: '1105.00',
        // Netted, applications in: 500 + 200 - 120 + 300 - 50 + 150 + 50.
        past_due_ar_balance: '1030.00',
        resident_past_due_ar: '1000.00',
        resident_ar_credits: '-170.00',
        application_ar_balance: '200.00',
      },
    ]);
  });
});

describe('open payables aged like AR, retention and credit memos apart', () => {
  it('ap_open_invoices: what is owed in its bucket, retention held and open credits in their own columns', async () => {
    expect(
      await rows(`select invoice_id, amount_due, days_past_due, retention_held, open_credit, owed, not_yet_due,
                         days_1_30, days_31_60, days_61_90, over_90
                    from reporting.ap_open_invoices order by invoice_id`),
    ).toEqual([
      row(1, '500.00', 20, '0.00', '0.00', '500.00', { days_1_30: '500.00' }),
      row(2, '-50.00', 15, '0.00', '-50.00', '0.00', {}),
      row(3, '300.00', 0, '0.00', '0.00', '300.00', { not_yet_due: '300.00' }),
      row(8, '60.00', 0, '0.00', '0.00', '60.00', { not_yet_due: '60.00' }),
      // Owes exactly its retention, 121 days after its due date: nothing over 90 days owed.
      row(9, '100.00', 121, '100.00', '0.00', '0.00', {}),
      row(10, '2000.00', 46, '200.00', '0.00', '1800.00', { days_31_60: '1800.00' }),
      // An open credit memo 911 days past its due date: a credit, never over 90 days owed.
      row(11, '-75.00', 911, '0.00', '-75.00', '0.00', {}),
    ]);
  });
});

function row(
  id: number,
  amountDue: string,
  days: number,
  retention: string,
  credit: string,
  owed: string,
  buckets: Record<string, string>,
) {
  return {
    invoice_id: id,
    amount_due: amountDue,
    days_past_due: days,
    retention_held: retention,
    open_credit: credit,
    owed,
    not_yet_due: '0.00',
    days_1_30: '0.00',
    days_31_60: '0.00',
    days_61_90: '0.00',
    over_90: '0.00',
    ...buckets,
  };
}
