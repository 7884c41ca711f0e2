import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXIT } from '../../src/app/exit-codes.js';
import { exitCodeFor } from '../../src/app/run-summary.js';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';

let h: SyncHarness;
beforeAll(async () => {
  h = await startSyncHarness({
    scale: 'small',
    seed: 8,
    today: '2026-02-02',
    faults: 'badrecord@0.04:kind=date|id|number|nul|int|money|year0|bigid',
  });
});
afterAll(async () => {
  await h?.close();
});

it('quarantines malformed records with their reasons while every other record loads, then loads them once fixed', async () => {
  const first = await h.sync();
  expect(first.status).toBe('succeeded');
  expect(first.quarantined).toBeGreaterThan(0);
  expect(exitCodeFor(first)).toBe(EXIT.quarantined);

  const entries = await h.warehouse.db
    .selectFrom('quarantine')
    .selectAll()
    .orderBy('quarantine_id')
    .execute();
  expect(entries).toHaveLength(first.quarantined);
  for (const entry of entries) {
    expect(entry).toMatchObject({ run_id: first.runId, resolved_at: null });
    expect(['leases', 'invoices', 'units']).toContain(entry.stream);
    expect(entry.reason).toMatch(/field \S+: .* is not /);
    expect(entry.page).toBeGreaterThanOrEqual(1);
    expect(entry.raw).toBeTypeOf('object');
  }
  // Every kind of damage was met and named by its field: text with NUL, an integer past
  // smallint, an amount past numeric(14,2), a date in year 0, a 25-digit id, a bad date, a
  // number that is not one, a missing id. A NUL can only be kept escaped, in raw_text.
  const fields = new Set(
    entries.map((entry) => `${entry.stream} ${/^field (\S+):/.exec(entry.reason)?.[1]}`),
  );
  expect([...fields].sort()).toEqual([
    'invoices amount',
    'invoices id',
    'invoices invoiceNumber',
    'invoices invoiceTypeId',
    'invoices postDate',
    'invoices vendor.id',
    'leases floorPlanId',
    'leases id',
    'leases leaseIntervalId',
    'leases moveInDate',
    'leases occupancyTypeId',
    'leases propertyName',
    'leases scheduledCharge.amount',
    'units units.unit[0].unitSpaces.unitSpace[0].availableDate',
  ]);
  const reasons = entries.map((entry) => entry.reason).join('\n');
  for (const damage of [
    'NUL',
    'is not a smallint',
    'is not a numeric(14,2)',
    '"01/15/0000" is not a date',
    'an id within range',
  ])
    expect(reasons).toContain(damage);
  for (const entry of entries.filter((e) => e.reason.includes('NUL')))
    expect(entry.raw_text).toContain('\\u0000');
  expect(entries.filter((e) => e.raw_text !== null).every((e) => e.reason.includes('NUL'))).toBe(true);
  // A lease entry names its property; every entry with an id is absent from the warehouse.
  for (const entry of entries.filter((e) => e.stream === 'leases')) expect(entry.property_id).not.toBeNull();
  const badLeaseIds = entries
    .filter((e) => e.stream === 'leases' && e.record_key)
    .map((e) => Number(e.record_key));
  const badInvoiceIds = entries
    .filter((e) => e.stream === 'invoices' && e.record_key)
    .map((e) => Number(e.record_key));
  if (badLeaseIds.length)
    expect(
      await h.warehouse.db
        .selectFrom('leases')
        .select('lease_id')
        .where('lease_id', 'in', badLeaseIds)
        .execute(),
    ).toEqual([]);
  if (badInvoiceIds.length)
    expect(
      await h.warehouse.db
        .selectFrom('invoices')
        .select('invoice_id')
        .where('invoice_id', 'in', badInvoiceIds)
        .execute(),
    ).toEqual([]);

  // Every other record loaded.
  const expected = expectedTotals(h.sim.dataset);
  const actual = await warehouseTotals(h.warehouse.db, expected);
  const quarantinedLeases = entries.filter((e) => e.stream === 'leases').length;
  const quarantinedInvoices = entries.filter((e) => e.stream === 'invoices').length;
  expect(actual.leases.rows).toBe(expected.leases.rows - quarantinedLeases);
  expect(actual.invoices.rows).toBe(expected.invoices.rows - quarantinedInvoices);

  // The run says so, naming record, property and page.
  const warnings = h.logs
    .filter((line) => line.event === 'record_quarantined')
    .map((line) => String(line.msg));
  expect(warnings).toHaveLength(first.quarantined);
  expect(warnings[0]).toMatch(
    /^(lease|invoice|unit inventory) (\d+|\(no id\)) of property \S+ on page \d+ of \S+ quarantined: field /,
  );
  expect(
    h.logs.some((line) => line.event === 'records_quarantined' && line.quarantined === first.quarantined),
  ).toBe(true);

  // The source fixes the records; a full re-read loads them and resolves their entries.
  h.sim.setFaults(undefined);
  const replay = await h.sync({ full: true });
  expect(replay).toMatchObject({ status: 'succeeded', quarantined: 0 });
  const open = await h.warehouse.db
    .selectFrom('quarantine')
    .select('quarantine_id')
    .where('resolved_at', 'is', null)
    .execute();
  expect(open).toEqual([]);
  const resolved = await h.warehouse.db
    .selectFrom('quarantine')
    .select('resolved_run_id')
    .distinct()
    .execute();
  expect(resolved).toEqual([{ resolved_run_id: replay.runId }]);
  expect(await warehouseTotals(h.warehouse.db, expected)).toEqual(expected);
});
