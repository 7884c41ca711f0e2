/**
 * Contract: getLeases, every parameter and default, both versions, the wire quirks (source-api.md sections 3 and 5).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/server/simulator.js';
import { LEASE, PROPERTY_A, PROPERTY_B, PROPERTY_EMPTY } from './fixtures/dataset.js';
import { asList, call, idsOf, leasesOf, startFixtureSimulator, type Params } from './support.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startFixtureSimulator();
});
afterAll(async () => {
  await sim.close();
});

async function leases(params: Params, version = 'r2', format: 'json' | 'xml' = 'json'): Promise<any[]> {
  const reply = await call(sim, {
    method: 'getLeases',
    version,
    format,
    params: { propertyId: String(PROPERTY_A), ...params },
  });
  expect(reply.body.response.error).toBeUndefined();
  return leasesOf(reply);
}

async function leaseIds(params: Params, version = 'r2'): Promise<string[]> {
  return idsOf(await leases(params, version));
}

async function oneLease(id: number, params: Params = {}, version = 'r2'): Promise<any> {
  const found = await leases(
    { leaseIds: String(id), leaseStatusTypeIds: '1,2,3,4,5,6', includeOtherIncomeLeases: '1', ...params },
    version,
  );
  expect(found).toHaveLength(1);
  return found[0];
}

const ALL = '1,2,3,4,5,6';

describe('getLeases defaults', () => {
  it('returns Current and Notice leases only when leaseStatusTypeIds is omitted, in id order', async () => {
    const ids = await leaseIds({});
    expect(ids).toContain(String(LEASE.current));
    expect(ids).toContain(String(LEASE.notice));
    for (const hidden of [LEASE.applicant, LEASE.cancelled, LEASE.future, LEASE.past])
      expect(ids).not.toContain(String(hidden));
    expect(ids.map(Number)).toEqual([...ids.map(Number)].sort((a, b) => a - b));
    const statuses = new Set((await leases({})).map((lease) => lease.leaseStatusTypeId));
    expect([...statuses].sort()).toEqual(['4', '5']);
  });

  it('returns the asked statuses', async () => {
    const ids = await leaseIds({ leaseStatusTypeIds: ALL });
    for (const id of [
      LEASE.applicant,
      LEASE.cancelled,
      LEASE.future,
      LEASE.current,
      LEASE.notice,
      LEASE.past,
    ])
      expect(ids).toContain(String(id));
    expect(await leaseIds({ leaseStatusTypeIds: '6' })).toEqual([String(LEASE.past)]);
    expect(await leaseIds({ leaseStatusTypeIds: '1, 3' })).toEqual([
      String(LEASE.applicant),
      String(LEASE.future),
    ]);
  });

  it('leaves other-income leases out unless includeOtherIncomeLeases=1', async () => {
    expect(await leaseIds({})).not.toContain(String(LEASE.otherIncome));
    expect(await leaseIds({ includeOtherIncomeLeases: '0' })).not.toContain(String(LEASE.otherIncome));
    const lease = (await leases({ includeOtherIncomeLeases: '1' })).find(
      (l) => l.id === String(LEASE.otherIncome),
    );
    expect(lease.isOtherIncomeLease).toBe('t');
  });

  it('sends leaseHistory only with includeLeaseHistory=1', async () => {
    expect(await oneLease(LEASE.current)).not.toHaveProperty('leaseHistory');
    const lease = await oneLease(LEASE.current, { includeLeaseHistory: '1' });
    const history = asList(lease.leaseHistory.leaseInterval);
    expect(history).toHaveLength(2);
    expect(history[0]).toMatchObject({
      id: expect.any(Number),
      leaseIntervalTypeId: expect.any(String),
      startDate: expect.stringMatching(/^\d{2}\/\d{2}\/\d{4}$/),
    });
  });

  it('sends arTransactions only with includeArTransactions=1, amounts as JSON numbers', async () => {
    expect(await oneLease(LEASE.current)).not.toHaveProperty('arTransactions');
    const lease = await oneLease(LEASE.current, { includeArTransactions: '1' });
    const ar = asList(lease.arTransactions.arTransaction);
    expect(ar).toHaveLength(6);
    for (const transaction of ar) {
      expect(typeof transaction.id).toBe('number');
      expect(typeof transaction.arCodeId).toBe('number');
      expect(typeof transaction.amount).toBe('number');
      expect(typeof transaction.amountPaid).toBe('number');
      expect(typeof transaction.balanceDue).toBe('number');
      expect(transaction.postMonth).toMatch(/^\d{2}\/01\/\d{4}$/);
    }
  });
});

describe('getLeases filters', () => {
  it('leaseIds, applicationId and customerId', async () => {
    expect(await leaseIds({ leaseIds: `${LEASE.current}, ${LEASE.notice}` })).toEqual([
      String(LEASE.current),
      String(LEASE.notice),
    ]);
    expect(await leaseIds({ applicationId: String(LEASE.current + 500000) })).toEqual([
      String(LEASE.current),
    ]);
    expect(await leaseIds({ customerId: String(LEASE.roommates * 100 + 2) })).toEqual([
      String(LEASE.roommates),
    ]);
    expect(await leaseIds({ customerId: '1' })).toEqual([]);
  });

  it('propertyId picks the property', async () => {
    const reply = await call(sim, {
      method: 'getLeases',
      version: 'r2',
      params: { propertyId: String(PROPERTY_B) },
    });
    expect(idsOf(leasesOf(reply))).toEqual([String(LEASE.otherProperty)]);
  });

  it('scheduledArCodeIds: leases with a scheduled charge of those codes', async () => {
    const withFee = await leaseIds({ scheduledArCodeIds: '120', leaseStatusTypeIds: ALL });
    expect(withFee).toEqual([String(LEASE.future), String(LEASE.current)]);
    expect((await leaseIds({ scheduledArCodeIds: '101,120' })).length).toBeGreaterThan(2);
  });

  it('unitNumber and buildingName', async () => {
    expect(await leaseIds({ unitNumber: '104' })).toEqual([String(LEASE.current)]);
    const inB = await leaseIds({ buildingName: 'B' });
    expect(inB).toEqual([String(LEASE.notice), String(LEASE.multiSpace), String(LEASE.roommates)]);
  });

  it('move-in dates, inclusive at both ends', async () => {
    expect(await leaseIds({ moveInDateFrom: '01/15/2023', moveInDateTo: '01/15/2023' })).toEqual([
      String(LEASE.current),
    ]);
    expect(await leaseIds({ moveInDateFrom: '01/16/2023', moveInDateTo: '01/31/2023' })).toEqual([]);
    const from = await leaseIds({ moveInDateFrom: '09/01/2023', leaseStatusTypeIds: ALL });
    expect(from).toContain(String(LEASE.multiSpace));
    expect(from).not.toContain(String(LEASE.current));
  });

  it('lease expiring dates, inclusive', async () => {
    expect(
      await leaseIds({ leaseExpiringDateFrom: '08/31/2024', leaseExpiringDateTo: '08/31/2024' }),
    ).toEqual([String(LEASE.multiSpace)]);
    expect(await leaseIds({ leaseExpiringDateTo: '07/31/2024' })).toEqual([String(LEASE.notice)]);
  });

  it('r2 moveOutDateFrom: only leases moving out on or after the date', async () => {
    expect(await leaseIds({ moveOutDateFrom: '07/31/2024', leaseStatusTypeIds: ALL })).toEqual([
      String(LEASE.notice),
    ]);
    expect(
      await leaseIds({ moveOutDateFrom: '12/31/2023', moveOutDateTo: '12/31/2023', leaseStatusTypeIds: ALL }),
    ).toEqual([String(LEASE.past)]);
  });

  it('r1 moveOutDateFrom: also the leases without a move-out date', async () => {
    const r1 = await leaseIds({ moveOutDateFrom: '07/31/2024', leaseStatusTypeIds: ALL }, 'r1');
    expect(r1).toContain(String(LEASE.notice));
    expect(r1).toContain(String(LEASE.current));
    expect(r1).not.toContain(String(LEASE.past));
    // With an upper bound too, a lease without a move-out is outside the window.
    expect(
      await leaseIds(
        { moveOutDateFrom: '07/01/2024', moveOutDateTo: '07/31/2024', leaseStatusTypeIds: ALL },
        'r1',
      ),
    ).toEqual([String(LEASE.notice)]);
  });

  it('residentFriendlyMode gives charge codes their resident-facing names', async () => {
    const plain = await oneLease(LEASE.current, { includeArTransactions: '1' });
    const friendly = await oneLease(LEASE.current, { includeArTransactions: '1', residentFriendlyMode: '1' });
    const codes = (lease: any) =>
      asList(lease.scheduledCharges.scheduledCharge).map((c: any) => c.chargeCode);
    expect(codes(plain)).toEqual(['Rent', 'Application Fee']);
    expect(codes(friendly)).toEqual(['Monthly Rent', 'Application Fee']);
    expect(codes(friendly)).toHaveLength(codes(plain).length);
    const arNames = (lease: any) => asList(lease.arTransactions.arTransaction).map((t: any) => t.arCodeName);
    expect(arNames(plain)).toContain('Resident Payment');
    expect(arNames(friendly)).toContain('Payment - Thank You');
    expect(arNames(friendly)).not.toContain('Rent');
    // Nothing else changes.
    const strip = (lease: any) => ({ ...lease, scheduledCharges: undefined, arTransactions: undefined });
    expect(strip(friendly)).toEqual(strip(plain));
  });

  it('"No records found with mentioned preferences." for an empty result', async () => {
    const reply = await call(sim, {
      method: 'getLeases',
      version: 'r2',
      params: { propertyId: String(PROPERTY_EMPTY) },
    });
    expect(reply.body.response.code).toBe(200);
    expect(reply.body.response.result).toBe('No records found with mentioned preferences.');
    const xml = await call(sim, {
      method: 'getLeases',
      version: 'r2',
      format: 'xml',
      params: { propertyId: String(PROPERTY_A), leaseIds: '1' },
    });
    expect(xml.body.response.result).toBe('No records found with mentioned preferences.');
  });
});

describe('getLeases versions', () => {
  it('r2: leaseIntervals, unitSpaces (several for a multi-space lease), moveOutReason, application charges', async () => {
    const multi = await oneLease(LEASE.multiSpace);
    const spaces = asList(multi.unitSpaces.unitSpace);
    expect(spaces).toHaveLength(3);
    expect(spaces.map((s: any) => typeof s.unitSpaceId)).toEqual(['number', 'number', 'number']);
    expect(multi).not.toHaveProperty('unitSpaceId');
    expect(multi).not.toHaveProperty('leaseActivities');
    const current = await oneLease(LEASE.current);
    const interval = asList(current.leaseIntervals.leaseInterval)[0];
    expect(interval).toMatchObject({
      id: expect.any(Number),
      leaseIntervalTypeId: '1',
      leaseIntervalTypeName: 'Application',
      applicationId: String(LEASE.current + 500000),
    });
    expect(interval.intervalDateTime).toMatch(/^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}(\.\d+)? M[DS]T$/);
    expect(asList(current.scheduledCharges.scheduledCharge).some((c: any) => c.applicationId)).toBe(true);
    const notice = await oneLease(LEASE.notice);
    expect(notice.moveOutReason).toEqual({
      id: '12',
      name: 'Purchased Home',
      moveOutTypeId: '4',
      moveOutType: 'Move Out',
    });
    expect(current).not.toHaveProperty('moveOutReason');
  });

  it('r1: leaseActivities, flat unitSpaceId/unitNumberSpace, no moveOutReason, no application charges', async () => {
    const multi = await oneLease(LEASE.multiSpace, {}, 'r1');
    expect(multi).not.toHaveProperty('unitSpaces');
    expect(multi.unitSpaceId).toBe(LEASE.multiSpace * 10);
    expect(multi.unitNumberSpace).toBe('201A');
    const current = await oneLease(LEASE.current, {}, 'r1');
    expect(current).not.toHaveProperty('leaseIntervals');
    expect(asList(current.leaseActivities.leaseActivity)[0]).toMatchObject({
      id: expect.any(String),
      eventTypeId: '3',
      eventType: 'Move In',
      eventDate: '01/15/2023',
    });
    expect(asList(current.scheduledCharges.scheduledCharge).some((c: any) => c.applicationId)).toBe(false);
    expect(await oneLease(LEASE.notice, {}, 'r1')).not.toHaveProperty('moveOutReason');
  });

  it('the same lease differs between versions only where the contract says', async () => {
    const r1 = await oneLease(LEASE.notice, {}, 'r1');
    const r2 = await oneLease(LEASE.notice, {}, 'r2');
    const versionFields = [
      'leaseIntervals',
      'leaseActivities',
      'unitSpaces',
      'unitSpaceId',
      'unitNumberSpace',
      'moveOutReason',
      'scheduledCharges',
    ];
    const rest = (lease: any) =>
      Object.fromEntries(Object.entries(lease).filter(([key]) => !versionFields.includes(key)));
    expect(rest(r1)).toEqual(rest(r2));
  });
});

describe('getLeases wire quirks', () => {
  it('a single-item list comes bare in a seeded share of containers, the same way on every call', async () => {
    const first = await leases({
      leaseStatusTypeIds: ALL,
      includeOtherIncomeLeases: '1',
      includeArTransactions: '1',
    });
    const shapes = first.map((lease) => Array.isArray(lease.customers.customer));
    const singleCustomer = first.filter((lease) => asList(lease.customers.customer).length === 1);
    const bare = singleCustomer.filter((lease) => !Array.isArray(lease.customers.customer));
    expect(bare.length).toBeGreaterThan(0);
    expect(bare.length).toBeLessThan(singleCustomer.length);
    // Multi-element lists are always arrays.
    const roommates = first.find((lease) => lease.id === String(LEASE.roommates));
    expect(Array.isArray(roommates.customers.customer)).toBe(true);
    const again = await leases({
      leaseStatusTypeIds: ALL,
      includeOtherIncomeLeases: '1',
      includeArTransactions: '1',
    });
    expect(again.map((lease) => Array.isArray(lease.customers.customer))).toEqual(shapes);
    // The record renders the same whatever else is asked.
    for (const lease of bare.slice(0, 3)) {
      const alone = await oneLease(Number(lease.id));
      expect(Array.isArray(alone.customers.customer)).toBe(false);
    }
  });

  it('a one-lease result is bare or a one-element array, fixed per lease', async () => {
    const forms = new Set<string>();
    for (let id = 1010; id < 1030; id++) {
      const reply = await call(sim, {
        method: 'getLeases',
        version: 'r2',
        params: { propertyId: String(PROPERTY_A), leaseIds: String(id) },
      });
      const again = await call(sim, {
        method: 'getLeases',
        version: 'r2',
        params: { propertyId: String(PROPERTY_A), leaseIds: String(id) },
      });
      expect(again.text).toBe(reply.text);
      forms.add(Array.isArray(reply.body.response.result.leases.lease) ? 'array' : 'bare');
    }
    expect([...forms].sort()).toEqual(['array', 'bare']);
  });

  it('leaves empty containers out', async () => {
    const roommates = await oneLease(LEASE.roommates);
    for (const customer of asList(roommates.customers.customer))
      expect(customer).not.toHaveProperty('phones');
    const lease = await oneLease(1011, { includeArTransactions: '1' });
    // Lease 1011 is stored with empty lists: their containers are left out even when asked for.
    expect(lease).not.toHaveProperty('arTransactions');
    expect(lease).not.toHaveProperty('leaseHistory');
    expect(lease).not.toHaveProperty('specials');
    expect(lease).not.toHaveProperty('pets');
    expect(asList(lease.customers.customer)[0]).not.toHaveProperty('customerContacts');
    expect(JSON.stringify(lease)).not.toMatch(/\[\]|null|\{\}/);
  });

  it('never sends bookkeeping fields', async () => {
    const reply = await call(sim, {
      method: 'getLeases',
      version: 'r2',
      params: {
        propertyId: String(PROPERTY_A),
        leaseStatusTypeIds: ALL,
        includeArTransactions: '1',
        includeLeaseHistory: '1',
      },
    });
    expect(reply.text).not.toMatch(/"_[a-zA-Z]/);
  });

  it('ids: leases as digit strings, customers, intervals, unit spaces and AR codes as integers; booleans, money and dates in their encodings', async () => {
    const lease = await oneLease(LEASE.current, { includeArTransactions: '1' });
    expect(lease.id).toBe(String(LEASE.current));
    expect(typeof asList(lease.customers.customer)[0].id).toBe('number');
    expect(typeof lease.leaseIntervalId).toBe('number');
    expect(typeof asList(lease.unitSpaces.unitSpace)[0].unitSpaceId).toBe('number');
    expect(lease.isMonthToMonth).toBe(0);
    expect(asList(lease.scheduledCharges.scheduledCharge)[0].amount).toMatch(/^-?\d+\.\d{2}$/);
    expect(lease.moveInDate).toMatch(/^\d{2}\/\d{2}\/\d{4}$/);
    const other = await oneLease(LEASE.otherIncome);
    expect(other.isOtherIncomeLease).toBe('t');
  });
});

describe('text past ASCII', () => {
  it('XML writes it as numeric character references (decimal up to U+00FF, hex above); JSON as the characters', async () => {
    const { fixtureDataset } = await import('./fixtures/dataset.js');
    const dataset = fixtureDataset();
    const lease = dataset.leases.find((record) => record.id === String(LEASE.current))!;
    const customer = asList<any>(lease.customers!.customer)[0];
    Object.assign(customer, { firstName: 'José', lastName: 'O’Brien', nameFull: 'José O’Brien' });
    const named = await startFixtureSimulator({ dataset });
    try {
      const request = {
        method: 'getLeases',
        version: 'r2',
        params: { propertyId: String(PROPERTY_A), leaseIds: String(LEASE.current) },
      };
      const xml = await call(named, { ...request, format: 'xml' });
      expect(xml.text).toContain('<nameFull>Jos&#233; O&#x2019;Brien</nameFull>');
      expect(xml.text).not.toMatch(/[^\x00-\x7f]/);
      const json = await call(named, request);
      expect(json.text).toContain('"nameFull":"José O’Brien"');
    } finally {
      await named.close();
    }
  });
});
