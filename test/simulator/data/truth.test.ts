import { describe, expect, it } from 'vitest';
import { advanceDataset, generateDataset } from '../../../src/simulator/data/index.js';
import { expectedWarehouse, leaseCountsByStatus, TRUTH_TABLES } from '../../../src/simulator/data/truth.js';

describe('expectedWarehouse', () => {
  const ds = generateDataset({ seed: 61, scale: 'small', today: '2025-03-15' });

  it('counts every table and sums money exactly', () => {
    const t = expectedWarehouse(ds);
    expect(Object.keys(t).sort()).toEqual([...TRUTH_TABLES].sort());
    expect(t.leases.count).toBe(ds.leases.length);
    const intervals = ds.leases.reduce((s, l) => s + 1 + (l.leaseHistory?.leaseInterval.length ?? 0), 0);
    expect(t.lease_intervals.count).toBe(intervals);
    expect(t.lease_intervals.count).toBeGreaterThan(t.leases.count);
    expect(t.invoices.count).toBe(ds.invoices.length);
    expect(t.invoice_line_items.count).toBeGreaterThan(t.invoices.count);
    expect(t.voided_payments.count).toBeGreaterThan(0);
    for (const k of TRUTH_TABLES) {
      const v = t[k];
      if (v.sumAmount !== undefined) expect(v.sumAmount, k).toMatch(/^-?\d+\.\d{2}$/);
    }
    // Line items add up to invoices; what is due is what is not paid.
    expect(t.invoice_line_items.sumAmount).toBe(t.invoices.sumAmount);
    const due =
      Math.round(Number(t.invoices.sumAmount) * 100) - Math.round(Number(t.invoice_payments.sumAmount) * 100);
    expect(Math.round(Number(t.invoices.sumAmountDue) * 100)).toBe(due);
  });

  it('includes every status, other-income leases, exported invoices and refunds', () => {
    const byStatus = leaseCountsByStatus(ds);
    expect(Object.values(byStatus).reduce((a, b) => a + b, 0)).toBe(expectedWarehouse(ds).leases.count);
    for (const s of [1, 2, 3, 4, 5, 6]) expect(byStatus[s], `status ${s}`).toBeGreaterThan(0);
    const withoutOther = leaseCountsByStatus(ds, { includeOtherIncome: false });
    expect(withoutOther[4]).toBeLessThan(byStatus[4]);
    expect(ds.invoices.some((i) => i._exported)).toBe(true);
    expect(ds.invoices.some((i) => i._typeId === 20)).toBe(true);
  });

  it('narrows to properties and partitions the leases', () => {
    const all = expectedWarehouse(ds);
    const parts = ds.properties.map((p) => expectedWarehouse(ds, { propertyIds: [p.PropertyID] }));
    expect(parts.reduce((s, p) => s + p.leases.count, 0)).toBe(all.leases.count);
    expect(parts.reduce((s, p) => s + p.ar_transactions.count, 0)).toBe(all.ar_transactions.count);
    // Invoices with lines for two properties count for each of them.
    expect(parts.reduce((s, p) => s + p.invoices.count, 0)).toBeGreaterThanOrEqual(all.invoices.count);
  });

  it('follows the data set as it advances', () => {
    const copy = generateDataset({ seed: 61, scale: 'small', today: '2025-03-15' });
    const before = expectedWarehouse(copy);
    advanceDataset(copy, 20);
    const after = expectedWarehouse(copy);
    expect(after.leases.count).toBeGreaterThan(before.leases.count);
    expect(after.ar_transactions.count).toBeGreaterThan(before.ar_transactions.count);
    expect(after.invoices.count).toBeGreaterThan(before.invoices.count);
    expect(after.ar_transactions.sumAmount).not.toBe(before.ar_transactions.sumAmount);
  });
});
