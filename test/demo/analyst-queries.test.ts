import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  arAging,
  lastMonthEnd,
  asOfDay,
  boxScore,
  DEMO_READER,
  ensureDemoReader,
  occupancyByProperty,
  portfolio,
  vendorSpendByMonth,
} from '../../src/demo/analyst-queries.js';
import { analystAnswers, biToolLines } from '../../src/demo/report.js';
import { refreshReporting } from '../../src/reporting/refresh.js';
import type { Db, Warehouse } from '../../src/catalog/tables.js';
import { connect } from '../../src/warehouse/db.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { FIXTURE_NOW, insertFixture, SOUTH } from '../reporting/fixture.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe('analyst queries read the reporting views', () => {
  it('answer on an empty warehouse', async () => {
    expect(await occupancyByProperty(database.db)).toEqual([]);
    const aging = await arAging(database.db, '2024-06-15');
    expect(aging.map((row) => [row.bucket, row.leases, row.balance])).toEqual([
      ['not yet due', 0, '0.00'],
      ['1-30 days', 0, '0.00'],
      ['31-60 days', 0, '0.00'],
      ['61-90 days', 0, '0.00'],
      ['over 90 days', 0, '0.00'],
    ]);
    expect(await vendorSpendByMonth(database.db)).toEqual([]);
    expect(await asOfDay(database.db)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('answer occupancy, aging and spend from the reporting fixture', async () => {
    await insertFixture(database.db);
    // The views as a sync at 23:30 on 2024-06-30 (Denver) leaves them.
    const session: Db = connect<Warehouse>(database.url, { maxConnections: 1 });
    try {
      await sql`select set_config('reporting.now', ${FIXTURE_NOW}, false)`.execute(session);
      await refreshReporting(session, { timeZone: 'America/Denver' });
      expect(await asOfDay(session)).toBe('2024-06-30');
    } finally {
      await session.destroy();
    }
    expect(await occupancyByProperty(database.db)).toEqual([
      {
        accountId: 'default',
        propertyId: 100,
        propertyName: 'Maple Court',
        units: 4,
        occupied: 2,
        occupancyPercent: '50.0',
      },
      {
        accountId: 'default',
        propertyId: 200,
        propertyName: 'Oak Plaza',
        units: 1,
        occupied: 1,
        occupancyPercent: '100.0',
      },
    ]);
    // Residents' aging at the end of a day, replayed from the fixture's ledger (credits pay the oldest
    // charges first; the cancelled lease 5 left out). On 2024-06-30, lease 1: 1,100 of credits leave 400
    // of February's rent (over 90), June's 1,500 (1-30) and the late fee due that day; lease 2: May's
    // 1,200 (31-60); lease 3's refund, write-off and concession net to nothing.
    const aging = async (day: string) =>
      (await arAging(database.db, day)).map((row) => [row.bucket, row.leases, row.balance]);
    expect(await aging('2024-06-30')).toEqual([
      ['not yet due', 1, '75.00'],
      ['1-30 days', 1, '1500.00'],
      ['31-60 days', 1, '1200.00'],
      ['61-90 days', 0, '0.00'],
      ['over 90 days', 1, '400.00'],
    ]);
    // On June 11 the payment returned on the 12th still counts: 1,600 of credits pay February's rent
    // and 100 of June's (1,400 open, 10 days past due); lease 3's refund and write-off net to nothing.
    expect(await aging('2024-06-11')).toEqual([
      ['not yet due', 0, '0.00'],
      ['1-30 days', 1, '1400.00'],
      ['31-60 days', 1, '1200.00'],
      ['61-90 days', 0, '0.00'],
      ['over 90 days', 0, '0.00'],
    ]);
    // At the May month end, June's charges and payments are not yet posted: February's rent less its
    // concession (over 90), May's rent 30 days past due, lease 3's April concession an open credit.
    expect(await aging(lastMonthEnd('2024-06-15'))).toEqual([
      ['not yet due', 0, '0.00'],
      ['1-30 days', 1, '1200.00'],
      ['31-60 days', 1, '-50.00'],
      ['61-90 days', 0, '0.00'],
      ['over 90 days', 1, '1400.00'],
    ]);
    // Homes' spaces of the fixture's inventory: 101 occupied, 102-A and 102-B on notice (A pre-leased),
    // 103 vacant, 105 down; parking P-1 left out. No sync read the inventory: it is as of today, when no
    // rent charge of the fixture is in effect any more.
    expect(await boxScore(database.db)).toEqual([
      {
        accountId: 'default',
        propertyId: 100,
        propertyName: 'Maple Court',
        units: 5,
        occupied: 3,
        vacant: 1,
        onNotice: 2,
        preleased: 1,
        occupiedPercent: '60.0',
        leasedPercent: '40.0',
        marketRent: '1430.00',
        leaseRent: null,
      },
      {
        accountId: 'default',
        propertyId: 200,
        propertyName: 'Oak Plaza',
        units: 1,
        occupied: 1,
        vacant: 0,
        onNotice: 0,
        preleased: 0,
        occupiedPercent: '100.0',
        leasedPercent: '100.0',
        marketRent: '1400.00',
        leaseRent: null,
      },
    ]);
    // The session clock of arAging does not leak into the pool's next query.
    const { rows } = await sql<{
      now: string | null;
    }>`select nullif(current_setting('reporting.now', true), '') as now`.execute(database.db);
    expect(rows[0].now).toBeNull();
    expect(await vendorSpendByMonth(database.db, 2)).toEqual([
      {
        month: '2024-07',
        invoices: 1,
        vendors: 1,
        spend: '60.00',
        topVendor: 'Bright Electric',
        topVendorSpend: '60.00',
      },
      {
        month: '2024-06',
        // A full reversal and the invoice it reverses are both posted spend: they net to zero by their amounts.
        invoices: 5,
        vendors: 2,
        spend: '450.00',
        topVendor: 'Acme Plumbing',
        topVendorSpend: '450.00',
      },
    ]);
  });

  it('show one account without a portfolio, and several side by side, each property and vendor under its account', async () => {
    const titles = async () =>
      (await analystAnswers(database.db, '2024-06-30')).map((answer) => answer.title.replace(/ \(.*/, ''));
    expect(await titles()).toEqual([
      'Occupancy by property',
      'Box score by property',
      'AR balance by aging bucket at the end of 2024-05-31',
      'Vendor spend by month',
    ]);

    // Account south: the same ids, other data (see test/reporting/fixture.ts).
    await insertFixture(database.db, 'south', SOUTH);
    await sql`insert into accounts (account_id, name) values ('south', 'South Estates')`.execute(database.db);
    const session: Db = connect<Warehouse>(database.url, { maxConnections: 1 });
    try {
      await sql`select set_config('reporting.now', ${FIXTURE_NOW}, false)`.execute(session);
      await refreshReporting(session, { timeZone: 'America/Denver' });
      expect(await portfolio(session)).toEqual([
        {
          accountId: 'default',
          accountName: null,
          properties: 2,
          units: 5,
          occupied: 3,
          occupancyPercent: '60.0',
          currentLeases: 3,
          openAr: '1025.00',
          pastDueAr: '950.00',
          openApInvoices: 4,
          openAp: '810.00',
        },
        {
          accountId: 'south',
          accountName: 'South Estates',
          properties: 2,
          units: 5,
          occupied: 3,
          occupancyPercent: '60.0',
          currentLeases: 3,
          openAr: '1450.00',
          pastDueAr: '1300.00',
          openApInvoices: 4,
          openAp: '1620.00',
        },
      ]);
      expect(
        (await occupancyByProperty(session)).map((row) => [row.accountId, row.propertyId, row.propertyName]),
      ).toEqual([
        ['default', 100, 'Maple Court'],
        ['default', 200, 'Oak Plaza'],
        ['south', 100, 'South Maple Court'],
        ['south', 200, 'South Oak Plaza'],
      ]);
      // Vendor 502 of each account is a vendor of its own.
      expect(await vendorSpendByMonth(session, 1)).toEqual([
        {
          month: '2024-07',
          invoices: 2,
          vendors: 2,
          spend: '180.00',
          topVendor: 'South Bright Electric',
          topVendorSpend: '120.00',
        },
      ]);
      expect(await titles()).toEqual([
        'Portfolio by account',
        'Occupancy by property',
        'Box score by property',
        'AR balance by aging bucket at the end of 2024-05-31',
        'Vendor spend by month',
      ]);
    } finally {
      await session.destroy();
      for (const table of [
        'leases',
        'lease_intervals',
        'lease_customers',
        'lease_unit_spaces',
        'lease_scheduled_charges',
        'ar_transactions',
        'invoices',
        'invoice_line_items',
        'voided_payments',
        'accounts',
      ]) {
        await sql`delete from ${sql.id(table)} where account_id = 'south'`.execute(database.db);
      }
    }
  });

  it('make a reader role and tell how to point a BI tool at the demo database', async () => {
    try {
      expect(await ensureDemoReader(database.db)).toBe(DEMO_READER.role);
      expect(await ensureDemoReader(database.db)).toBe(DEMO_READER.role);
      const lines = biToolLines(database.url, DEMO_READER);
      expect(lines.every((line) => line.startsWith('[demo] '))).toBe(true);
      const url = new URL(database.url);
      expect(lines.join('\n')).toContain(
        `host ${url.hostname}, port ${url.port || '5432'}, database ${database.name}`,
      );
      expect(lines.join('\n')).toContain(`user ${DEMO_READER.role}`);
    } finally {
      await sql`drop owned by ${sql.id(DEMO_READER.role)}`.execute(database.db);
      // A role is the server's: a database another run left behind may still grant it (2BP01); it is
      // then kept, as the demo keeps it.
      await sql`drop role if exists ${sql.id(DEMO_READER.role)}`
        .execute(database.db)
        .catch((error: { code?: string }) => {
          if (error.code !== '2BP01') throw error;
        });
    }
  });
});
