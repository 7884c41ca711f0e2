import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { refreshReporting } from '../../src/reporting/refresh.js';
import type { SimDataset } from '../../src/simulator/data/model.js';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';
import { cents, mdyToIso } from '../support/warehouse-truth.js';

// A full sync of the simulator: minutes on a busy machine.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 600_000 });

/**
 * Issue 43 items 3 and 5 against the source: residents' delinquency per property, credits apart,
 * applications' balances apart, the last payment per lease, and open payables' buckets and
 * retention, computed from the simulator's own leases and invoices (the wire shape its replies
 * carry), never from the warehouse's tables. Only the day (as_of_date) is read from the views.
 */
const APPLICATION = new Set(['1', '2', '3']); // Applicant, Cancelled, Future

const days = (today: string, day: string) => (Date.parse(today) - Date.parse(day)) / 86_400_000;

function bucket(age: number): string {
  if (age <= 0) return 'not_yet_due';
  if (age <= 30) return 'days_1_30';
  if (age <= 60) return 'days_31_60';
  return age <= 90 ? 'days_61_90' : 'over_90';
}

/** Per property: residents' past-due charges by bucket, their credits, applications' balance (cents). */
function expectedByProperty(dataset: SimDataset, today: string): Map<string, Record<string, bigint>> {
  const out = new Map<string, Record<string, bigint>>();
  for (const lease of dataset.leases) {
    const sums = out.get(lease.propertyId) ?? {};
    const add = (key: string, value: bigint) => (sums[key] = (sums[key] ?? 0n) + value);
    for (const t of lease.arTransactions?.arTransaction ?? []) {
      if (t.isTemporary || t.isReversed || t.balanceDue === 0) continue;
      const balance = cents(t.balanceDue);
      if (APPLICATION.has(lease.leaseStatusTypeId)) add('application_balance', balance);
      else if (balance < 0n) add('resident_open_credits', balance);
      else {
        const age = days(today, mdyToIso(t.dueDate)!);
        if (age > 0) add(`resident_past_due_${bucket(age).replace('days_', '')}`, balance);
      }
    }
    if (Object.keys(sums).length) out.set(lease.propertyId, sums);
  }
  return out;
}

/** Per lease with open AR: its last payment (date and cents), reversed and temporary ones left out. */
function expectedLastPayments(dataset: SimDataset): Map<string, string> {
  const out = new Map<string, string>();
  for (const lease of dataset.leases) {
    const items = lease.arTransactions?.arTransaction ?? [];
    if (!items.some((t) => !t.isTemporary && !t.isReversed && t.balanceDue !== 0)) continue;
    const payments = items
      .filter((t) => t.transactionTypeId === '2' && t.amount < 0 && !t.isReversed && !t.isTemporary)
      .map((t) => ({ day: mdyToIso(t.postDate)!, id: t.id, amount: cents(t.amount) }))
      .sort((a, b) => a.day.localeCompare(b.day) || a.id - b.id);
    const last = payments.at(-1);
    out.set(lease.id, last ? `${last.day} ${last.amount}` : 'none');
  }
  return out;
}

/** Per open invoice: retention held, open credit, owed and the bucket owed falls in. */
function expectedPayables(dataset: SimDataset, today: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const invoice of dataset.invoices) {
    const due = cents(invoice.amountDue);
    if (due === 0n) continue;
    const positive = due > 0n ? due : 0n;
    const retention = cents(invoice.retention || '0');
    const held = retention <= 0n ? 0n : retention < positive ? retention : positive;
    const owed = positive - held;
    const dueDate = mdyToIso(invoice.dueDate);
    const where = owed === 0n ? 'none' : dueDate ? bucket(days(today, dueDate)) : 'not_yet_due';
    out.set(invoice.id, `${held} ${due < 0n ? due : 0n} ${owed} ${where}`);
  }
  return out;
}

/** Round half away from zero of `n / d` (d > 0 or < 0), as Postgres rounds numeric. */
function roundDiv(n: bigint, d: bigint): bigint {
  const negative = n < 0n !== d < 0n;
  const [a, b] = [n < 0n ? -n : n, d < 0n ? -d : d];
  const q = (2n * a + b) / (2n * b);
  return negative ? -q : q;
}

/**
 * Per property: open vendor invoices' amount due and owed (cents), each invoice split by its lines'
 * amounts per property, every part the rounded share up to the property less the one before it.
 */
function expectedByLineProperty(dataset: SimDataset, payables: Map<string, string>): Map<string, string> {
  const sums = new Map<string, [bigint, bigint]>();
  for (const invoice of dataset.invoices) {
    const open = payables.get(invoice.id);
    if (!open || invoice.invoiceTypeId === '20') continue;
    const due = cents(invoice.amountDue);
    const owed = BigInt(open.split(' ')[2]);
    const byProperty = new Map<string, bigint>();
    for (const line of invoice.lineItems.lineItem) {
      const property = String((line.property as { id: unknown }).id);
      byProperty.set(property, (byProperty.get(property) ?? 0n) + cents(line.amount));
    }
    const properties = [...byProperty.keys()].sort((a, b) => Number(a) - Number(b));
    const whole = [...byProperty.values()].reduce((s, v) => s + v, 0n);
    if (properties.length === 0) {
      const [d, o] = sums.get('none') ?? [0n, 0n];
      sums.set('none', [d + due, o + owed]);
    }
    let before = 0n;
    for (const property of properties) {
      const upto = before + byProperty.get(property)!;
      const part = (x: bigint) =>
        whole === 0n ? x : roundDiv(x * upto, whole) - roundDiv(x * before, whole);
      const key = whole === 0n ? (properties.length === 1 ? property : 'none') : property;
      const [d, o] = sums.get(key) ?? [0n, 0n];
      sums.set(key, [d + part(due), o + part(owed)]);
      before = upto;
      if (whole === 0n) break;
    }
  }
  return new Map([...sums].map(([key, [d, o]]) => [key, `${d} ${o}`]));
}

let harness: SyncHarness;
let today: string;
beforeAll(async () => {
  harness = await startSyncHarness({ scale: 'small', seed: 43 });
  const summary = await harness.sync();
  expect(summary.status).toBe('succeeded');
  await refreshReporting(harness.warehouse.db, { timeZone: 'America/Denver' });
  today = await asOf();
});

/** The day the views are as of (the account's today). */
async function asOf(): Promise<string> {
  const { rows } = await sql<{
    day: string;
  }>`select as_of_date::text as day from reporting.portfolio`.execute(harness.warehouse.db);
  return rows[0].day;
}

afterAll(async () => {
  await harness?.close();
});

describe('delinquency and payables against the source', () => {
  it("gives residents' past due per property apart from applications, credits apart", async () => {
    const expected = expectedByProperty(harness.sim.dataset, today);
    // The case is in the data: cancelled or future applications owe, some of it over 90 days.
    const applications = [...expected.values()].reduce((s, p) => s + (p.application_balance ?? 0n), 0n);
    expect(applications).toBeGreaterThan(0n);
    const { rows } = await sql<Record<string, string | number>>`
      select property_id, resident_past_due_1_30, resident_past_due_31_60, resident_past_due_61_90,
             resident_past_due_over_90, resident_open_credits, application_balance, resident_past_due
        from reporting.ar_aging_by_property`.execute(harness.warehouse.db);
    const actual = new Map(
      rows.map((row) => {
        const sums: Record<string, bigint> = {};
        for (const key of [
          'resident_past_due_1_30',
          'resident_past_due_31_60',
          'resident_past_due_61_90',
          'resident_past_due_over_90',
          'resident_open_credits',
          'application_balance',
        ])
          if (cents(row[key]) !== 0n) sums[key] = cents(row[key]);
        const buckets = ['1_30', '31_60', '61_90', 'over_90'].reduce(
          (s, b) => s + cents(row[`resident_past_due_${b}`]),
          0n,
        );
        expect(cents(row.resident_past_due)).toBe(buckets);
        return [String(row.property_id), sums] as const;
      }),
    );
    expect(actual).toEqual(expected);
    const { rows: portfolio } = await sql<{ past: string; credits: string; applications: string }>`
      select resident_past_due_ar as past, resident_ar_credits as credits, application_ar_balance as applications
        from reporting.portfolio`.execute(harness.warehouse.db);
    const total = (key: string) => [...expected.values()].reduce((s, p) => s + (p[key] ?? 0n), 0n);
    expect(cents(portfolio[0].credits)).toBe(total('resident_open_credits'));
    expect(cents(portfolio[0].applications)).toBe(applications);
    expect(cents(portfolio[0].past)).toBe(
      ['1_30', '31_60', '61_90', 'over_90'].reduce((s, b) => s + total(`resident_past_due_${b}`), 0n),
    );
  });

  it("gives each lease with open AR its last payment's date and amount", async () => {
    const { rows } = await sql<{ lease_id: string; day: string | null; amount: string | null }>`
      select lease_id::text, last_payment_date::text as day, last_payment_amount::text as amount
        from reporting.ar_aging`.execute(harness.warehouse.db);
    const actual = new Map(
      rows.map((row) => [row.lease_id, row.day ? `${row.day} ${cents(row.amount)}` : 'none'] as const),
    );
    expect(actual).toEqual(expectedLastPayments(harness.sim.dataset));
  });

  it("splits open payables per property by an invoice's lines, to the cent", async () => {
    const expected = expectedPayables(harness.sim.dataset, today);
    const multi = harness.sim.dataset.invoices.filter(
      (invoice) =>
        expected.has(invoice.id) &&
        new Set(invoice.lineItems.lineItem.map((line) => String((line.property as { id: unknown }).id)))
          .size > 1,
    );
    expect(multi.length).toBeGreaterThan(0);
    const { rows: split } = await sql<{ property_id: string | null; amount_due: string; owed: string }>`
      select property_id::text, amount_due, owed from reporting.ap_open_by_property`.execute(
      harness.warehouse.db,
    );
    expect(
      new Map(
        split
          .filter((row) => cents(row.amount_due) !== 0n || cents(row.owed) !== 0n)
          .map((row) => [row.property_id ?? 'none', `${cents(row.amount_due)} ${cents(row.owed)}`]),
      ),
    ).toEqual(
      new Map(
        [...expectedByLineProperty(harness.sim.dataset, expected)].filter(([, value]) => value !== '0 0'),
      ),
    );
  });

  it('ages what open invoices owe, retention and open credit memos apart', async () => {
    // Forty days on, invoices with retention are paid but for it.
    harness.sim.advance(40);
    expect((await harness.sync()).status).toBe('succeeded');
    await refreshReporting(harness.warehouse.db, { timeZone: 'America/Denver' });
    today = await asOf();
    const expected = expectedPayables(harness.sim.dataset, today);
    const values = [...expected.values()];
    // Invoices owing only their retention, and old open credit memos, are in the data.
    expect(values.some((v) => v.endsWith(' 0 none') && !v.startsWith('0 '))).toBe(true);
    expect(values.some((v) => / -\d+ 0 none$/.test(v))).toBe(true);
    const { rows } = await sql<Record<string, string>>`
      select invoice_id::text, retention_held, open_credit, owed, not_yet_due, days_1_30, days_31_60, days_61_90,
             over_90
        from reporting.ap_open_invoices`.execute(harness.warehouse.db);
    const buckets = ['not_yet_due', 'days_1_30', 'days_31_60', 'days_61_90', 'over_90'];
    const actual = new Map(
      rows.map((row) => {
        const where = buckets.filter((b) => cents(row[b]) !== 0n);
        expect(where.length).toBeLessThanOrEqual(1);
        const text = `${cents(row.retention_held)} ${cents(row.open_credit)} ${cents(row.owed)} ${where[0] ?? 'none'}`;
        return [row.invoice_id, text] as const;
      }),
    );
    expect(actual).toEqual(expected);
  });
});
