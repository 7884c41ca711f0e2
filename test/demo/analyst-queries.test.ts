import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arAging, asOfDay, occupancyByProperty, vendorSpendByMonth } from '../../src/demo/analyst-queries.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

const raw = {};

describe('analyst queries', () => {
  it('answer on an empty warehouse', async () => {
    expect(await occupancyByProperty(database.db)).toEqual([]);
    const aging = await arAging(database.db, '2024-06-15');
    expect(aging.map((row) => [row.bucket, row.transactions, row.balance])).toEqual([
      ['not yet due', 0, '0.00'],
      ['1-30 days', 0, '0.00'],
      ['31-60 days', 0, '0.00'],
      ['61-90 days', 0, '0.00'],
      ['over 90 days', 0, '0.00'],
    ]);
    expect(await vendorSpendByMonth(database.db)).toEqual([]);
    expect(await asOfDay(database.db, 'America/Denver')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('compute occupancy, aging and spend from rows', async () => {
    const db = database.db;
    const lease = (id: number, property: number, unit: number, status: number, extra: object = {}) => ({ lease_id: id, property_id: property, property_name: `P${property}`, unit_id: unit, lease_status_type_id: status, raw, ...extra });
    await db.insertInto('leases').values([
      lease(1, 100, 1, 4),
      lease(2, 100, 2, 5),
      lease(3, 100, 3, 6),
      lease(4, 100, 1, 6), // an old lease of an occupied unit
      lease(5, 100, 9, 4, { is_other_income: true }), // parking: not a unit
      lease(6, 100, 8, 4, { deleted_at: new Date() }), // no longer listed
      lease(7, 200, 20, 2),
    ]).execute();
    expect(await occupancyByProperty(db)).toEqual([
      { propertyId: 100, propertyName: 'P100', units: 3, occupied: 2, occupancyPercent: '66.7' },
      { propertyId: 200, propertyName: 'P200', units: 1, occupied: 0, occupancyPercent: '0.0' },
    ]);

    const ar = (id: number, due: string | null, balance: string, extra: object = {}) => ({ ar_transaction_id: id, lease_id: 1, property_id: 100, due_date: due, balance_due: balance, raw, ...extra });
    await db.insertInto('ar_transactions').values([
      ar(1, '2024-06-20', '100.10'),
      ar(2, '2024-06-15', '1.00'), // due today: not yet past due
      ar(3, '2024-06-14', '10.00'),
      ar(4, '2024-05-16', '20.00'), // 30 days
      ar(5, '2024-05-15', '30.00'), // 31 days
      ar(6, '2024-03-17', '40.00'), // 90 days
      ar(7, '2024-01-01', '-5.50'),
      ar(8, '2024-01-01', '0.00'),
      ar(9, '2024-01-01', '999.00', { is_temporary: true }),
      ar(10, '2024-01-01', '999.00', { deleted_at: new Date() }),
    ]).execute();
    expect((await arAging(db, '2024-06-15')).map((row) => [row.bucket, row.transactions, row.balance])).toEqual([
      ['not yet due', 2, '101.10'],
      ['1-30 days', 2, '30.00'],
      ['31-60 days', 1, '30.00'],
      ['61-90 days', 1, '40.00'],
      ['over 90 days', 1, '-5.50'],
    ]);

    const invoice = (id: number, vendor: number, month: string, amount: string, extra: object = {}) => ({ invoice_id: id, vendor_id: vendor, vendor_name: `V${vendor}`, post_month: month, amount, invoice_type_id: 5, raw, ...extra });
    await db.insertInto('invoices').values([
      invoice(1, 1, '2024-05-01', '100.00'),
      invoice(2, 2, '2024-05-01', '250.00'),
      invoice(3, 2, '2024-05-01', '-50.00', { invoice_type_id: 12 }),
      invoice(4, 1, '2024-06-01', '10.00'),
      invoice(5, 3, '2024-06-01', '5000.00', { invoice_type_id: 20 }), // refund to a resident
      invoice(6, 1, '2024-04-01', '1.00'),
      invoice(7, 1, '2024-06-01', '7.00', { deleted_at: new Date() }),
    ]).execute();
    expect(await vendorSpendByMonth(db, 2)).toEqual([
      { month: '2024-06', invoices: 1, vendors: 1, spend: '10.00', topVendor: 'V1', topVendorSpend: '10.00' },
      { month: '2024-05', invoices: 3, vendors: 2, spend: '300.00', topVendor: 'V2', topVendorSpend: '200.00' },
    ]);

    await db.insertInto('sync_runs').values({ kind: 'sync', streams: ['leases'], source_today: '2024-06-15' }).execute();
    expect(await asOfDay(db, 'America/Denver')).toBe('2024-06-15');
  });
});
