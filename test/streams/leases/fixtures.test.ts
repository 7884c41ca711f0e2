import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { asList } from '../../../src/source/field-readers.js';
import { normalizeLease } from '../../../src/streams/leases/normalize.js';

/**
 * Recorded getLeases replies of the simulator (see ../record-fixtures.ts). That every record
 * normalizes to declared, typed rows keyed by the lease (money exact as text, dates as days) is
 * checked for every stream by ../conformance.test.ts; here, what is particular to leases.
 */
function fixture(version: 'r1' | 'r2'): Record<string, unknown>[] {
  return JSON.parse(readFileSync(new URL(`./fixtures/getLeases-${version}.json`, import.meta.url), 'utf8'));
}

/** How many items a plural container holds (`customers.customer`), whatever shape it came in. */
function count(record: Record<string, unknown>, container: string, item: string): number {
  const holder = record[container] as Record<string, unknown> | undefined;
  return holder && typeof holder === 'object' ? asList(holder[item]).length : 0;
}

describe.each(['r1', 'r2'] as const)('leases normalize, recorded getLeases %s replies', (version) => {
  const records = fixture(version);

  it('holds records with children of every kind the version sends', () => {
    expect(records.length).toBeGreaterThan(0);
    expect(records.some((record) => count(record, 'arTransactions', 'arTransaction') > 0)).toBe(true);
    expect(records.some((record) => count(record, 'customers', 'customer') > 0)).toBe(true);
  });

  it("gives the lease's property and one child row per listed child", () => {
    for (const record of records) {
      const { rows } = normalizeLease(record, { version });
      expect(rows.leases![0].property_id).toBe(Number(record.propertyId));
      expect(rows.lease_customers).toHaveLength(count(record, 'customers', 'customer'));
      expect(rows.ar_transactions).toHaveLength(count(record, 'arTransactions', 'arTransaction'));
      expect(rows.lease_scheduled_charges).toHaveLength(count(record, 'scheduledCharges', 'scheduledCharge'));
      expect(rows.lease_activities).toHaveLength(count(record, 'leaseActivities', 'leaseActivity'));
    }
  });

  it('keeps the record without its children as raw', () => {
    for (const record of records) {
      const { rows } = normalizeLease(record, { version });
      const raw = rows.leases![0].raw as Record<string, unknown>;
      expect(raw.id).toBe(record.id);
      for (const child of [
        'customers',
        'arTransactions',
        'scheduledCharges',
        'leaseIntervals',
        'leaseHistory',
      ])
        expect(raw).not.toHaveProperty(child);
    }
  });
});
