import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../../src/app/exit-codes.js';
import { exitCodeFor } from '../../../src/app/run-summary.js';
import { startSyncHarness, type SyncHarness } from '../../support/sync-harness.js';

// One bad unit of a property's listing (the simulator's badrecord fault puts a rent that is not
// money on the first space of the property's first unit), over HTTP against real Postgres: the
// unit goes to quarantine naming its field, the property's other units load, a unit loaded before
// is kept as it stood (never marked deleted), and once the source sends it clean it loads and
// the entry is resolved.

const PROPERTY = 100001;
const BAD = `badrecord:method=getPropertyUnits:ids=${PROPERTY}:kind=money`;

let h: SyncHarness;
beforeAll(async () => {
  h = await startSyncHarness({ scale: 'small', seed: 5, today: '2026-06-15', faults: BAD });
});
afterAll(async () => {
  await h?.close();
});

const syncUnits = () => h.sync({ streams: ['units'] });

/** The property's units as the warehouse holds them: id → deleted or not. */
async function unitsOf(propertyId: number): Promise<Map<number, boolean>> {
  const rows = await h.warehouse.db
    .selectFrom('units')
    .select(['unit_id', 'deleted_at'])
    .where('property_id', '=', propertyId)
    .execute();
  return new Map(rows.map((row) => [Number(row.unit_id), row.deleted_at !== null]));
}

async function openEntries() {
  return h.warehouse.db
    .selectFrom('quarantine')
    .selectAll()
    .where('stream', '=', 'units')
    .where('resolved_at', 'is', null)
    .execute();
}

describe('a bad unit', () => {
  let badUnit: number;
  /** The property's units as the source listed them (the quarantined record's own list). */
  let listed: number[];

  it('goes to quarantine alone on a first load, and the property’s other units load', async () => {
    const first = await syncUnits();
    expect(first.status).toBe('succeeded');
    expect(first.quarantined).toBe(1);
    expect(exitCodeFor(first)).toBe(EXIT.quarantined);

    const [entry, ...others] = await openEntries();
    expect(others).toEqual([]);
    expect(entry).toMatchObject({ record_key: String(PROPERTY), property_id: PROPERTY, page: 1 });
    expect(entry.reason).toMatch(/^field units\.unit\[0\]\.unitSpaces\.unitSpace\[0\]\.rent: .* is not /);
    const units = (entry.raw as { units: { unit: { id: string }[] } }).units.unit;
    listed = units.map((unit) => Number(unit.id));
    badUnit = listed[0];
    expect(entry.reason).toContain(`unit ${badUnit} left out`);

    expect(listed.length).toBeGreaterThan(1);
    const stored = await unitsOf(PROPERTY);
    expect([...stored.keys()].sort()).toEqual(listed.filter((id) => id !== badUnit).sort());
    expect([...stored.values()].every((deleted) => !deleted)).toBe(true);
    const inventory = await h.warehouse.db
      .selectFrom('unit_inventories')
      .select(['unit_count'])
      .where('property_id', '=', PROPERTY)
      .executeTakeFirstOrThrow();
    expect(inventory.unit_count).toBe(listed.length);

    const warning = h.logs.find((line) => line.event === 'record_quarantined');
    expect(String(warning?.msg)).toMatch(
      new RegExp(`^unit inventory ${PROPERTY} of property ${PROPERTY} on page 1 of \\S+ quarantined: field `),
    );
  });

  it('is quarantined again by the next run, which leaves the entry open and counts it', async () => {
    const again = await syncUnits();
    expect(again.quarantined).toBe(1);
    const open = await openEntries();
    expect(open.length).toBeGreaterThanOrEqual(1);
    expect(open.every((entry) => entry.record_key === String(PROPERTY))).toBe(true);
  });

  it('loads once the source sends it clean, resolving its entries', async () => {
    h.sim.setFaults(undefined);
    const clean = await syncUnits();
    expect(clean).toMatchObject({ status: 'succeeded', quarantined: 0 });
    expect(await openEntries()).toEqual([]);
    const stored = await unitsOf(PROPERTY);
    expect([...stored.keys()].sort()).toEqual([...listed].sort());
    expect([...stored.values()].every((deleted) => !deleted)).toBe(true);
  });

  it('that loaded before stays as it stood, not deleted, while its property’s other units are kept too', async () => {
    const before = await h.warehouse.db
      .selectFrom('unit_spaces')
      .select(['unit_space_id', 'rent', 'deleted_at'])
      .where('unit_id', '=', badUnit)
      .execute();
    expect(before.length).toBeGreaterThan(0);
    h.sim.setFaults(BAD);
    const bad = await syncUnits();
    expect(bad.quarantined).toBe(1);
    expect(await unitsOf(PROPERTY)).toEqual(new Map(listed.map((id) => [id, false])));
    const after = await h.warehouse.db
      .selectFrom('unit_spaces')
      .select(['unit_space_id', 'rent', 'deleted_at'])
      .where('unit_id', '=', badUnit)
      .execute();
    expect(after).toEqual(before);
  });
});

// The damages a column refuses rather than a reader (NUL in text, an id past bigint, year 0) are
// the unit's too, found by the checks of the unit's own rows; and the same in XML.
describe.each([
  ['nul', 'units.unit[0].unitNumber', 'json'],
  ['bigid', 'units.unit[0].floorplanId', 'json'],
  ['year0', 'units.unit[0].unitSpaces.unitSpace[0].availableDate', 'json'],
  ['money', 'units.unit[0].unitSpaces.unitSpace[0].rent', 'xml'],
] as const)('a unit damaged by %s, in %s', (kind, field, format) => {
  let damaged: SyncHarness;
  beforeAll(async () => {
    damaged = await startSyncHarness({
      scale: 'small',
      seed: 5,
      today: '2026-06-15',
      faults: `badrecord:method=getPropertyUnits:ids=${PROPERTY}:kind=${kind}`,
    });
  });
  afterAll(async () => {
    await damaged?.close();
  });

  it('alone goes to quarantine, naming its field', async () => {
    const run = await damaged.sync({ streams: ['units'] }, { format });
    expect(run.quarantined).toBe(1);
    const [entry] = await damaged.warehouse.db.selectFrom('quarantine').selectAll().execute();
    expect(entry.reason).toContain(field);
    expect(entry.reason).toMatch(/\(unit \d+ left out; the rest of the record loaded\)$/);
    const listed = (entry.raw as { units: { unit: { id: string }[] } }).units.unit.map((unit) =>
      Number(unit.id),
    );
    const stored = await damaged.warehouse.db
      .selectFrom('units')
      .select('unit_id')
      .where('property_id', '=', PROPERTY)
      .execute();
    expect(stored.map((row) => Number(row.unit_id)).sort()).toEqual(listed.slice(1).sort());
  });
});
