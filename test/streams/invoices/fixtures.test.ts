import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { asList } from '../../../src/source/field-readers.js';
import { normalizeInvoice } from '../../../src/streams/invoices/normalize.js';

/**
 * Recorded getInvoices replies of the simulator (see ../record-fixtures.ts). That every record
 * normalizes to declared, typed rows keyed by the invoice is checked for every stream by
 * ../conformance.test.ts; here, that each child the record lists becomes a row.
 */
function fixture(version: 'r1' | 'r2'): Record<string, unknown>[] {
  return JSON.parse(readFileSync(new URL(`./fixtures/getInvoices-${version}.json`, import.meta.url), 'utf8'));
}

/** How many items a plural container holds, whatever shape it came in (r1's bare `lineitem` included). */
function count(record: Record<string, unknown>, container: string, ...items: string[]): number {
  const holder = record[container] as Record<string, unknown> | undefined;
  if (!holder || typeof holder !== 'object') return 0;
  const item = items.find((key) => holder[key] !== undefined);
  return item ? asList(holder[item]).length : 0;
}

describe.each(['r1', 'r2'] as const)('invoices normalize, recorded getInvoices %s replies', (version) => {
  const records = fixture(version);

  it('gives one row per line item, payment and voided payment', () => {
    for (const record of records) {
      const { rows } = normalizeInvoice(record);
      const lineItems =
        count(record, 'lineItems', 'lineItem', 'lineitem') +
        count(record, 'lineitems', 'lineItem', 'lineitem') +
        count(record, 'lineitem', 'lineItem', 'lineitem');
      expect(rows.invoice_line_items).toHaveLength(lineItems);
      expect(rows.invoice_payments).toHaveLength(count(record, 'invoicePayments', 'invoicePayment'));
      expect(rows.voided_payments).toHaveLength(count(record, 'voidedPayments', 'voidedPayment'));
    }
  });
});
