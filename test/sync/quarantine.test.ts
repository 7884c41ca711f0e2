import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';

let h: SyncHarness;
beforeAll(async () => {
  h = await startSyncHarness({ scale: 'small', seed: 8, today: '2026-02-02', faults: 'badrecord@0.04:kind=date|id|number' });
});
afterAll(async () => {
  await h?.close();
});

it('quarantines malformed records with their reasons while every other record loads, then loads them once fixed', async () => {
  const first = await h.sync();
  expect(first.status).toBe('succeeded');
  expect(first.quarantined).toBeGreaterThan(0);

  const entries = await h.warehouse.db.selectFrom('quarantine').selectAll().orderBy('quarantine_id').execute();
  expect(entries).toHaveLength(first.quarantined);
  for (const entry of entries) {
    expect(entry).toMatchObject({ run_id: first.runId, resolved_at: null });
    expect(['leases', 'invoices']).toContain(entry.stream);
    expect(entry.reason).toMatch(/field \S+: .* is not /);
    expect(entry.page).toBeGreaterThanOrEqual(1);
    expect(entry.raw).toBeTypeOf('object');
  }
  // A lease entry names its property; every entry with an id is absent from the warehouse.
  for (const entry of entries.filter((e) => e.stream === 'leases')) expect(entry.property_id).not.toBeNull();
  const badLeaseIds = entries.filter((e) => e.stream === 'leases' && e.record_key).map((e) => Number(e.record_key));
  const badInvoiceIds = entries.filter((e) => e.stream === 'invoices' && e.record_key).map((e) => Number(e.record_key));
  if (badLeaseIds.length) expect(await h.warehouse.db.selectFrom('leases').select('lease_id').where('lease_id', 'in', badLeaseIds).execute()).toEqual([]);
  if (badInvoiceIds.length) expect(await h.warehouse.db.selectFrom('invoices').select('invoice_id').where('invoice_id', 'in', badInvoiceIds).execute()).toEqual([]);

  // Every other record loaded.
  const expected = expectedTotals(h.sim.dataset);
  const actual = await warehouseTotals(h.warehouse.db, expected);
  const quarantinedLeases = entries.filter((e) => e.stream === 'leases').length;
  const quarantinedInvoices = entries.filter((e) => e.stream === 'invoices').length;
  expect(actual.leases.rows).toBe(expected.leases.rows - quarantinedLeases);
  expect(actual.invoices.rows).toBe(expected.invoices.rows - quarantinedInvoices);

  // The run says so, naming record, property and page.
  const warnings = h.logs.filter((line) => line.event === 'record_quarantined').map((line) => String(line.msg));
  expect(warnings).toHaveLength(first.quarantined);
  expect(warnings[0]).toMatch(/^(lease|invoice) (\d+|\(no id\)) of property \S+ on page \d+ of \S+ quarantined: field /);
  expect(h.logs.some((line) => line.event === 'records_quarantined' && line.quarantined === first.quarantined)).toBe(true);

  // The source fixes the records; a full re-read loads them and resolves their entries.
  h.sim.setFaults(undefined);
  const replay = await h.sync({ full: true });
  expect(replay).toMatchObject({ status: 'succeeded', quarantined: 0 });
  const open = await h.warehouse.db.selectFrom('quarantine').select('quarantine_id').where('resolved_at', 'is', null).execute();
  expect(open).toEqual([]);
  const resolved = await h.warehouse.db.selectFrom('quarantine').select('resolved_run_id').distinct().execute();
  expect(resolved).toEqual([{ resolved_run_id: replay.runId }]);
  expect(await warehouseTotals(h.warehouse.db, expected)).toEqual(expected);
});
