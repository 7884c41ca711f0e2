import { describe, expect, it } from 'vitest';
import { normalizeLease } from '../../../src/streams/leases/normalize.js';

/** A lease as the client decodes it: every leaf a string, one-element lists as bare objects. */
const lease = {
  id: '9001',
  leaseStatusTypeId: '6',
  propertyId: '100001',
  propertyName: 'Aspen Ridge',
  moveInDate: '03/01/2024',
  moveOutDate: '02/28/2025',
  leaseIntervalStatus: 'Past',
  occupancyTypeId: '1',
  occupancyType: 'Conventional',
  isMonthToMonth: '0',
  leaseIntervalId: '555',
  floorPlanId: '12',
  floorPlanName: 'A1',
  spaceConfiguration: 'Conventional',
  paymentAllowanceType: 'Allow All',
  unitId: '3001',
  unitNumber: '101',
  buildingName: 'Building A',
  isOtherIncomeLease: 'f',
  moveOutReason: { id: '12', name: 'Purchased Home', moveOutTypeId: '4', moveOutType: 'Move Out' },
  customers: {
    customer: {
      id: '77',
      customerType: 'Primary',
      firstName: 'Ana',
      lastName: 'Ruiz',
      nameFull: 'Ana Ruiz',
      leaseCustomerStatus: 'Past',
      relationshipName: 'Primary',
      moveInDate: '03/01/2024',
    },
  },
  unitSpaces: {
    unitSpace: [
      { unitSpaceId: '3001', unitSpace: '101' },
      { unitSpaceId: '3002', unitSpace: '101-B' },
    ],
  },
  leaseIntervals: {
    leaseInterval: {
      id: '555',
      startDate: '03/01/2025',
      endDate: '02/28/2026',
      leaseIntervalTypeId: '3',
      leaseIntervalTypeName: 'Renewal',
      leaseIntervalStatusTypeId: '4',
      leaseIntervalStatusTypeName: 'Past',
      applicationId: '8',
      intervalDateTime: '03/01/2025 10:15:00 MST',
    },
  },
  leaseHistory: {
    leaseInterval: [
      {
        id: '554',
        startDate: '03/01/2024',
        endDate: '02/28/2025',
        leaseIntervalTypeId: '1',
        leaseIntervalTypeName: 'Application',
        leaseIntervalStatusTypeId: '4',
        leaseIntervalStatusTypeName: 'Past',
        applicationId: '7',
        intervalDateTime: '07/04/2024 09:00:00.250000 MDT',
      },
    ],
  },
  arTransactions: {
    arTransaction: [
      {
        id: '1',
        transactionTypeId: '2',
        arCodeId: '100',
        arCodeName: 'Rent',
        transactionDate: '02/01/2025',
        postDate: '02/01/2025',
        postMonth: '02/01/2025',
        dueDate: '02/01/2025',
        amount: '1470',
        amountPaid: '1470',
        balanceDue: '0',
        isTemporary: '0',
        isReversed: '0',
      },
      {
        id: '2',
        transactionTypeId: '3',
        arCodeId: '200',
        arCodeName: 'Deposit Refund',
        transactionDate: '03/15/2025',
        postDate: '03/15/2025',
        postMonth: '03/01/2025',
        dueDate: '03/15/2025',
        amount: '-500.1',
        amountPaid: '0',
        balanceDue: '-500.1',
        isTemporary: '0',
        isReversed: '1',
      },
    ],
  },
};

describe('lease normalization', () => {
  it('types every column and keeps the record without its children as raw', () => {
    const { key, rows } = normalizeLease(lease, { version: 'r2' });
    expect(key).toBe(9001);
    expect(rows.leases?.[0]).toMatchObject({
      lease_id: 9001,
      property_id: 100001,
      lease_status: 'Past',
      is_month_to_month: false,
      is_other_income: false,
      move_in_date: '2024-03-01',
      move_out_date: '2025-02-28',
      move_out_reason: 'Purchased Home',
      move_out_type: 'Move Out',
      current_lease_interval_id: 555,
    });
    const raw = rows.leases?.[0].raw as Record<string, unknown>;
    expect(raw.arTransactions).toBeUndefined();
    expect(raw.customers).toBeUndefined();
    expect(raw.moveOutReason).toEqual(lease.moveOutReason);
  });

  it('reads one-element lists sent as bare objects, and history plus the current interval', () => {
    const { rows } = normalizeLease(lease, { version: 'r2' });
    expect(rows.lease_customers).toHaveLength(1);
    expect(rows.lease_unit_spaces?.map((row) => row.unit_space_id)).toEqual([3001, 3002]);
    expect(rows.lease_intervals?.map((row) => [row.lease_interval_id, row.is_current])).toEqual([
      [554, false],
      [555, true],
    ]);
    // Mountain Time: daylight time in July (UTC-6), standard time in March (UTC-7).
    expect(new Date(rows.lease_intervals?.[0].interval_datetime as string).toISOString()).toBe(
      '2024-07-04T15:00:00.250Z',
    );
    expect(new Date(rows.lease_intervals?.[1].interval_datetime as string).toISOString()).toBe(
      '2025-03-01T17:15:00.000Z',
    );
  });

  it('keeps AR money exact and dates as days', () => {
    const { rows } = normalizeLease(lease, { version: 'r2' });
    expect(
      rows.ar_transactions?.map((row) => [row.amount, row.balance_due, row.post_month, row.is_reversed]),
    ).toEqual([
      ['1470', '0', '2025-02-01', false],
      ['-500.1', '-500.1', '2025-03-01', true],
    ]);
  });

  it('rejects a record whose date cannot be read, naming the field', () => {
    expect(() => normalizeLease({ ...lease, moveInDate: '13/45/2024' }, { version: 'r2' })).toThrow(
      /moveInDate/,
    );
    expect(() => normalizeLease({ ...lease, id: undefined }, { version: 'r2' })).toThrow(/\bid\b/);
    expect(() => normalizeLease({ ...lease, propertyId: 'abc' }, { version: 'r2' })).toThrow(/propertyId/);
  });

  it('reads r1 shapes: flat unit space and lease activities', () => {
    const r1 = {
      ...lease,
      unitSpaces: undefined,
      leaseIntervals: undefined,
      unitSpaceId: '3001',
      unitNumberSpace: '101',
      leaseActivities: {
        leaseActivity: {
          id: '40',
          eventTypeId: '3',
          eventType: 'Move In',
          eventDate: '03/01/2024',
          description: 'Moved in',
        },
      },
    };
    const { rows } = normalizeLease(r1, { version: 'r1' });
    expect(rows.lease_unit_spaces).toEqual([
      expect.objectContaining({ unit_space_id: 3001, unit_space: '101' }),
    ]);
    expect(rows.lease_activities).toEqual([
      expect.objectContaining({ lease_activity_id: 40, event_date: '2024-03-01' }),
    ]);
  });
});
