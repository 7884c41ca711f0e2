import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema, type Config } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log/logger.js';
import {
  advanceDataset,
  expectedInventory,
  generateDataset,
  UNKNOWN_STATUS,
  type SpaceTruth,
} from '../../../src/simulator/data/index.js';
import { centsToString } from '../../../src/simulator/data/money.js';
import { startSimulatorWith, type Simulator } from '../../../src/simulator/index.js';
import { createSourceClient } from '../../../src/source/client.js';
import { runSync } from '../../../src/sync/engine.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';

// The units stream against the simulator over HTTP: after a full sync and after each sync of a
// simulated month of move-ins, move-outs, make-ready, down units, a new building and a unit the
// source stops listing, the warehouse holds what the source lists, space by space, and the status
// history holds every state each sync saw, with the days it held. The data engine is the
// simulator's own, except that `advance` also takes the unit `removed` out of its property.

/** A seed whose month holds a status no client knows, down units, and a building that opens. */
const SEED = 14;
let removed: string | undefined;
let sim: Simulator;
let warehouse: TestDatabase;
let config: Config;
const lines: string[] = [];

beforeAll(async () => {
  sim = await startSimulatorWith(
    {
      port: 0,
      scale: 'small',
      seed: SEED,
      today: '2026-06-15',
      username: 'u',
      password: 'units-pw',
      rateLimit: 'off',
    },
    {
      generate: generateDataset,
      advance: (dataset, days) => {
        const summary = advanceDataset(dataset, days);
        if (removed !== undefined)
          for (const property of dataset.properties)
            for (const building of property._buildings)
              building.units = building.units.filter((unit) => unit.unitId !== removed);
        return summary;
      },
    },
  );
  warehouse = await createTestDatabase();
  config = configSchema.parse({
    database: { url: warehouse.url },
    source: { url: sim.url, username: 'u', password: 'units-pw', maxClockSkewHours: 0 },
    logLevel: 'silent',
  });
});
afterAll(async () => {
  await sim?.close();
  await warehouse?.drop();
});

async function syncUnits() {
  const logger = createLogger({
    level: 'warn',
    destination: new Writable({
      write: (chunk, _encoding, done) => {
        lines.push(String(chunk));
        done();
      },
    }),
  });
  const client = createSourceClient({
    settings: config.accounts[0].source,
    timeZone: config.timeZone,
    logger,
  });
  try {
    return await runSync(
      { kind: 'sync', streams: ['units'] },
      { db: warehouse.db, client, config, account: config.accounts[0], logger },
    );
  } finally {
    await client.close();
  }
}

/** The source's spaces (every unit: the stream asks for disabled ones too), by space id. */
function truthSpaces(): Map<number, SpaceTruth> {
  return new Map(
    expectedInventory(sim.dataset)
      .flatMap((property) => property.spaces)
      .map((space) => [space.unitSpaceId, space]),
  );
}

async function liveSpaces() {
  return warehouse.db
    .selectFrom('unit_spaces')
    .select(['unit_space_id', 'unit_id', 'property_id', 'availability_status', 'status_category', 'rent'])
    .select(['is_other_income'])
    .where('deleted_at', 'is', null)
    .orderBy('unit_space_id')
    .execute();
}

/** The warehouse's live units and spaces against the source's. */
async function expectWarehouseEqualsSource(): Promise<void> {
  const truth = truthSpaces();
  const spaces = await liveSpaces();
  expect(spaces.map((space) => space.unit_space_id)).toEqual([...truth.keys()].sort((a, b) => a - b));
  for (const space of spaces) {
    const want = truth.get(space.unit_space_id)!;
    expect(
      {
        unit: space.unit_id,
        property: space.property_id,
        status: space.availability_status,
        rent: space.rent,
        otherIncome: space.is_other_income,
      },
      `space ${space.unit_space_id}`,
    ).toEqual({
      unit: Number(want.unitId),
      property: want.propertyId,
      status: want.status,
      rent: centsToString(want.rentCents),
      otherIncome: want.otherIncome,
    });
    if (want.status === UNKNOWN_STATUS) expect(space.status_category).toBe('other');
  }
  const units = await warehouse.db
    .selectFrom('units')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  const inventory = expectedInventory(sim.dataset);
  expect(Number(units.n)).toBe(inventory.reduce((sum, property) => sum + property.units, 0));
}

/** Each space's state at each sync, for the history it must have left. */
const seen: { day: string; spaces: Map<number, SpaceTruth> }[] = [];

/** The history rows the syncs so far must have written: a row per run of equal states, by space. */
function expectedHistory() {
  const rows: { space: number; status: string; rent: string; from: string; to: string | null }[] = [];
  const ids = new Set(seen.flatMap((sync) => [...sync.spaces.keys()]));
  for (const id of ids) {
    let open: (typeof rows)[number] | undefined;
    for (const sync of seen) {
      const state = sync.spaces.get(id);
      const rent = state ? centsToString(state.rentCents) : '';
      if (open && (!state || state.status !== open.status || rent !== open.rent)) {
        open.to = sync.day;
        open = undefined;
      }
      if (state && !open) {
        open = { space: id, status: state.status, rent, from: sync.day, to: null };
        rows.push(open);
      }
    }
  }
  const order = (a: (typeof rows)[number], b: (typeof rows)[number]) =>
    a.space - b.space || a.from.localeCompare(b.from);
  return rows.sort(order);
}

async function storedHistory() {
  const rows = await warehouse.db
    .selectFrom('unit_space_status_history')
    .select(['unit_space_id', 'availability_status', 'rent', 'valid_from', 'valid_to'])
    .orderBy('unit_space_id')
    .orderBy('valid_from')
    .orderBy('history_id')
    .execute();
  return rows.map((row) => ({
    space: row.unit_space_id,
    status: row.availability_status,
    rent: row.rent,
    from: row.valid_from,
    to: row.valid_to,
  }));
}

async function syncAndRecord(): Promise<void> {
  const result = await syncUnits();
  expect(result.status).toBe('succeeded');
  seen.push({ day: sim.dataset.today, spaces: truthSpaces() });
}

describe('the units stream', () => {
  it('holds every unit and space the source lists after a full sync, with a first history row each', async () => {
    await syncAndRecord();
    await expectWarehouseEqualsSource();
    expect(await storedHistory()).toEqual(expectedHistory());
  });

  it('keeps a status no client knows, as category other, and says so in the log', () => {
    const unknown = [...seen[0].spaces.values()].filter((space) => space.status === UNKNOWN_STATUS);
    expect(unknown.length).toBeGreaterThan(0);
    const noted = lines.filter((line) => line.includes('"record_noted"'));
    for (const space of unknown)
      expect(noted.some((line) => line.includes(`unit space ${space.unitSpaceId} `))).toBe(true);
    expect(lines.some((line) => line.includes('record_quarantined'))).toBe(false);
  });

  it('follows a simulated month (move-ins and outs, make-ready, down units, a new building, rents) sync by sync', async () => {
    for (let step = 0; step < 3; step++) {
      sim.advance(10);
      if (step === 1) {
        const property = sim.dataset.properties[0];
        removed = property._buildings.at(-1)!.units.at(-1)!.unitId;
        sim.advance(0);
      }
      await syncAndRecord();
      await expectWarehouseEqualsSource();
    }
    const history = await storedHistory();
    expect(history).toEqual(expectedHistory());
    // The month changed statuses and rents, closed rows, and opened the new building's spaces.
    expect(history.filter((row) => row.to !== null).length).toBeGreaterThan(10);
    const firstDay = seen[0].day;
    expect(history.some((row) => row.from > firstDay && !seen[0].spaces.has(row.space))).toBe(true);
  });

  it('marks a unit the source stops listing deleted, with its space, and closes its history', async () => {
    const unit = await warehouse.db
      .selectFrom('units')
      .select(['deleted_at'])
      .where('unit_id', '=', Number(removed))
      .executeTakeFirstOrThrow();
    expect(unit.deleted_at).not.toBeNull();
    const space = await warehouse.db
      .selectFrom('unit_spaces')
      .select(['unit_space_id', 'deleted_at'])
      .where('unit_id', '=', Number(removed))
      .executeTakeFirstOrThrow();
    expect(space.deleted_at).not.toBeNull();
    const open = await warehouse.db
      .selectFrom('unit_space_status_history')
      .select('history_id')
      .where('unit_space_id', '=', space.unit_space_id)
      .where('valid_to', 'is', null)
      .execute();
    expect(open).toEqual([]);
  });

  it('changes nothing when synced again on the same day', async () => {
    const before = await storedHistory();
    await syncUnits();
    expect(await storedHistory()).toEqual(before);
    await expectWarehouseEqualsSource();
  });
});
