import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshReporting } from '../../src/reporting/refresh.js';
import type { Db, Warehouse } from '../../src/catalog/tables.js';
import { connect } from '../../src/warehouse/db.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { FIXTURE_NOW, insertFixture } from './fixture.js';

let database: TestDatabase;
/** One connection whose session clock is 23:30 on 2024-06-30 in America/Denver. */
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  await insertFixture(database.db);
  await sql`insert into accounts (account_id, name) values ('default', 'Front Range Homes')`.execute(
    database.db,
  );
  db = connect<Warehouse>(database.url, { maxConnections: 1 });
  await sql`select set_config('reporting.now', ${FIXTURE_NOW}, false)`.execute(db);
  // As at the end of a sync: the materialized views are refreshed (in this session's clock).
  await refreshReporting(db, { timeZone: 'America/Denver' });
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

async function rows(query: string): Promise<unknown[]> {
  return (await sql.raw(query).execute(db)).rows;
}

/** Runs `check` after a refresh in time zone `zone`, then refreshes in America/Denver again. */
async function inTimeZone(zone: string, check: () => Promise<void>): Promise<void> {
  await refreshReporting(db, { timeZone: zone });
  try {
    await check();
  } finally {
    await refreshReporting(db, { timeZone: 'America/Denver' });
  }
}

describe('reporting views on a hand-computed fixture', () => {
  it('take today in the configured time zone: 23:30 on June 30 in Denver is still June 30', async () => {
    expect(await rows('select reporting.today()::text as today')).toEqual([{ today: '2024-06-30' }]);
    await inTimeZone('UTC', async () => {
      expect(await rows('select reporting.today()::text as today')).toEqual([{ today: '2024-07-01' }]);
    });
  });

  it('rent_roll: one row per Current or Notice lease, the primary resident named, a multi-space lease once', async () => {
    expect(
      await rows(`select lease_id, property_name, unit_number, unit_spaces, primary_customer_id, primary_resident, lease_status, is_other_income,
                         lease_start_date, lease_end_date, monthly_charges, open_balance, past_due_balance, as_of_date
                    from reporting.rent_roll order by lease_id`),
    ).toEqual([
      {
        lease_id: 1,
        property_name: 'Maple Court',
        unit_number: '101',
        unit_spaces: '101',
        primary_customer_id: 9,
        primary_resident: 'Ann Primary',
        lease_status: 'Current',
        is_other_income: false,
        lease_start_date: '2024-01-15',
        lease_end_date: '2024-12-31',
        monthly_charges: '1550.00',
        open_balance: '775.00',
        past_due_balance: '700.00',
        as_of_date: '2024-06-30',
      },
      {
        lease_id: 2,
        property_name: 'Maple Court',
        unit_number: '102',
        unit_spaces: '102-A, 102-B',
        primary_customer_id: 13,
        primary_resident: 'Cy Notice',
        lease_status: 'Notice',
        is_other_income: false,
        lease_start_date: '2024-01-01',
        lease_end_date: '2024-07-31',
        monthly_charges: '1200.00',
        open_balance: '300.00',
        past_due_balance: '300.00',
        as_of_date: '2024-06-30',
      },
      {
        lease_id: 6,
        property_name: 'Maple Court',
        unit_number: 'P-1',
        unit_spaces: null,
        primary_customer_id: 9,
        primary_resident: 'Ann Primary',
        lease_status: 'Current',
        is_other_income: true,
        lease_start_date: '2024-02-01',
        lease_end_date: '2025-01-31',
        monthly_charges: '75.00',
        open_balance: '0.00',
        past_due_balance: '0.00',
        as_of_date: '2024-06-30',
      },
      {
        lease_id: 8,
        property_name: 'Oak Plaza',
        unit_number: '201',
        unit_spaces: null,
        primary_customer_id: null,
        primary_resident: null,
        lease_status: 'Current',
        is_other_income: false,
        lease_start_date: '2024-06-30',
        lease_end_date: '2025-06-29',
        monthly_charges: '0.00',
        open_balance: '0.00',
        past_due_balance: '0.00',
        as_of_date: '2024-06-30',
      },
    ]);
    // Rent apart from the other monthly charges.
    expect(
      await rows(
        `select lease_id, rent, other_monthly_charges, deposit_held from reporting.rent_roll order by lease_id`,
      ),
    ).toEqual([
      { lease_id: 1, rent: '1500.00', other_monthly_charges: '50.00', deposit_held: '0.00' },
      { lease_id: 2, rent: '1200.00', other_monthly_charges: '0.00', deposit_held: '0.00' },
      { lease_id: 6, rent: '0.00', other_monthly_charges: '75.00', deposit_held: '0.00' },
      { lease_id: 8, rent: '0.00', other_monthly_charges: '0.00', deposit_held: '0.00' },
    ]);
  });

  it("unit_rent_roll: the rent roll's leases with their unit's size and rent, and the units no lease holds", async () => {
    expect(
      await rows(`select unit_number, market_rent, is_vacant, lease_id, lease_status, rent, as_of_date
                    from reporting.unit_rent_roll order by unit_number`),
    ).toEqual(
      [
        ['101', '1550.00', false, 1, 'Current', '1500.00'],
        ['102', '2800.00', false, 2, 'Notice', '1200.00'],
        ['103', '1400.00', true, null, null, null],
        ['105', '1400.00', true, null, null, null],
        ['201', '1400.00', false, 8, 'Current', '0.00'],
        ['P-1', '75.00', false, 6, 'Current', '0.00'],
      ].map(([unit_number, market_rent, is_vacant, lease_id, lease_status, rent]) => ({
        unit_number,
        market_rent,
        is_vacant,
        lease_id,
        lease_status,
        rent,
        as_of_date: '2024-06-30',
      })),
    );
  });

  it('occupancy_monthly: units ever leased, units occupied at each month end, the current month as of today', async () => {
    const occupancy = await rows(
      `select property_id, month::text, as_of_date, units_known, units_occupied, occupancy_percent from reporting.occupancy_monthly order by property_id, month`,
    );
    expect(occupancy).toHaveLength(17); // property 100: March 2023 to June 2024; property 200: June 2024
    expect(
      occupancy.filter((row: any) =>
        ['2023-03-01', '2023-07-01', '2024-01-01', '2024-05-01', '2024-06-01'].includes(row.month),
      ),
    ).toEqual([
      {
        property_id: 100,
        month: '2023-03-01',
        as_of_date: '2023-03-31',
        units_known: 4,
        units_occupied: 1,
        occupancy_percent: '25.0',
      },
      {
        property_id: 100,
        month: '2023-07-01',
        as_of_date: '2023-07-31',
        units_known: 4,
        units_occupied: 2,
        occupancy_percent: '50.0',
      },
      {
        property_id: 100,
        month: '2024-01-01',
        as_of_date: '2024-01-31',
        units_known: 4,
        units_occupied: 3,
        occupancy_percent: '75.0',
      },
      {
        property_id: 100,
        month: '2024-05-01',
        as_of_date: '2024-05-31',
        units_known: 4,
        units_occupied: 2,
        occupancy_percent: '50.0',
      },
      {
        property_id: 100,
        month: '2024-06-01',
        as_of_date: '2024-06-30',
        units_known: 4,
        units_occupied: 2,
        occupancy_percent: '50.0',
      },
      {
        property_id: 200,
        month: '2024-06-01',
        as_of_date: '2024-06-30',
        units_known: 1,
        units_occupied: 1,
        occupancy_percent: '100.0',
      },
    ]);
    await inTimeZone('UTC', async () => {
      expect(
        await rows(
          `select property_id, month::text, as_of_date, units_occupied from reporting.occupancy_monthly where month >= '2024-06-01' order by property_id, month`,
        ),
      ).toEqual([
        { property_id: 100, month: '2024-06-01', as_of_date: '2024-06-30', units_occupied: 2 },
        { property_id: 100, month: '2024-07-01', as_of_date: '2024-07-01', units_occupied: 2 },
        { property_id: 200, month: '2024-06-01', as_of_date: '2024-06-30', units_occupied: 1 },
        { property_id: 200, month: '2024-07-01', as_of_date: '2024-07-01', units_occupied: 1 },
      ]);
    });
  });

  it('lease_activity_monthly: move-ins, move-outs, renewals started and cancellations by month', async () => {
    expect(
      await rows(
        `select property_id, month, move_ins, move_outs, renewals, cancellations from reporting.lease_activity_monthly order by property_id, month`,
      ),
    ).toEqual([
      { property_id: 100, month: '2023-03-01', move_ins: 1, move_outs: 0, renewals: 0, cancellations: 0 },
      { property_id: 100, month: '2023-07-01', move_ins: 1, move_outs: 0, renewals: 0, cancellations: 0 },
      { property_id: 100, month: '2024-01-01', move_ins: 1, move_outs: 0, renewals: 1, cancellations: 0 },
      { property_id: 100, month: '2024-05-01', move_ins: 0, move_outs: 1, renewals: 0, cancellations: 1 },
      { property_id: 200, month: '2024-06-01', move_ins: 1, move_outs: 0, renewals: 0, cancellations: 0 },
    ]);
  });

  it('lease_expirations: terms ending by month, renewals seen once started or listed ahead', async () => {
    expect(
      await rows(
        `select property_id, month, move_out_month, expiring_leases, renewed, on_notice, month_to_month
           from reporting.lease_expirations order by property_id, month`,
      ),
    ).toEqual(
      [
        // Lease 2's first term ended in December 2023; its renewal started on January 1.
        [100, '2023-12-01', null, 0, 1, 0, 0],
        // Lease 2 on notice, moving out the month its renewed term ends.
        [100, '2024-07-01', null, 1, 0, 1, 0],
        // Lease 1's renewal is listed ahead (interval 12): renewed, not expiring.
        [100, '2024-12-01', null, 0, 1, 0, 0],
        [200, '2025-06-01', null, 1, 0, 0, 0],
      ].map(([property_id, month, move_out_month, expiring_leases, renewed, on_notice, month_to_month]) => ({
        property_id,
        month,
        move_out_month,
        expiring_leases,
        renewed,
        on_notice,
        month_to_month,
      })),
    );
  });

  it('ar_aging: open balances by days past due; deleted, temporary and reversed items and deleted leases left out', async () => {
    const aging = `select lease_id, primary_resident, lease_status, as_of_date, open_items, balance, not_yet_due, days_1_30, days_31_60, days_61_90, over_90 from reporting.ar_aging order by lease_id`;
    expect(await rows(aging)).toEqual([
      {
        lease_id: 1,
        primary_resident: 'Ann Primary',
        lease_status: 'Current',
        as_of_date: '2024-06-30',
        open_items: 3,
        balance: '775.00',
        not_yet_due: '75.00',
        days_1_30: '500.00',
        days_31_60: '0.00',
        days_61_90: '0.00',
        over_90: '200.00',
      },
      {
        lease_id: 2,
        primary_resident: 'Cy Notice',
        lease_status: 'Notice',
        as_of_date: '2024-06-30',
        open_items: 1,
        balance: '300.00',
        not_yet_due: '0.00',
        days_1_30: '0.00',
        days_31_60: '300.00',
        days_61_90: '0.00',
        over_90: '0.00',
      },
      {
        lease_id: 3,
        primary_resident: 'Dee Past',
        lease_status: 'Past',
        as_of_date: '2024-06-30',
        open_items: 1,
        balance: '-50.00',
        not_yet_due: '0.00',
        days_1_30: '0.00',
        days_31_60: '0.00',
        days_61_90: '-50.00',
        over_90: '0.00',
      },
    ]);
    expect(await rows(`select * from reporting.ar_aging_by_property`)).toEqual([
      {
        account_id: 'default',
        account_name: 'Front Range Homes',
        property_id: 100,
        property_name: 'Maple Court',
        as_of_date: '2024-06-30',
        leases: 3,
        open_items: 5,
        balance: '1025.00',
        not_yet_due: '75.00',
        days_1_30: '500.00',
        days_31_60: '300.00',
        days_61_90: '-50.00',
        over_90: '200.00',
        resident_leases: 3,
        resident_past_due: '1000.00',
        resident_past_due_1_30: '500.00',
        resident_past_due_31_60: '300.00',
        resident_past_due_61_90: '0.00',
        resident_past_due_over_90: '200.00',
        resident_open_credits: '-50.00',
        application_leases: 0,
        application_balance: '0.00',
      },
    ]);
    // In UTC it is already July 1: the late fee due June 30 is a day past due, and everything ages a day.
    await inTimeZone('UTC', async () => {
      expect(
        (await rows(aging)).map((row: any) => [
          row.lease_id,
          row.as_of_date,
          row.not_yet_due,
          row.days_1_30,
          row.days_61_90,
          row.over_90,
        ]),
      ).toEqual([
        [1, '2024-07-01', '0.00', '575.00', '0.00', '200.00'],
        [2, '2024-07-01', '0.00', '0.00', '300.00', '0.00'],
        [3, '2024-07-01', '0.00', '0.00', '0.00', '-50.00'],
      ]);
    });
  });

  it('ar_aging_as_of: the position at the end of a day, replayed from the transactions posted by then', async () => {
    // June 11: the payment returned on June 12 still counts, the late fee of June 30 is not posted yet.
    await sql`select set_config('reporting.now', '2024-06-11 18:00+00', false)`.execute(db);
    try {
      expect(
        await rows(`select lease_id, as_of_date, open_items, balance, not_yet_due, days_1_30, days_31_60, over_90,
                           past_due, open_credits
                      from reporting.ar_aging_as_of order by lease_id`),
      ).toEqual([
        // Rent of February and June (3,000) less the concession and two payments (1,600), oldest paid first.
        {
          lease_id: 1,
          as_of_date: '2024-06-11',
          open_items: 1,
          balance: '1400.00',
          not_yet_due: '0.00',
          days_1_30: '1400.00',
          days_31_60: '0.00',
          over_90: '0.00',
          past_due: '1400.00',
          open_credits: '0.00',
        },
        // No payment of lease 2 is listed: May's rent is open in full, 41 days past due.
        {
          lease_id: 2,
          as_of_date: '2024-06-11',
          open_items: 1,
          balance: '1200.00',
          not_yet_due: '0.00',
          days_1_30: '0.00',
          days_31_60: '1200.00',
          over_90: '0.00',
          past_due: '1200.00',
          open_credits: '0.00',
        },
      ]);
    } finally {
      await sql`select set_config('reporting.now', ${FIXTURE_NOW}, false)`.execute(db);
    }
  });

  it('ar_activity_monthly: amounts by transaction type; reversed, temporary and deleted transactions left out', async () => {
    expect(
      await rows(`select post_month, ar_code_id, transactions, charges, deposits, payments, concessions, refunds, write_offs, net_amount
                    from reporting.ar_activity_monthly order by post_month, ar_code_id`),
    ).toEqual([
      {
        post_month: '2024-02-01',
        ar_code_id: 101,
        transactions: 1,
        charges: '1500.00',
        deposits: '0.00',
        payments: '0.00',
        concessions: '0.00',
        refunds: '0.00',
        write_offs: '0.00',
        net_amount: '1500.00',
      },
      {
        post_month: '2024-02-01',
        ar_code_id: 140,
        transactions: 1,
        charges: '0.00',
        deposits: '0.00',
        payments: '0.00',
        concessions: '-100.00',
        refunds: '0.00',
        write_offs: '0.00',
        net_amount: '-100.00',
      },
      {
        post_month: '2024-04-01',
        ar_code_id: 140,
        transactions: 1,
        charges: '0.00',
        deposits: '0.00',
        payments: '0.00',
        concessions: '-50.00',
        refunds: '0.00',
        write_offs: '0.00',
        net_amount: '-50.00',
      },
      {
        post_month: '2024-05-01',
        ar_code_id: 101,
        transactions: 1,
        charges: '1200.00',
        deposits: '0.00',
        payments: '0.00',
        concessions: '0.00',
        refunds: '0.00',
        write_offs: '0.00',
        net_amount: '1200.00',
      },
      {
        post_month: '2024-06-01',
        ar_code_id: 101,
        transactions: 1,
        charges: '1500.00',
        deposits: '0.00',
        payments: '0.00',
        concessions: '0.00',
        refunds: '0.00',
        write_offs: '0.00',
        net_amount: '1500.00',
      },
      // the late fee posted at 23:30 local time on June 30 belongs to June
      {
        post_month: '2024-06-01',
        ar_code_id: 110,
        transactions: 1,
        charges: '75.00',
        deposits: '0.00',
        payments: '0.00',
        concessions: '0.00',
        refunds: '0.00',
        write_offs: '0.00',
        net_amount: '75.00',
      },
      // the returned payment and its reversal are left out
      {
        post_month: '2024-06-01',
        ar_code_id: 160,
        transactions: 1,
        charges: '0.00',
        deposits: '0.00',
        payments: '-1000.00',
        concessions: '0.00',
        refunds: '0.00',
        write_offs: '0.00',
        net_amount: '-1000.00',
      },
      {
        post_month: '2024-06-01',
        ar_code_id: 170,
        transactions: 1,
        charges: '0.00',
        deposits: '0.00',
        payments: '0.00',
        concessions: '0.00',
        refunds: '300.00',
        write_offs: '0.00',
        net_amount: '300.00',
      },
      {
        post_month: '2024-06-01',
        ar_code_id: 180,
        transactions: 1,
        charges: '0.00',
        deposits: '0.00',
        payments: '0.00',
        concessions: '0.00',
        refunds: '0.00',
        write_offs: '-250.00',
        net_amount: '-250.00',
      },
    ]);
  });

  it('vendor_spend_monthly: refunds to residents left out, credit memos netted (a full reversal to zero), split by line property', async () => {
    expect(
      await rows(`select * from reporting.vendor_spend_monthly order by post_month, vendor_id, property_id`),
    ).toEqual([
      {
        account_id: 'default',
        account_name: 'Front Range Homes',
        post_month: '2024-05-01',
        vendor_id: 501,
        vendor_name: 'Acme Plumbing',
        property_id: 100,
        property_name: 'Maple Court',
        invoices: 1,
        credit_memos: 0,
        amount: '250.00',
        credit_memo_amount: '0.00',
      },
      {
        account_id: 'default',
        account_name: 'Front Range Homes',
        post_month: '2024-06-01',
        vendor_id: 501,
        vendor_name: 'Acme Plumbing',
        property_id: 100,
        property_name: 'Maple Court',
        invoices: 1,
        credit_memos: 1,
        amount: '350.00',
        credit_memo_amount: '-50.00',
      },
      {
        account_id: 'default',
        account_name: 'Front Range Homes',
        post_month: '2024-06-01',
        vendor_id: 501,
        vendor_name: 'Acme Plumbing',
        property_id: 200,
        property_name: 'Oak Plaza',
        invoices: 1,
        credit_memos: 0,
        amount: '100.00',
        credit_memo_amount: '0.00',
      },
      {
        // Invoice 4 and the credit memo 5 that reverses it in full: both posted, netting to zero.
        account_id: 'default',
        account_name: 'Front Range Homes',
        post_month: '2024-06-01',
        vendor_id: 502,
        vendor_name: 'Bright Electric',
        property_id: 100,
        property_name: 'Maple Court',
        invoices: 1,
        credit_memos: 1,
        amount: '0.00',
        credit_memo_amount: '-800.00',
      },
      {
        account_id: 'default',
        account_name: 'Front Range Homes',
        post_month: '2024-07-01',
        vendor_id: 502,
        vendor_name: 'Bright Electric',
        property_id: 200,
        property_name: 'Oak Plaza',
        invoices: 1,
        credit_memos: 0,
        amount: '60.00',
        credit_memo_amount: '0.00',
      },
    ]);
  });

  it('ap_open_invoices: invoices with an amount due and days past due as of today', async () => {
    const open = `select invoice_id, invoice_type_id, vendor_name, property_id, property_name, property_count, due_date, amount_due, days_past_due, as_of_date from reporting.ap_open_invoices order by invoice_id`;
    expect(await rows(open)).toEqual([
      {
        invoice_id: 1,
        invoice_type_id: 5,
        vendor_name: 'Acme Plumbing',
        property_id: null,
        property_name: null,
        property_count: 2,
        due_date: '2024-06-10',
        amount_due: '500.00',
        days_past_due: 20,
        as_of_date: '2024-06-30',
      },
      {
        invoice_id: 2,
        invoice_type_id: 12,
        vendor_name: 'Acme Plumbing',
        property_id: 100,
        property_name: 'Maple Court',
        property_count: 1,
        due_date: '2024-06-15',
        amount_due: '-50.00',
        days_past_due: 15,
        as_of_date: '2024-06-30',
      },
      {
        invoice_id: 3,
        invoice_type_id: 20,
        vendor_name: 'Ann Primary',
        property_id: 100,
        property_name: 'Maple Court',
        property_count: 1,
        due_date: '2024-06-30',
        amount_due: '300.00',
        days_past_due: 0,
        as_of_date: '2024-06-30',
      },
      {
        invoice_id: 8,
        invoice_type_id: 5,
        vendor_name: 'Bright Electric',
        property_id: 200,
        property_name: 'Oak Plaza',
        property_count: 1,
        due_date: '2024-07-31',
        amount_due: '60.00',
        days_past_due: 0,
        as_of_date: '2024-06-30',
      },
    ]);
    await inTimeZone('UTC', async () => {
      expect((await rows(open)).map((row: any) => [row.invoice_id, row.days_past_due])).toEqual([
        [1, 21],
        [2, 16],
        [3, 1],
        [8, 0],
      ]);
    });
  });

  it('ap_open_by_property: open payables per property, an invoice of two properties split by its lines', async () => {
    expect(
      await rows(`select property_id, invoices, amount_due, retention_held, open_credit, owed, not_yet_due, days_1_30,
                         over_90, refunds_due
                    from reporting.ap_open_by_property order by property_id`),
    ).toEqual([
      // Invoice 1's 400 of 500 and credit memo 2; the refund to a resident apart.
      {
        property_id: 100,
        invoices: 2,
        amount_due: '350.00',
        retention_held: '0.00',
        open_credit: '-50.00',
        owed: '400.00',
        not_yet_due: '0.00',
        days_1_30: '400.00',
        over_90: '0.00',
        refunds_due: '300.00',
      },
      // Invoice 1's other 100, and invoice 8 not yet due.
      {
        property_id: 200,
        invoices: 2,
        amount_due: '160.00',
        retention_held: '0.00',
        open_credit: '0.00',
        owed: '160.00',
        not_yet_due: '60.00',
        days_1_30: '100.00',
        over_90: '0.00',
        refunds_due: '0.00',
      },
    ]);
  });

  it('voided_payments_log: each voided payment the source still lists, on invoices it still lists', async () => {
    expect(await rows(`select * from reporting.voided_payments_log`)).toEqual([
      {
        account_id: 'default',
        account_name: 'Front Range Homes',
        invoice_id: 7,
        invoice_number: 'INV-7',
        invoice_type: 'Standard',
        vendor_id: 501,
        vendor_name: 'Acme Plumbing',
        property_id: 100,
        property_name: 'Maple Court',
        payment_id: 9001,
        payment_number: '1001',
        amount: '250.00',
        payment_date: '2024-05-20',
        voided_on: '2024-05-25',
        voided_by: 'jsmith',
        void_reason: 'Wrong amount',
      },
    ]);
  });

  it('properties: one row per property with its name (from its leases and invoice lines while the source lists no property)', async () => {
    expect(
      await rows(
        `select account_id, account_name, property_id, property_name, property_type, year_built from reporting.properties order by property_id`,
      ),
    ).toEqual([
      {
        account_id: 'default',
        account_name: 'Front Range Homes',
        property_id: 100,
        property_name: 'Maple Court',
        property_type: null,
        year_built: null,
      },
      {
        account_id: 'default',
        account_name: 'Front Range Homes',
        property_id: 200,
        property_name: 'Oak Plaza',
        property_type: null,
        year_built: null,
      },
    ]);
  });

  it('properties: read from the property dimension where the source lists the property', async () => {
    await sql`
      insert into properties (account_id, property_id, marketing_name, property_type, is_disabled, city, state, raw, parent_property_id, lookup_code, year_built, ar_post_month, ap_post_month)
      values ('default', 100, 'Maple Court Residences', 'Apartment', false, 'Boulder', 'CO', '{}', null, 'MCR1', 1987, '2024-06-01', '2024-05-01'),
             ('default', 300, 'Aspen Annex', 'Apartment', false, 'Boulder', 'CO', '{}', 100, 'AA3', 2004, null, null)`.execute(
      db,
    );
    try {
      await refreshReporting(db, { timeZone: 'America/Denver' });
      expect(
        await rows(
          `select property_id, property_name, parent_property_id, lookup_code, year_built, city, ar_post_month::text from reporting.properties order by property_id`,
        ),
      ).toEqual([
        {
          property_id: 100,
          property_name: 'Maple Court Residences',
          parent_property_id: null,
          lookup_code: 'MCR1',
          year_built: 1987,
          city: 'Boulder',
          ar_post_month: '2024-06-01',
        },
        {
          property_id: 200,
          property_name: 'Oak Plaza',
          parent_property_id: null,
          lookup_code: null,
          year_built: null,
          city: null,
          ar_post_month: null,
        },
        {
          property_id: 300,
          property_name: 'Aspen Annex',
          parent_property_id: 100,
          lookup_code: 'AA3',
          year_built: 2004,
          city: 'Boulder',
          ar_post_month: null,
        },
      ]);
      // The other views name the property as the dimension does.
      expect(
        await rows(`select distinct property_name from reporting.rent_roll where property_id = 100`),
      ).toEqual([{ property_name: 'Maple Court Residences' }]);
    } finally {
      await sql`delete from properties where account_id = 'default'`.execute(db);
      await refreshReporting(db, { timeZone: 'America/Denver' });
    }
  });

  it("follows the source's today when its clock runs ahead of the server's (a simulator's does)", async () => {
    // A run that started at noon on June 30 (Denver) while the source said July 7: a week ahead.
    await sql`insert into sync_runs (account_id, kind, streams, started_at, source_today) values ('default', 'sync', '{leases}', '2024-06-30T18:00:00Z', '2024-07-07')`.execute(
      db,
    );
    try {
      await refreshReporting(database.db, { timeZone: 'America/Denver' });
      const { rows: ahead } = await sql<{ days: number; offset: number }>`
        select reporting.today() - (now() at time zone 'America/Denver')::date as days, (select source_day_offset from reporting.settings) as offset`.execute(
        database.db,
      );
      expect(ahead).toEqual([{ days: 7, offset: 7 }]);
      // A session clock (reporting.now) is taken as it is.
      expect(await rows('select reporting.today()::text as today')).toEqual([{ today: '2024-06-30' }]);
    } finally {
      await sql`delete from sync_runs`.execute(db);
      await refreshReporting(db, { timeZone: 'America/Denver' });
    }
  });
});
