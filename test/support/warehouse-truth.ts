import { sql } from 'kysely';
import type { SimDataset } from '../../src/simulator/data/model.js';
import type { Db } from '../../src/warehouse/db.js';

/**
 * What a complete warehouse must hold, computed straight from the simulator's data set (not
 * through the client or the streams): per table, live rows and exact money sums in cents.
 */
export type TableTotals = Record<string, { rows: number; cents?: Record<string, string> }>;

const list = <T>(holder: { [key: string]: T[] } | undefined, key: string): T[] => (holder?.[key] as T[] | undefined) ?? [];

/** Cents of a decimal string or number, exactly (no float arithmetic on strings). */
export function cents(value: unknown): bigint {
  if (typeof value === 'number') return BigInt(Math.round(value * 100));
  const text = String(value).replace('$', '');
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = text.replace(/^[-+]/, '').split('.');
  const result = BigInt(whole || '0') * 100n + BigInt((fraction + '00').slice(0, 2));
  return negative ? -result : result;
}

/** Expected totals of every source table after a complete sync of `dataset`. */
export function expectedTotals(dataset: SimDataset): TableTotals {
  let intervals = 0;
  let customers = 0;
  let spaces = 0;
  let charges = 0;
  let chargeCents = 0n;
  let ar = 0;
  let arCents = 0n;
  for (const lease of dataset.leases) {
    const ids = new Set<number>();
    for (const interval of [...list(lease.leaseIntervals, 'leaseInterval'), ...list(lease.leaseHistory, 'leaseInterval')]) ids.add(Number(interval.id));
    intervals += ids.size;
    customers += new Set(list<Record<string, unknown>>(lease.customers, 'customer').map((customer) => String(customer.id))).size;
    spaces += list(lease.unitSpaces, 'unitSpace').length;
    for (const charge of list<Record<string, unknown>>(lease.scheduledCharges, 'scheduledCharge')) {
      charges += 1;
      chargeCents += cents(charge.amount);
    }
    for (const transaction of list(lease.arTransactions, 'arTransaction')) {
      ar += 1;
      arCents += cents(transaction.amount);
    }
  }
  let invoiceCents = 0n;
  let invoiceDueCents = 0n;
  let lines = 0;
  let lineCents = 0n;
  let payments = 0;
  let paymentCents = 0n;
  let voided = 0;
  let voidedCents = 0n;
  for (const invoice of dataset.invoices) {
    invoiceCents += cents(invoice.amount);
    invoiceDueCents += cents(invoice.amountDue);
    for (const line of list<Record<string, unknown>>(invoice.lineItems, 'lineItem')) {
      lines += 1;
      lineCents += cents(line.amount);
    }
    for (const payment of list(invoice.invoicePayments, 'invoicePayment')) {
      payments += 1;
      paymentCents += cents(payment.paymentAmount);
    }
    for (const payment of list(invoice.voidedPayments, 'voidedPayment')) {
      voided += 1;
      voidedCents += cents(payment.paymentAmount);
    }
  }
  return {
    leases: { rows: dataset.leases.length },
    lease_intervals: { rows: intervals },
    lease_customers: { rows: customers },
    lease_unit_spaces: { rows: spaces },
    lease_scheduled_charges: { rows: charges, cents: { amount: String(chargeCents) } },
    ar_transactions: { rows: ar, cents: { amount: String(arCents) } },
    invoices: { rows: dataset.invoices.length, cents: { amount: String(invoiceCents), amount_due: String(invoiceDueCents) } },
    invoice_line_items: { rows: lines, cents: { amount: String(lineCents) } },
    invoice_payments: { rows: payments, cents: { amount: String(paymentCents) } },
    voided_payments: { rows: voided, cents: { amount: String(voidedCents) } },
  };
}

/** The same totals read from the warehouse (rows not marked deleted). */
export async function warehouseTotals(db: Db, expected: TableTotals): Promise<TableTotals> {
  const out: TableTotals = {};
  for (const [table, want] of Object.entries(expected)) {
    const sums = Object.keys(want.cents ?? {});
    const select = sums.length
      ? sql.join([sql`count(*)::int as rows`, ...sums.map((column) => sql`coalesce(sum(${sql.ref(column)} * 100), 0)::bigint::text as ${sql.ref(column)}`)])
      : sql`count(*)::int as rows`;
    const { rows } = await sql<Record<string, string | number>>`select ${select} from ${sql.table(table)} where deleted_at is null`.execute(db);
    const row = rows[0];
    out[table] = { rows: Number(row.rows), ...(sums.length ? { cents: Object.fromEntries(sums.map((column) => [column, String(row[column])])) } : {}) };
  }
  return out;
}
