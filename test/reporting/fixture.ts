import { sql } from 'kysely';
import type { Db } from '../../src/catalog/tables.js';

/**
 * A small warehouse whose reporting answers are computed by hand (see views.test.ts). Today is
 * 2024-06-30 in America/Denver: the tests set reporting.now to 2024-07-01 05:30 UTC, which is
 * 23:30 local time on the last day of June.
 *
 * Property 100 "Maple Court": lease 1 (Current, two customers, the primary not the lowest id),
 * lease 2 (Notice, two unit spaces, renewed in January), lease 3 (Past), lease 4 (Current but
 * soft-deleted), lease 5 (Cancelled), lease 6 (parking, other income). Property 200 "Oak
 * Plaza": lease 8 (Current, moved in on June 30, no customers). The unit inventory: Maple Court's
 * units 101 (occupied), 102 (two spaces on notice, one pre-leased), 103 (vacant, not ready), 105
 * (down) and parking P-1; Oak Plaza's 201 (occupied).
 */
export const FIXTURE_NOW = '2024-07-01T05:30:00Z';

const raw = {};

type FixtureTable =
  | 'leases'
  | 'lease_intervals'
  | 'lease_customers'
  | 'lease_unit_spaces'
  | 'lease_scheduled_charges'
  | 'ar_transactions'
  | 'invoices'
  | 'invoice_line_items'
  | 'voided_payments'
  | 'unit_inventories'
  | 'units'
  | 'unit_spaces';
const deleted = new Date('2024-06-20T12:00:00Z');

/** Changes a row of `table` before it is inserted, or leaves it out (undefined). */
export type FixtureTweak = (
  table: string,
  row: Record<string, unknown>,
) => Record<string, unknown> | undefined;

/**
 * Inserts the fixture as the rows of `account` (default: the one-account form's `default`),
 * each row through `tweak` when given (another account's different data under the same ids).
 */
export async function insertFixture(
  db: Db,
  account = 'default',
  tweak: FixtureTweak = (_table, row) => row,
): Promise<void> {
  const insert = inserter(db, account, tweak);
  const lease = (
    id: number,
    property: number,
    unit: number,
    unitNumber: string,
    status: number,
    statusName: string,
    interval: number,
    extra: object = {},
  ) => ({
    lease_id: id,
    property_id: property,
    property_name: property === 100 ? 'Maple Court' : 'Oak Plaza',
    unit_id: unit,
    unit_number: unitNumber,
    building_name: 'A',
    floor_plan_name: '1x1',
    lease_status_type_id: status,
    lease_status: statusName,
    current_lease_interval_id: interval,
    is_month_to_month: false,
    raw,
    ...extra,
  });
  await insert('leases', [
    lease(1, 100, 1, '101', 4, 'Current', 11, { move_in_date: '2024-01-15' }),
    lease(2, 100, 2, '102', 5, 'Notice', 21, { move_in_date: '2023-07-01', move_out_date: '2024-07-15' }),
    lease(3, 100, 3, '103', 6, 'Past', 31, { move_in_date: '2023-03-01', move_out_date: '2024-05-20' }),
    lease(4, 100, 4, '104', 4, 'Current', 41, { move_in_date: '2024-02-01', deleted_at: deleted }),
    lease(5, 100, 5, '105', 2, 'Cancelled', 51, { move_in_date: '2024-05-10' }),
    lease(6, 100, 900, 'P-1', 4, 'Current', 61, {
      move_in_date: '2024-02-01',
      is_other_income: true,
      building_name: 'Garage',
      floor_plan_name: 'Parking',
    }),
    lease(8, 200, 21, '201', 4, 'Current', 81, { move_in_date: '2024-06-30' }),
  ]);

  const interval = (
    id: number,
    leaseId: number,
    type: number,
    start: string,
    end: string,
    current = true,
  ) => ({
    lease_interval_id: id,
    lease_id: leaseId,
    lease_interval_type_id: type,
    start_date: start,
    end_date: end,
    is_current: current,
    raw,
  });
  await insert('lease_intervals', [
    interval(11, 1, 1, '2024-01-15', '2024-12-31'),
    interval(12, 1, 3, '2025-01-01', '2025-12-31', false), // a signed renewal, not started
    interval(20, 2, 1, '2023-07-01', '2023-12-31', false),
    interval(21, 2, 3, '2024-01-01', '2024-07-31'), // renewal started in January 2024
    interval(31, 3, 1, '2023-03-01', '2024-02-29'),
    interval(41, 4, 1, '2024-02-01', '2025-01-31'),
    interval(51, 5, 1, '2024-05-10', '2025-05-09'),
    interval(61, 6, 1, '2024-02-01', '2025-01-31'),
    interval(81, 8, 1, '2024-06-30', '2025-06-29'),
  ]);

  const customer = (
    leaseId: number,
    id: number,
    type: string,
    first: string,
    last: string,
    extra: object = {},
  ) => ({
    lease_id: leaseId,
    customer_id: id,
    customer_type: type,
    relationship_name: type === 'Primary' ? 'Primary' : 'Roommate',
    first_name: first,
    last_name: last,
    name_full: `${first} ${last}`,
    raw,
    ...extra,
  });
  await insert('lease_customers', [
    customer(1, 5, 'Responsible', 'Bob', 'Roommate'),
    customer(1, 9, 'Primary', 'Ann', 'Primary'),
    customer(2, 13, 'Primary', 'Cy', 'Notice'),
    customer(3, 14, 'Primary', 'Dee', 'Past'),
    customer(6, 9, 'Primary', 'Ann', 'Primary'),
    customer(3, 2, 'Primary', 'Old', 'Record', { deleted_at: deleted }), // no longer listed: not the primary
  ]);

  await insert('lease_unit_spaces', [
    { lease_id: 1, unit_space_id: 1001, unit_space: '101', raw },
    { lease_id: 2, unit_space_id: 2001, unit_space: '102-A', raw },
    { lease_id: 2, unit_space_id: 2002, unit_space: '102-B', raw },
    { lease_id: 2, unit_space_id: 2003, unit_space: '102-C', raw, deleted_at: deleted },
  ]);

  const charge = (
    id: number,
    leaseId: number,
    intervalId: number,
    frequency: string,
    amount: string,
    start: string,
    end: string | null,
    extra: object = {},
  ) => ({
    scheduled_charge_id: id,
    lease_id: leaseId,
    lease_interval_id: intervalId,
    frequency,
    amount,
    start_date: start,
    end_date: end,
    raw,
    ...extra,
  });
  await insert('lease_scheduled_charges', [
    charge(1, 1, 11, 'Monthly', '1500.00', '2024-01-15', '2024-12-31', { charge_type: 'Rent' }),
    charge(2, 1, 11, 'Monthly', '50.00', '2024-03-01', '2024-12-31'),
    charge(3, 1, 11, 'One Time', '100.00', '2024-01-15', '2024-01-15'),
    charge(4, 1, 11, 'Monthly', '25.00', '2024-01-15', '2024-05-31'), // ended before today
    charge(5, 1, 11, 'Monthly', '10.00', '2024-01-15', null, { deleted_at: deleted }),
    charge(6, 2, 20, 'Monthly', '1150.00', '2023-07-01', '2023-12-31'), // the earlier interval's rent
    charge(7, 2, 21, 'Monthly', '1200.00', '2024-01-01', '2024-07-31', { charge_type: 'Rent' }),
    charge(8, 6, 61, 'Monthly', '75.00', '2024-02-01', '2025-01-31'),
  ]);

  const ar = (
    id: number,
    leaseId: number,
    type: number,
    code: number,
    codeName: string,
    post: string,
    amount: string,
    balance: string,
    extra: object = {},
  ) => ({
    ar_transaction_id: id,
    lease_id: leaseId,
    property_id: 100,
    transaction_type_id: type,
    ar_code_id: code,
    ar_code_name: codeName,
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
  await insert('ar_transactions', [
    ar(1, 1, 1, 101, 'Rent', '2024-06-01', '1500.00', '500.00'),
    ar(2, 1, 2, 160, 'Resident Payment', '2024-06-03', '-1000.00', '0.00'),
    ar(3, 1, 1, 110, 'Late Fee', '2024-06-30', '75.00', '75.00'), // posted 23:30 local on June 30, due that day
    ar(4, 1, 2, 160, 'Resident Payment', '2024-06-10', '-500.00', '0.00', {
      is_reversed: true,
      ar_payment_id: 7001,
    }), // returned
    ar(5, 1, 2, 160, 'Resident Payment', '2024-06-12', '500.00', '0.00', {
      is_reversed: true,
      ar_payment_id: 7001,
    }), // its reversal
    ar(6, 1, 1, 110, 'Late Fee', '2024-06-15', '999.00', '999.00', { deleted_at: deleted }),
    ar(7, 1, 1, 190, 'Estimated Utilities', '2024-06-20', '40.00', '40.00', { is_temporary: true }),
    ar(8, 1, 1, 101, 'Rent', '2024-02-01', '1500.00', '200.00'),
    ar(9, 1, 3, 140, 'Concession - Move-In Special', '2024-02-01', '-100.00', '0.00'),
    ar(10, 2, 1, 101, 'Rent', '2024-05-01', '1200.00', '300.00'),
    ar(11, 3, 7, 180, 'Bad Debt Write Off', '2024-06-05', '-250.00', '0.00'),
    ar(12, 3, 6, 170, 'Deposit Refund', '2024-06-05', '300.00', '0.00'),
    ar(13, 3, 3, 140, 'Concession - Move-In Special', '2024-04-01', '-50.00', '-50.00'),
    ar(14, 4, 1, 101, 'Rent', '2024-06-01', '400.00', '400.00'), // on the soft-deleted lease
  ]);

  const invoice = (
    id: number,
    type: number,
    vendor: number,
    vendorName: string,
    postMonth: string,
    amount: string,
    amountDue: string,
    due: string,
    extra: object = {},
  ) => ({
    invoice_id: id,
    invoice_number: `INV-${id}`,
    invoice_type_id: type,
    invoice_type: ({ 5: 'Standard', 12: 'Credit Memo', 20: 'Customer Refund' } as Record<number, string>)[
      type
    ],
    vendor_id: vendor,
    vendor_name: vendorName,
    invoice_date: postMonth,
    post_date: postMonth,
    post_month: postMonth,
    due_date: due,
    post_status: 'Posted',
    is_on_hold: false,
    amount,
    amount_due: amountDue,
    raw,
    ...extra,
  });
  await insert('invoices', [
    invoice(1, 5, 501, 'Acme Plumbing', '2024-06-01', '500.00', '500.00', '2024-06-10'),
    invoice(2, 12, 501, 'Acme Plumbing', '2024-06-01', '-50.00', '-50.00', '2024-06-15'),
    invoice(3, 20, 9, 'Ann Primary', '2024-06-01', '300.00', '300.00', '2024-06-30'), // deposit refund to a resident
    invoice(4, 5, 502, 'Bright Electric', '2024-06-01', '800.00', '0.00', '2024-06-20'),
    invoice(5, 12, 502, 'Bright Electric', '2024-06-01', '-800.00', '0.00', '2024-06-20', {
      reversal_invoice_id: 4,
    }),
    invoice(6, 5, 501, 'Acme Plumbing', '2024-06-01', '100.00', '100.00', '2024-06-20', {
      deleted_at: deleted,
    }),
    invoice(7, 5, 501, 'Acme Plumbing', '2024-05-01', '250.00', '0.00', '2024-05-31'),
    invoice(8, 5, 502, 'Bright Electric', '2024-07-01', '60.00', '60.00', '2024-07-31'),
  ]);

  const line = (id: number, invoiceId: number, property: number, amount: string, extra: object = {}) => ({
    line_item_id: id,
    invoice_id: invoiceId,
    property_id: property,
    property_name: property === 100 ? 'Maple Court' : 'Oak Plaza',
    amount,
    raw,
    ...extra,
  });
  await insert('invoice_line_items', [
    line(1, 1, 100, '400.00'),
    line(2, 1, 200, '100.00'),
    line(3, 2, 100, '-50.00'),
    line(4, 3, 100, '300.00'),
    line(5, 4, 100, '800.00'),
    line(6, 5, 100, '-800.00'),
    line(7, 6, 100, '100.00'),
    line(8, 7, 100, '250.00'),
    line(9, 7, 100, '999.00', { deleted_at: deleted }),
    line(10, 8, 200, '60.00'),
  ]);

  const voided = (invoiceId: number, paymentId: number, extra: object = {}) => ({
    invoice_id: invoiceId,
    payment_id: paymentId,
    payment_number: String(paymentId - 8000),
    amount: '250.00',
    payment_date: '2024-05-20',
    voided_on: '2024-05-25',
    voided_by: 'jsmith',
    void_reason: 'Wrong amount',
    raw,
    ...extra,
  });
  await insert('voided_payments', [
    voided(7, 9001),
    voided(7, 9002, { deleted_at: deleted }),
    voided(6, 9003),
  ]);

  await insertUnitInventory(db, account, tweak);
}

/** Inserts rows of the fixture's tables as `account`'s, through `tweak`; a table the warehouse lacks is left out. */
function inserter(db: Db, account: string, tweak: FixtureTweak) {
  return async (table: FixtureTable, rows: object[]) => {
    const values = rows.flatMap((row) => tweak(table, { account_id: account, ...row }) ?? []);
    // A warehouse of a release before has no unit inventory: its tables are left out there.
    const { rows: found } = await sql<{
      found: boolean;
    }>`select to_regclass(${table}) is not null as found`.execute(db);
    if (values.length && found[0].found)
      await db
        .insertInto(table)
        .values(values as never)
        .execute();
  };
}

/** The fixture's unit inventory alone (insertFixture inserts it too), for a warehouse upgraded since. */
export async function insertUnitInventory(
  db: Db,
  account = 'default',
  tweak: FixtureTweak = (_table, row) => row,
): Promise<void> {
  const insert = inserter(db, account, tweak);
  await insert('unit_inventories', [
    { property_id: 100, unit_count: 5, space_count: 6, raw },
    { property_id: 200, unit_count: 1, space_count: 1, raw },
  ]);
  const unit = (id: number, property: number, number: string, extra: object = {}) => ({
    unit_id: id,
    property_id: property,
    unit_number: number,
    building_name: 'A',
    floorplan_name: '1x1',
    unit_type_name: 'Apartment',
    is_other_income: false,
    raw,
    ...extra,
  });
  await insert('units', [
    unit(1, 100, '101'),
    unit(2, 100, '102'),
    unit(3, 100, '103'),
    unit(5, 100, '105'),
    unit(900, 100, 'P-1', { building_name: 'Garage', unit_type_name: 'Parking', is_other_income: true }),
    unit(21, 200, '201'),
  ]);
  const space = (
    id: number,
    property: number,
    unitId: number,
    number: string,
    status: string,
    category: string,
    extra: object = {},
  ) => ({
    unit_space_id: id,
    property_id: property,
    unit_id: unitId,
    unit_number: number,
    availability_status: status,
    status_category: category,
    rent: '1400.00',
    is_other_income: false,
    raw,
    ...extra,
  });
  await insert('unit_spaces', [
    space(1001, 100, 1, '101', 'Occupied No Notice', 'occupied', { rent: '1550.00' }),
    space(2001, 100, 2, '102-A', 'Notice Rented', 'notice', { is_preleased: true }),
    space(2002, 100, 2, '102-B', 'Notice Unrented', 'notice', { is_preleased: false }),
    space(3001, 100, 3, '103', 'Vacant Unrented Not Ready', 'vacant', {
      is_preleased: false,
      is_ready: false,
      make_ready_date: '2024-07-05',
    }),
    space(5001, 100, 5, '105', 'Down', 'down'),
    space(9001, 100, 900, 'P-1', 'Occupied', 'occupied', { rent: '75.00', is_other_income: true }),
    space(2101, 200, 21, '201', 'Occupied', 'occupied'),
  ]);
}

/** Every amount of the fixture, doubled in account south. */
const double = (value: unknown) => (typeof value === 'string' ? (Number(value) * 2).toFixed(2) : value);

/**
 * Account south: the fixture's ids (properties 100 and 200, leases 1 to 8, invoices 1 to 8 ...)
 * with other data, so that a join on ids alone would mix the accounts: other names and amounts,
 * lease 2 Current rather than on Notice, lease 1 without customers nor a signed renewal, lease
 * 2 with one unit space, invoice 1 charged to one property, invoice 5 no reversal, an AR item
 * and a line fewer.
 */
export const SOUTH: FixtureTweak = (table, row) => {
  switch (table) {
    case 'leases':
      return {
        ...row,
        property_name: `South ${String(row.property_name)}`,
        unit_number: `S${String(row.unit_number)}`,
        ...(row.lease_id === 2
          ? { lease_status_type_id: 4, lease_status: 'Current', move_out_date: null }
          : {}),
      };
    case 'lease_intervals':
      if (row.lease_interval_id === 12) return undefined;
      return row.lease_interval_id === 11 ? { ...row, end_date: '2024-10-31' } : row;
    case 'lease_customers':
      if (row.lease_id === 1) return undefined;
      return {
        ...row,
        first_name: `South ${String(row.first_name)}`,
        name_full: `South ${String(row.name_full)}`,
      };
    case 'lease_unit_spaces':
      return row.unit_space_id === 2002 ? undefined : { ...row, unit_space: `S${String(row.unit_space)}` };
    case 'lease_scheduled_charges':
      return { ...row, amount: double(row.amount) };
    case 'ar_transactions':
      if (row.ar_transaction_id === 10) return undefined;
      return {
        ...row,
        amount: double(row.amount),
        amount_paid: double(row.amount_paid),
        balance_due: double(row.balance_due),
        ar_code_name: `South ${String(row.ar_code_name)}`,
      };
    case 'invoices':
      return {
        ...row,
        vendor_name: `South ${String(row.vendor_name)}`,
        amount: double(row.amount),
        amount_due: double(row.amount_due),
        ...(row.invoice_id === 5 ? { reversal_invoice_id: null } : {}),
      };
    case 'invoice_line_items':
      if (row.line_item_id === 2) return undefined;
      return { ...row, property_name: `South ${String(row.property_name)}`, amount: double(row.amount) };
    case 'voided_payments':
      return { ...row, amount: double(row.amount), void_reason: `South ${String(row.void_reason)}` };
    default:
      return row;
  }
};
