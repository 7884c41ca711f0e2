import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Warehouse } from '../../src/catalog/tables.js';
import { refreshReporting } from '../../src/reporting/refresh.js';
import { connect } from '../../src/warehouse/db.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/**
 * Two accounts an hour apart, at midnight in the eastern one: 00:30 on July 1 in New York is
 * still 23:30 on June 30 in Chicago, so east's today is a day after west's. Both hold the same
 * rows; every view must count each by its own account's day (issue 44).
 */
const MIDNIGHT_EAST = '2024-07-01T04:30:00Z';
const ACCOUNTS = [
  { id: 'east', timeZone: 'America/New_York' },
  { id: 'west', timeZone: 'America/Chicago' },
];

let database: TestDatabase;
/** One connection whose session clock is MIDNIGHT_EAST. */
let db: Db;

/** The same rows in `account`: two leases (one moving in on July 1), two open AR items, a due invoice. */
async function insertAccount(account: string): Promise<void> {
  const run = (text: string) => sql.raw(text.replaceAll('$account', `'${account}'`)).execute(database.db);
  await run(`insert into accounts (account_id, name) values ($account, initcap($account))`);
  await run(`
    insert into leases (account_id, lease_id, property_id, property_name, unit_id, unit_number, lease_status_type_id,
                        lease_status, move_in_date, current_lease_interval_id, is_other_income, raw)
    values ($account, 1, 10, 'Elm Court', 11, '11', 4, 'Current', '2024-01-01', 101, false, '{}'),
           ($account, 2, 10, 'Elm Court', 12, '12', 4, 'Current', '2024-07-01', 102, false, '{}')`);
  await run(`
    insert into lease_intervals (account_id, lease_interval_id, lease_id, lease_interval_type_id, start_date, end_date,
                                 is_current, raw)
    values ($account, 101, 1, 1, '2024-01-01', '2024-12-31', true, '{}'),
           ($account, 102, 2, 1, '2024-07-01', '2025-06-30', true, '{}')`);
  await run(`
    insert into lease_scheduled_charges (account_id, scheduled_charge_id, lease_id, lease_interval_id, frequency,
                                         start_date, amount, raw)
    values ($account, 1, 1, 101, 'Monthly', '2024-01-01', 1000, '{}'),
           ($account, 2, 1, 101, 'Monthly', '2024-07-01', 50, '{}')`);
  await run(`
    insert into ar_transactions (account_id, ar_transaction_id, lease_id, property_id, transaction_type_id, post_month,
                                 due_date, amount, balance_due, is_temporary, is_reversed, raw)
    values ($account, 1, 1, 10, 1, '2024-06-01', '2024-06-30', 100, 100, false, false, '{}'),
           ($account, 2, 1, 10, 1, '2024-04-01', '2024-04-01', 200, 200, false, false, '{}')`);
  await run(`
    insert into invoices (account_id, invoice_id, vendor_id, vendor_name, invoice_type_id, post_month, due_date,
                          amount, amount_due, raw)
    values ($account, 1, 7, 'Plumber', 5, '2024-06-01', '2024-06-30', 50, 50, '{}')`);
}

beforeAll(async () => {
  database = await createTestDatabase();
  for (const { id } of ACCOUNTS) await insertAccount(id);
  db = connect<Warehouse>(database.url, { maxConnections: 1 });
  await sql`select set_config('reporting.now', ${MIDNIGHT_EAST}, false)`.execute(db);
  // As at the end of a sync of both accounts: each account's zone stored, the views refreshed.
  await refreshReporting(db, { timeZone: 'America/Denver', accounts: ACCOUNTS });
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

async function rows(query: string): Promise<unknown[]> {
  return (await sql.raw(query).execute(db)).rows;
}

describe("each account's own today", () => {
  it("reporting.today(account) is the day in the account's zone; an unknown account takes the default zone", async () => {
    expect(
      await rows(`select reporting.today('east')::text as east, reporting.today('west')::text as west,
                         reporting.today('south')::text as unknown, reporting.today()::text as default`),
    ).toEqual([{ east: '2024-07-01', west: '2024-06-30', unknown: '2024-06-30', default: '2024-06-30' }]);
  });

  it('ar_aging: an item due June 30 is past due in the east only, one due April 1 is over 90 days there only', async () => {
    expect(
      await rows(`select account_id, as_of_date::text, not_yet_due, days_1_30, days_61_90, over_90
                    from reporting.ar_aging order by account_id`),
    ).toEqual([
      {
        account_id: 'east',
        as_of_date: '2024-07-01',
        not_yet_due: '0.00',
        days_1_30: '100.00',
        days_61_90: '0.00',
        over_90: '200.00',
      },
      {
        account_id: 'west',
        as_of_date: '2024-06-30',
        not_yet_due: '100.00',
        days_1_30: '0.00',
        days_61_90: '200.00',
        over_90: '0.00',
      },
    ]);
    expect(
      await rows(
        `select account_id, as_of_date::text, over_90 from reporting.ar_aging_by_property order by account_id`,
      ),
    ).toEqual([
      { account_id: 'east', as_of_date: '2024-07-01', over_90: '200.00' },
      { account_id: 'west', as_of_date: '2024-06-30', over_90: '0.00' },
    ]);
  });

  it("rent_roll: charges in effect and past due balances by the account's day", async () => {
    expect(
      await rows(`select account_id, lease_id, monthly_charges, past_due_balance, as_of_date::text
                    from reporting.rent_roll where lease_id = 1 order by account_id`),
    ).toEqual([
      {
        account_id: 'east',
        lease_id: 1,
        monthly_charges: '1050.00',
        past_due_balance: '300.00',
        as_of_date: '2024-07-01',
      },
      {
        account_id: 'west',
        lease_id: 1,
        monthly_charges: '1000.00',
        past_due_balance: '200.00',
        as_of_date: '2024-06-30',
      },
    ]);
  });

  it('lease activity and occupancy: the July 1 move-in counts in the east only', async () => {
    expect(
      await rows(`select account_id, month::text, move_ins from reporting.lease_activity_monthly
                   where month = '2024-07-01' order by account_id`),
    ).toEqual([{ account_id: 'east', month: '2024-07-01', move_ins: 1 }]);
    expect(
      await rows(`select distinct on (account_id) account_id, month::text, as_of_date::text, units_occupied
                    from reporting.occupancy_monthly order by account_id, month desc`),
    ).toEqual([
      { account_id: 'east', month: '2024-07-01', as_of_date: '2024-07-01', units_occupied: 2 },
      { account_id: 'west', month: '2024-06-01', as_of_date: '2024-06-30', units_occupied: 1 },
    ]);
  });

  it("open payables and the portfolio, each by its account's day", async () => {
    expect(
      await rows(
        `select account_id, days_past_due, as_of_date::text from reporting.ap_open_invoices order by account_id`,
      ),
    ).toEqual([
      { account_id: 'east', days_past_due: 1, as_of_date: '2024-07-01' },
      { account_id: 'west', days_past_due: 0, as_of_date: '2024-06-30' },
    ]);
    expect(
      await rows(
        `select account_id, past_due_ar_balance, as_of_date::text from reporting.portfolio order by account_id`,
      ),
    ).toEqual([
      { account_id: 'east', past_due_ar_balance: '300.00', as_of_date: '2024-07-01' },
      { account_id: 'west', past_due_ar_balance: '200.00', as_of_date: '2024-06-30' },
    ]);
  });

  it("keeps each account's source day: a source a day ahead moves that account's today only", async () => {
    const other = connect<Warehouse>(database.url, { maxConnections: 1 });
    try {
      // West's latest run planned with a source today one day after the server's day in Chicago.
      await sql`
        insert into sync_runs (account_id, kind, streams, status, started_at, source_today)
        values ('west', 'sync', '{}', 'succeeded', now(), (now() at time zone 'America/Chicago')::date + 1)`.execute(
        other,
      );
      await refreshReporting(other, { timeZone: 'America/Denver', accounts: ACCOUNTS });
      const { rows: days } = await sql<{ east: number; west: number; source_today: string }>`
        select reporting.today('east') - (now() at time zone 'America/New_York')::date as east,
               reporting.today('west') - (now() at time zone 'America/Chicago')::date as west,
               (select source_today::text from reporting_private.account_settings where account_id = 'west')
                 as source_today`.execute(other);
      expect(days[0]).toMatchObject({ east: 0, west: 1 });
      expect(days[0].source_today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    } finally {
      await other.destroy();
    }
  });
});
