import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyOrMerge,
  upsertStaged,
  type LoadRow,
  type UpsertCounts,
} from '../../src/warehouse/bulk-load/index.js';
import { UNIT_INVENTORIES, UNIT_SPACES, UNITS } from '../../src/streams/units/tables.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// Child tables that keep a digest of each row (the units stream's): an incremental page sends
// only the rows whose digest is not the stored one, yet counts, revives and marks deleted as a
// merge of every row does.

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

const PROPERTY = 100001;

function row(table: { columns: Record<string, unknown> }, values: Record<string, unknown>): LoadRow {
  return {
    ...Object.fromEntries(Object.keys(table.columns).map((column) => [column, null])),
    ...values,
  } as LoadRow;
}

const inventory = (units: number) =>
  row(UNIT_INVENTORIES, { property_id: PROPERTY, unit_count: units, space_count: units, raw: { units } });
const unit = (id: number) =>
  row(UNITS, {
    unit_id: id,
    property_id: PROPERTY,
    unit_number: String(id),
    is_other_income: false,
    raw: { id: String(id) },
  });
const space = (id: number, status: string, rent: string) =>
  row(UNIT_SPACES, {
    unit_space_id: id,
    property_id: PROPERTY,
    unit_id: id,
    availability_status: status,
    status_category: status === 'Occupied' ? 'occupied' : 'vacant',
    rent,
    is_other_income: false,
    raw: { unitSpaceId: String(id), availabilityStatus: status, rent },
  });

/** The property's inventory as one page: its header row, its units and their spaces. */
function page(spaces: { id: number; status: string; rent: string }[]) {
  return [
    { spec: UNIT_INVENTORIES, rows: [inventory(spaces.length)] },
    { spec: UNITS, rows: spaces.map(({ id }) => unit(id)), parents: [PROPERTY] },
    {
      spec: UNIT_SPACES,
      rows: spaces.map(({ id, status, rent }) => space(id, status, rent)),
      parents: [PROPERTY],
    },
  ];
}

const listing = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ id: 70001 + index, status: 'Occupied', rent: '1500.00' }));

async function spaces() {
  return t.db
    .selectFrom('unit_spaces')
    .select(['unit_space_id', 'availability_status', 'rent', 'deleted_at', 'row_hash'])
    .orderBy('unit_space_id')
    .execute();
}

/** A load as a page's: in one transaction. */
const load = (work: (trx: TestDatabase['db']) => Promise<UpsertCounts[]>) => t.db.transaction().execute(work);

describe('child rows known by their digest', () => {
  it('writes each row with its digest on a first load', async () => {
    const counts = await load((trx) => copyOrMerge(trx, page(listing(5)), 1, 'default'));
    expect(counts.map((c) => c.inserted)).toEqual([1, 5, 5]);
    const stored = await spaces();
    expect(stored).toHaveLength(5);
    expect(stored.every((s) => typeof s.row_hash === 'string' && s.row_hash.length > 0)).toBe(true);
    expect(new Set(stored.map((s) => s.row_hash)).size).toBe(5);
  });

  it('passes over the rows whose digest is stored, writing only the changed one, and counts both', async () => {
    const changed = listing(5).map((s, index) =>
      index === 2 ? { ...s, status: 'Vacant', rent: '1450.00' } : s,
    );
    const counts = await load((trx) => upsertStaged(trx, page(changed).slice(1), 2, 'default'));
    expect(counts).toEqual([
      { inserted: 0, updated: 0, unchanged: 5, deleted: 0 },
      { inserted: 0, updated: 1, unchanged: 4, deleted: 0 },
    ]);
    const stored = await spaces();
    expect(stored.map((s) => [s.unit_space_id, s.availability_status, s.rent])).toEqual(
      changed.map((s) => [s.id, s.status, s.rent]),
    );
  });

  it('does not rewrite a row it passes over: what was changed behind the sync stays for verify to find', async () => {
    await sql`update unit_spaces set rent = 1.00 where unit_space_id = 70001`.execute(t.db);
    const counts = await load((trx) => upsertStaged(trx, page(listing(5)).slice(2), 3, 'default'));
    // 70003 goes back to Occupied; 70001 matches its stored digest and is not sent.
    expect(counts).toEqual([{ inserted: 0, updated: 1, unchanged: 4, deleted: 0 }]);
    expect((await spaces())[0].rent).toBe('1.00');
    // With its digest forgotten (verify --repair does so for the properties it repairs), it is written again.
    await sql`update unit_spaces set row_hash = null where unit_space_id = 70001`.execute(t.db);
    const repaired = await load((trx) => upsertStaged(trx, page(listing(5)).slice(2), 4, 'default'));
    expect(repaired).toEqual([{ inserted: 0, updated: 1, unchanged: 4, deleted: 0 }]);
    expect((await spaces())[0].rent).toBe('1500.00');
  });

  it('marks deleted a row the parent no longer lists, though its siblings were passed over, and revives it', async () => {
    const fewer = await load((trx) => upsertStaged(trx, page(listing(4)).slice(1), 5, 'default'));
    expect(fewer).toEqual([
      { inserted: 0, updated: 0, unchanged: 4, deleted: 1 },
      { inserted: 0, updated: 0, unchanged: 4, deleted: 1 },
    ]);
    expect((await spaces()).map((s) => s.deleted_at === null)).toEqual([true, true, true, true, false]);
    const back = await load((trx) => upsertStaged(trx, page(listing(6)).slice(1), 6, 'default'));
    expect(back).toEqual([
      { inserted: 1, updated: 1, unchanged: 4, deleted: 0 },
      { inserted: 1, updated: 1, unchanged: 4, deleted: 0 },
    ]);
    expect((await spaces()).every((s) => s.deleted_at === null)).toBe(true);
  });

  it('takes the digest of a row stored without one, without counting the row as written', async () => {
    await sql`update unit_spaces set row_hash = null`.execute(t.db);
    const versions = async () =>
      (await sql<{ xmin: string }>`select xmin::text as xmin, rent from unit_spaces order by 1`.execute(t.db))
        .rows;
    const counts = await load((trx) => upsertStaged(trx, page(listing(6)).slice(2), 7, 'default'));
    expect(counts).toEqual([{ inserted: 0, updated: 0, unchanged: 6, deleted: 0 }]);
    expect((await spaces()).every((s) => s.row_hash !== null)).toBe(true);
    const before = await versions();
    // Now known by their digests: nothing is sent, nothing written.
    const again = await load((trx) => upsertStaged(trx, page(listing(6)).slice(2), 8, 'default'));
    expect(again).toEqual([{ inserted: 0, updated: 0, unchanged: 6, deleted: 0 }]);
    expect(await versions()).toEqual(before);
  });

  it("keeps each account's digests to itself", async () => {
    const counts = await load((trx) => upsertStaged(trx, page(listing(6)).slice(2), 9, 'other'));
    expect(counts).toEqual([{ inserted: 6, updated: 0, unchanged: 0, deleted: 0 }]);
  });
});
