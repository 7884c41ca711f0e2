import { describe, expect, it } from 'vitest';
import { generateDataset, SCALE_SETTINGS } from '../../../src/simulator/data/index.js';
import { LEASE_STATUS } from '../../../src/simulator/data/model.js';
import { datetimeProblems, mirrorProblems, moneyProblems } from './checks.js';
import { census, REQUIRED_FEATURES } from './features.js';

const TODAY = '2025-03-15';
const small = generateDataset({ seed: 42, scale: 'small', today: TODAY });

describe('generateDataset', () => {
  it('is deterministic from seed, scale and today', () => {
    const again = generateDataset({ seed: 42, scale: 'small', today: TODAY });
    expect(JSON.stringify(again)).toBe(JSON.stringify(small));
    expect(again).toEqual(small);
  });

  it('differs for another seed and another today', () => {
    const other = generateDataset({ seed: 43, scale: 'small', today: TODAY });
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(small));
    expect(other.leases[0].customers.customer[0].nameFull).not.toBe(
      small.leases[0].customers.customer[0].nameFull,
    );
    const later = generateDataset({ seed: 42, scale: 'small', today: '2025-03-16' });
    expect(later.today).toBe('2025-03-16');
    expect(JSON.stringify(later)).not.toBe(JSON.stringify(small));
  });

  it('makes a small portfolio of the documented size, quickly', () => {
    const t0 = performance.now();
    const ds = generateDataset({ seed: 5, scale: 'small', today: TODAY });
    const ms = performance.now() - t0;
    expect(ds.properties.length).toBeGreaterThanOrEqual(3);
    expect(ds.properties.length).toBeLessThanOrEqual(4);
    expect(ds.leases.length).toBeGreaterThanOrEqual(300);
    expect(ds.leases.length).toBeLessThanOrEqual(500);
    expect(ds.invoices.length).toBeGreaterThan(400);
    expect(ms).toBeLessThan(3000);
  });

  it('makes a medium portfolio of about 20 properties and 5,000 leases (the demo)', () => {
    const ds = generateDataset({ seed: 1, scale: 'medium', today: TODAY });
    expect(ds.properties.length).toBe(20);
    expect(ds.leases.length).toBeGreaterThan(4000);
    expect(ds.leases.length).toBeLessThan(6000);
    const ar = ds.leases.reduce((s, l) => s + (l.arTransactions?.arTransaction.length ?? 0), 0);
    expect(ar).toBeGreaterThan(100_000);
    expect(ds.invoices.length).toBeGreaterThan(5_000);
    expect(SCALE_SETTINGS.large.properties).toBe(200);
  });

  it('has Current as the largest status and many Past leases', () => {
    const counts = new Map<number, number>();
    for (const l of small.leases) counts.set(l._status, (counts.get(l._status) ?? 0) + 1);
    const current = counts.get(LEASE_STATUS.Current) ?? 0;
    for (const [status, n] of counts)
      if (status !== LEASE_STATUS.Current) expect(n, `status ${status}`).toBeLessThan(current);
    expect(counts.get(LEASE_STATUS.Past) ?? 0).toBeGreaterThan(small.leases.length / 5);
  });

  it.each([42, 7, 9])('holds every status, kind of record and kind of activity (seed %i)', (seed) => {
    const ds = seed === 42 ? small : generateDataset({ seed, scale: 'small', today: TODAY });
    const c = census(ds);
    const missing = REQUIRED_FEATURES.filter((f) => !c[f]);
    expect(missing).toEqual([]);
  });

  it('keeps money exact and consistent', () => {
    expect(moneyProblems(small)).toEqual([]);
  });

  it('keeps bookkeeping fields in step with wire fields, ids sorted and unique', () => {
    expect(mirrorProblems(small)).toEqual([]);
  });

  it('writes datetimes with the right MDT/MST suffix', () => {
    const { checked, problems } = datetimeProblems(small);
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(500);
  });

  it('uses the contract encodings for ids, booleans and money', () => {
    const l = small.leases.find((x) => x.arTransactions && x.leaseHistory)!;
    expect(typeof l.id).toBe('string');
    expect(typeof l.leaseIntervalId).toBe('number');
    expect(typeof l.customers.customer[0].id).toBe('number');
    expect(typeof l.unitSpaces.unitSpace[0].unitSpaceId).toBe('number');
    expect([0, 1]).toContain(l.isMonthToMonth);
    const t = l.arTransactions!.arTransaction[0];
    expect(typeof t.id).toBe('number');
    expect(typeof t.arCodeId).toBe('number');
    expect(typeof t.amount).toBe('number');
    expect(t.postMonth).toMatch(/^\d{2}\/01\/\d{4}$/);
    const inv = small.invoices[0];
    expect(inv.isPosted).toMatch(/^[tf]$/);
    expect(typeof inv.isExported).toBe('boolean');
    expect([0, 1]).toContain(inv.isOnHold);
    expect(inv.amount).toMatch(/^-?\d+\.\d{2}$/);
    expect(inv.postMonth).toMatch(/^\d{2}\/01\/\d{4}$/);
  });

  it('reaches back at least two years of invoices', () => {
    const first = small.invoices.reduce((m, i) => (i._postDay < m ? i._postDay : m), '9999');
    expect(first < '2023-03-15').toBe(true);
  });
});
