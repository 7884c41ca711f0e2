/**
 * A first load (the account has no rows in a stream's table yet) copies its pages in without
 * looking anything up; a load into tables that hold the account's rows looks up and merges. Both
 * leave the same tables, the source's repeats of a record across and within pages included, and
 * the next run merges.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SOURCE_TABLES } from '../../src/catalog/tables.js';
import type { SimLease } from '../../src/simulator/data/model.js';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';

/** Pages small enough that a property's leases span several. */
const PAGE = 10;
/** Keys of the rows that make the account hold rows of a stream already (none of the source's). */
const PLACEHOLDER = 900_000_001;

/**
 * The source repeats records: the lease last on a property's first page again first on its
 * second (a later version of it), and another lease twice in a row, on one page. The listing then
 * holds fewer distinct leases than its total, which fails that unit after its pages are loaded.
 */
function repeatRecords(h: SyncHarness): void {
  const { dataset } = h.sim;
  const propertyId = dataset.leases[0]._propertyId;
  const leases = dataset.leases
    .filter((lease) => lease._propertyId === propertyId)
    .sort((a, b) => a._id - b._id);
  const later = (lease: SimLease, unitNumber: string): SimLease => ({
    ...structuredClone(lease),
    unitNumber,
  });
  dataset.leases.push(later(leases[PAGE - 1], 'repeated'), later(leases[PAGE + 3], 'again'));
  h.sim.advance(0); // the simulator's index of the data set, built again
}

/** The source lists each record once again (each repeated lease's later version, once). */
function listOnce(h: SyncHarness): void {
  const { dataset } = h.sim;
  const last = new Map(dataset.leases.map((lease) => [lease._id, lease]));
  dataset.leases.splice(0, dataset.leases.length, ...last.values());
  h.sim.advance(0);
}

/**
 * Every source table's rows as JSON (bookkeeping columns aside), in key order. The tree's digest
 * (`source_hash`) is the loader's: a record first loaded is known by its text's digest, and its
 * tree's is taken once it comes back decoded (a repeat the merge path passes over undecoded).
 */
async function contents(h: SyncHarness): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const { name: table } of SOURCE_TABLES) {
    const { rows } = await sql<{ row: string }>`
      select (to_jsonb(x) - 'first_synced_at' - 'last_synced_at' - 'last_run_id' - 'source_hash')::text as row
        from ${sql.table(table)} x order by 1`.execute(h.warehouse.db);
    out[table] = rows.map((row) => row.row);
  }
  return out;
}

const firstLoads = (h: SyncHarness) =>
  h.logs.filter((line) => line.event === 'first_load').map((line) => line.table as string);

let first: SyncHarness;
let merged: SyncHarness;
beforeAll(async () => {
  first = await startSyncHarness({ scale: 'small', seed: 31, today: '2026-04-14' });
  merged = await startSyncHarness({ scale: 'small', seed: 31, today: '2026-04-14' });
  for (const h of [first, merged]) repeatRecords(h);
  // The account holds a lease and an invoice already (of no property the source lists): those streams merge.
  const db = merged.warehouse.db;
  await sql`insert into leases (account_id, lease_id, property_id, raw)
    values ('default', ${PLACEHOLDER}, ${PLACEHOLDER}, '{}')`.execute(db);
  await sql`insert into invoices (account_id, invoice_id, raw) values ('default', ${PLACEHOLDER}, '{}')`.execute(
    db,
  );
});
afterAll(async () => {
  await first?.close();
  await merged?.close();
});

it('leaves the same tables whether the pages are copied in or merged', { timeout: 120_000 }, async () => {
  const copied = await first.sync({}, { pageSize: PAGE });
  const looked = await merged.sync({}, { pageSize: PAGE });
  expect(copied).toMatchObject({ status: 'partial', quarantined: 0 });
  expect(looked).toMatchObject({ status: 'partial', quarantined: 0 });
  expect(firstLoads(first).sort()).toEqual(['invoices', 'leases', 'properties', 'unit_inventories']);
  expect(firstLoads(merged).sort()).toEqual(['properties', 'unit_inventories']);
  await sql`delete from leases where lease_id = ${PLACEHOLDER}`.execute(merged.warehouse.db);
  await sql`delete from invoices where invoice_id = ${PLACEHOLDER}`.execute(merged.warehouse.db);
  const tables = await contents(first);
  expect(tables).toEqual(await contents(merged));
  // The later version of each repeated lease, once.
  const { rows } = await sql<{ unit_number: string }>`
    select unit_number from leases where unit_number in ('repeated', 'again') order by 1`.execute(
    first.warehouse.db,
  );
  expect(rows.map((row) => row.unit_number)).toEqual(['again', 'repeated']);
  expect(copied.rowsInserted).toBe(looked.rowsInserted);
  expect(tables.leases.length).toBe(new Set(first.sim.dataset.leases.map((lease) => lease._id)).size);
});

it('merges on the next run, now that the account has rows', async () => {
  listOnce(first);
  first.logs.length = 0;
  const again = await first.sync({}, { pageSize: PAGE });
  expect(again).toMatchObject({ status: 'succeeded', rowsInserted: 0, rowsDeleted: 0 });
  expect(firstLoads(first)).toEqual([]);
});
