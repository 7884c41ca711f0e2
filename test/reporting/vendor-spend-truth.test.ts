import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { refreshReporting } from '../../src/reporting/refresh.js';
import type { SimInvoice } from '../../src/simulator/data/model.js';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';
import { cents, mdyToIso } from '../support/warehouse-truth.js';

// A full sync and an incremental one of the simulator: minutes on a busy machine.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 600_000 });

/**
 * Issue 43 item 1: vendor spend per post month, vendor and property, to the cent, computed from
 * the source's own invoices (the simulator's truth, in the wire shape its replies carry), never
 * from the warehouse's tables: net spend is every line posted, invoices and credit memos alike.
 */
function expectedSpend(invoices: readonly SimInvoice[]): Map<string, bigint> {
  const spend = new Map<string, bigint>();
  for (const invoice of invoices) {
    if (invoice.invoiceTypeId === '20' || !invoice.postMonth) continue;
    for (const line of invoice.lineItems.lineItem) {
      const property = (line.property as { id?: string } | undefined)?.id ?? String(line.propertyId);
      const key = `${mdyToIso(invoice.postMonth)} ${invoice.vendor.id} ${property}`;
      spend.set(key, (spend.get(key) ?? 0n) + cents(line.amount));
    }
  }
  return spend;
}

/** The view's amounts, by the same keys, with only rows of some spend or credit. */
async function viewSpend(harness: SyncHarness): Promise<Map<string, bigint>> {
  const { rows } = await sql<{ key: string; amount: string }>`
    select post_month::text || ' ' || vendor_id || ' ' || property_id as key, amount::text
      from reporting.vendor_spend_monthly`.execute(harness.warehouse.db);
  return new Map(rows.map((row) => [row.key, cents(row.amount)]));
}

/** Credit memos that name an earlier invoice, and how many of them credit only part of it. */
function linkedCredits(invoices: readonly SimInvoice[]): { links: number; partial: number } {
  const byId = new Map(invoices.map((invoice) => [invoice.id, invoice]));
  const linked = invoices.filter(
    (invoice) => invoice.reversalInvoiceId && byId.has(invoice.reversalInvoiceId),
  );
  const partial = linked.filter(
    (invoice) => cents(invoice.amount) + cents(byId.get(invoice.reversalInvoiceId!)!.amount) !== 0n,
  );
  return { links: linked.length, partial: partial.length };
}

let harness: SyncHarness;
beforeAll(async () => {
  harness = await startSyncHarness({ scale: 'small', seed: 43 });
});
afterAll(async () => {
  await harness?.close();
});

describe('vendor_spend_monthly against the source', () => {
  it('nets every posted line, a credit memo that names an earlier invoice leaving that invoice counted', async () => {
    const summary = await harness.sync();
    expect(summary.status).toBe('succeeded');
    await refreshReporting(harness.warehouse.db, { timeZone: 'America/Denver' });
    const { links, partial } = linkedCredits(harness.sim.dataset.invoices);
    // The case the rule is about is in the data: partial credits linked to earlier invoices.
    expect(links).toBeGreaterThan(0);
    expect(partial).toBeGreaterThan(0);
    expect(await viewSpend(harness)).toEqual(expectedSpend(harness.sim.dataset.invoices));
  });

  it('stays exact after ten more days of invoices and credits, kept group by group', async () => {
    harness.sim.advance(10);
    const summary = await harness.sync();
    expect(summary.status).toBe('succeeded');
    await refreshReporting(harness.warehouse.db, { timeZone: 'America/Denver' });
    expect(await viewSpend(harness)).toEqual(expectedSpend(harness.sim.dataset.invoices));
  });
});
