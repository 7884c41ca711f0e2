import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimLease } from '../../src/simulator/data/model.js';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';
import { expectedTotals, mdyToIso, warehouseTotals } from '../support/warehouse-truth.js';

async function expectWarehouseEqualsSource(h: SyncHarness) {
  const expected = expectedTotals(h.sim.dataset);
  expect(await warehouseTotals(h.warehouse.db, expected)).toEqual(expected);
}

/** Field-by-field comparison of a spread of leases, their AR, and invoices, with the data set. */
async function spotCheck(h: SyncHarness) {
  const leases = h.sim.dataset.leases;
  const picks: SimLease[] = [0, 0.2, 0.4, 0.6, 0.8, 1].map(
    (at) => leases[Math.min(leases.length - 1, Math.floor(at * leases.length))],
  );
  for (const lease of picks) {
    const row = await h.warehouse.db
      .selectFrom('leases')
      .selectAll()
      .where('lease_id', '=', Number(lease.id))
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      property_id: Number(lease.propertyId),
      lease_status_type_id: Number(lease.leaseStatusTypeId),
      move_in_date: mdyToIso(lease.moveInDate),
      move_out_date: mdyToIso(lease.moveOutDate),
      unit_number: lease.unitNumber ?? null,
      is_month_to_month: lease.isMonthToMonth === 1,
      current_lease_interval_id: lease.leaseIntervalId,
      move_out_reason: lease.moveOutReason?.name ?? null,
      is_other_income: lease.isOtherIncomeLease === 't',
      deleted_at: null,
    });
    const ar = await h.warehouse.db
      .selectFrom('ar_transactions')
      .select(['ar_transaction_id', 'amount', 'balance_due', 'post_month', 'is_reversed'])
      .where('lease_id', '=', Number(lease.id))
      .where('deleted_at', 'is', null)
      .orderBy('ar_transaction_id')
      .execute();
    const source = [...(lease.arTransactions?.arTransaction ?? [])].sort((a, b) => a.id - b.id);
    expect(
      ar.map((t) => [
        t.ar_transaction_id,
        Number(t.amount),
        Number(t.balance_due),
        t.post_month,
        t.is_reversed,
      ]),
    ).toEqual(
      source.map((t) => [t.id, t.amount + 0, t.balanceDue + 0, mdyToIso(t.postMonth), t.isReversed === 1]),
    );
  }
  const invoices = h.sim.dataset.invoices;
  for (const invoice of [
    invoices[0],
    invoices[Math.floor(invoices.length / 2)],
    invoices[invoices.length - 1],
  ]) {
    const row = await h.warehouse.db
      .selectFrom('invoices')
      .selectAll()
      .where('invoice_id', '=', Number(invoice.id))
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      invoice_number: invoice.invoiceNumber,
      amount: invoice.amount,
      amount_due: invoice.amountDue,
      post_date: mdyToIso(invoice.postDate),
      vendor_id: Number(invoice.vendor.id),
    });
  }
}

/**
 * A digest of every source table's content (bookkeeping columns aside, and the digest of XML text, which JSON has not).
 */
async function fingerprint(db: SyncHarness['warehouse']['db']) {
  const out: Record<string, string> = {};
  for (const table of [
    'leases',
    'lease_intervals',
    'lease_customers',
    'lease_unit_spaces',
    'lease_scheduled_charges',
    'ar_transactions',
    'invoices',
    'invoice_line_items',
    'invoice_payments',
    'voided_payments',
  ]) {
    const { rows } = await sql<{ md5: string }>`
      select md5(string_agg(t.row, '|' order by t.row)) as md5 from (
        select (to_jsonb(x) - 'first_synced_at' - 'last_synced_at' - 'last_run_id' - 'deleted_at' - 'source_text_hash')::text as row from ${sql.table(table)} x) t`.execute(
      db,
    );
    out[table] = rows[0].md5;
  }
  return out;
}

describe('a full sync, then incremental syncs as the source moves', () => {
  let h: SyncHarness;
  let fullCalls = 0;
  beforeAll(async () => {
    h = await startSyncHarness({ scale: 'small', seed: 21, today: '2026-05-20' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('loads everything the source has, exactly', async () => {
    const summary = await h.sync();
    expect(summary.status).toBe('succeeded');
    expect(summary.quarantined).toBe(0);
    fullCalls = summary.calls;
    await expectWarehouseEqualsSource(h);
    await spotCheck(h);
  });

  it('changes nothing on a second sync right after, spending only the incremental plan calls', async () => {
    const summary = await h.sync();
    expect(summary).toMatchObject({
      status: 'succeeded',
      rowsInserted: 0,
      rowsUpdated: 0,
      rowsDeleted: 0,
      quarantined: 0,
    });
    // Every record read again matches the digest the full load stored, so it is skipped whole
    // (one unchanged count per record, not per row).
    expect(summary.records).toBeGreaterThan(0);
    expect(summary.rowsUnchanged).toBe(summary.records);
    // One getProperties call to find the properties (the properties stream, which reads the
    // listing whole on every run, loads that reply), then per property one call (its leases fit in one
    // page, so it is read whole: cheaper than the live set plus the move-outs), and per property
    // group the three invoice windows: one page each on this data set; and one getPropertyUnits call
    // for the unit inventory of every property (they fit in one call).
    const properties = new Set(h.sim.dataset.leases.map((lease) => lease.propertyId)).size;
    expect(summary.calls).toBe(1 + properties + 3 + 1);
    // Each call of the run's work units is logged with the run's id (the discovery call before the plan is not).
    const logged = h.logs.filter((line) => line.event === 'source.call' && line.runId === summary.runId);
    expect(logged).toHaveLength(summary.calls - 1);
    expect(
      h.logs.some((line) => line.event === 'source.call' && String(line.workUnit).startsWith('properties')),
    ).toBe(false);
    expect(logged.every((line) => typeof line.workUnit === 'string' && typeof line.status === 'number')).toBe(
      true,
    );
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from leases where last_run_id = ${summary.runId}`.execute(h.warehouse.db);
    expect(rows[0].n).toBe(0);
  });

  it.each([7, 30])('is equal to the source again after %i days of activity', async (days) => {
    const changes = h.sim.advance(days);
    const summary = await h.sync();
    expect(summary.status).toBe('succeeded');
    expect(summary.rowsInserted + summary.rowsUpdated).toBeGreaterThan(0);
    await expectWarehouseEqualsSource(h);
    await spotCheck(h);
    console.log(
      `after +${days} days (${JSON.stringify(changes)}): incremental sync ${summary.calls} calls, full sync ${fullCalls} calls`,
    );
  });

  it(
    'reads the same warehouse from XML as from JSON, full and incremental',
    { timeout: 240_000 },
    async () => {
      const xml = await startSyncHarness({ scale: 'small', seed: 21, today: '2026-05-20', format: 'xml' });
      const json = await startSyncHarness({ scale: 'small', seed: 21, today: '2026-05-20', format: 'json' });
      try {
        for (const days of [0, 7]) {
          if (days) {
            xml.sim.advance(days);
            json.sim.advance(days);
          }
          expect((await xml.sync()).status).toBe('succeeded');
          expect((await json.sync()).status).toBe('succeeded');
          await expectWarehouseEqualsSource(xml);
          expect(await fingerprint(xml.warehouse.db)).toEqual(await fingerprint(json.warehouse.db));
        }
      } finally {
        await xml.close();
        await json.close();
      }
    },
  );
});

describe('the incremental plan alone: live set, recent move-outs, disappearances, invoice windows', () => {
  let h: SyncHarness;
  beforeAll(async () => {
    // Pages of 30 (no property fits in one page), no periodic refresh due within the test, and a
    // move-out lookback longer than any AR activity after move-out, so nothing is refresh-only.
    h = await startSyncHarness({
      scale: 'small',
      seed: 23,
      today: '2026-01-12',
      source: { pageSize: 30 },
      streams: { leases: { lookbackDays: 400, fullRefreshDays: 365 }, invoices: { fullRefreshDays: 365 } },
    });
    await h.sync();
  });
  afterAll(async () => {
    await h?.close();
  });

  it.each([7, 30])('keeps the warehouse equal to the source over %i days', async (days) => {
    h.sim.advance(days);
    const summary = await h.sync();
    expect(summary.status).toBe('succeeded');
    const kinds = await h.warehouse.db
      .selectFrom('sync_work_units')
      .select('kind')
      .distinct()
      .where('run_id', '=', summary.runId)
      .execute();
    expect(kinds.map((k) => k.kind).sort()).toEqual(
      expect.arrayContaining(['live', 'move_outs', 'paid', 'post_date', 'voided']),
    );
    expect(kinds.map((k) => k.kind)).not.toContain('full');
    await expectWarehouseEqualsSource(h);
    await spotCheck(h);
  });
});
