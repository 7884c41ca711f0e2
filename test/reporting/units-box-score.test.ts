/**
 * The unit inventory's reporting (issue 37) over real HTTP and Postgres: two accounts, each
 * synced whole from its own simulator; box_score's occupied, vacant and notice counts equal a hand
 * count over each simulator's own truth; units lists every space with its lease; occupancy_monthly
 * takes its denominator from the inventory for the month the inventory covers; and a reader of one
 * account sees none of the other's units, in the views and in the base tables.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPropsync } from '../../src/app/propsync.js';
import { configSchemaFor } from '../../src/config/schema.js';
import { createLogger } from '../../src/log/logger.js';
import { grantReader } from '../../src/reporting/reader-role.js';
import { expectedInventory } from '../../src/simulator/data/index.js';
import { startSimulator, type AdvanceSummary, type Simulator } from '../../src/simulator/index.js';
import { connect } from '../../src/warehouse/db.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const TODAY = '2026-06-15';
const PASSWORD = 'units-report-pw';
let north: Simulator<AdvanceSummary>;
let south: Simulator<AdvanceSummary>;
let database: TestDatabase;

beforeAll(async () => {
  const options = {
    username: 'u',
    password: PASSWORD,
    rateLimit: 'off',
    scale: 'small',
    today: TODAY,
  } as const;
  [north, south] = await Promise.all([
    startSimulator({ ...options, seed: 14 }),
    startSimulator({ ...options, seed: 4 }),
  ]);
  database = await createTestDatabase();
  const source = (sim: Simulator<AdvanceSummary>) => ({
    url: sim.url,
    auth: { type: 'basic', username: 'u', passwordEnv: 'UNITS_PW' },
  });
  const config = configSchemaFor({ UNITS_PW: PASSWORD }).parse({
    database: { url: database.url },
    source: { maxClockSkewHours: 0, pageSize: 200 },
    accounts: [
      { id: 'north', source: source(north) },
      { id: 'south', source: source(south) },
    ],
    logLevel: 'silent',
  });
  const logger = createLogger({
    level: 'silent',
    destination: new Writable({ write: (_c, _e, done) => done() }),
  });
  const propsync = await openPropsync(config, { logger });
  try {
    const runs = await propsync.run({ kind: 'sync' });
    expect(runs.map((run) => [run.account, run.exitCode])).toEqual([
      ['north', 0],
      ['south', 0],
    ]);
  } finally {
    await propsync.close();
  }
}, 300_000);
afterAll(async () => {
  await Promise.all([north?.close(), south?.close()]);
  await database?.drop();
});

/** Per property, counted by hand over the simulator's truth: homes' spaces by state. */
function handCount(sim: Simulator<AdvanceSummary>) {
  return expectedInventory(sim.dataset).map((property) => {
    const homes = property.spaces.filter((space) => !space.otherIncome);
    const count = (state: string) => homes.filter((space) => space.state === state).length;
    return {
      property_id: property.propertyId,
      total_units: homes.length,
      occupied: count('occupied') + count('notice'),
      on_notice: count('notice'),
      vacant: count('vacant'),
    };
  });
}

describe('reporting.box_score and reporting.units', () => {
  it("count occupied, vacant and notice as the simulator's truth does, per account and property", async () => {
    for (const [account, sim] of [
      ['north', north],
      ['south', south],
    ] as const) {
      const { rows } = await sql<Record<string, number>>`
        select property_id, total_units, occupied, on_notice, vacant
          from reporting.box_score where account_id = ${account} order by property_id`.execute(database.db);
      expect(rows, account).toEqual(handCount(sim));
    }
    const { rows } = await sql<{ as_of_date: string; leased_percent: string; avg_market_rent: string }>`
      select as_of_date::text, leased_percent::text, avg_market_rent::text from reporting.box_score`.execute(
      database.db,
    );
    for (const row of rows) {
      expect(row.as_of_date).toBe(TODAY);
      expect(Number(row.leased_percent)).toBeGreaterThan(50);
      expect(row.avg_market_rent).toMatch(/^\d+\.\d{2}$/);
    }
  });

  it('list every space with its status and the current lease that holds it', async () => {
    const truth = expectedInventory(north.dataset).flatMap((property) => property.spaces);
    const { rows } = await sql<{
      unit_space_id: number;
      status_category: string;
      current_lease_id: number | null;
    }>`
      select unit_space_id, status_category, current_lease_id, lease_rent
        from reporting.units where account_id = 'north' order by unit_space_id`.execute(database.db);
    expect(rows.map((row) => row.unit_space_id)).toEqual(
      truth.map((space) => space.unitSpaceId).sort((a, b) => a - b),
    );
    const byId = new Map(rows.map((row) => [row.unit_space_id, row]));
    for (const space of truth) {
      const held = space.state === 'occupied' || space.state === 'notice';
      expect(byId.get(space.unitSpaceId)!.current_lease_id !== null, `space ${space.unitSpaceId}`).toBe(held);
    }
  });

  it('give occupancy_monthly its denominator from the inventory where it covers the month, and say so', async () => {
    const { rows } = await sql<{ units_source: string; units_known: number; property_id: number }>`
      select distinct on (property_id) property_id, units_source, units_known
        from reporting.occupancy_monthly where account_id = 'north'
       order by property_id, month desc`.execute(database.db);
    const units = new Map(
      expectedInventory(north.dataset).map((property) => [
        property.propertyId,
        new Set(property.spaces.filter((space) => !space.otherIncome).map((space) => space.unitId)).size,
      ]),
    );
    for (const row of rows) {
      expect(row.units_source).toBe('inventory');
      expect(row.units_known).toBe(units.get(row.property_id));
    }
    const older = await sql<{ sources: string[] }>`
      select array_agg(distinct units_source) as sources from reporting.occupancy_monthly
       where account_id = 'north' and month < date '2026-06-01'`.execute(database.db);
    expect(older.rows[0].sources).toEqual(['leases']);
  });

  it("let a reader of one account see none of the other's units, in the views and the base tables", async () => {
    const role = `units_reader_${randomBytes(4).toString('hex')}`;
    const password = randomBytes(12).toString('hex');
    await grantReader(database.db, { role, login: true, password, baseTables: true, accounts: ['north'] });
    const url = new URL(database.url);
    url.username = role;
    url.password = password;
    const reader = connect(url.href, { maxConnections: 1 });
    try {
      for (const relation of [
        'reporting.units',
        'reporting.box_score',
        'public.unit_inventories',
        'public.units',
        'public.unit_spaces',
        'public.unit_space_status_history',
      ]) {
        const { rows } = await sql<{ account_id: string; n: number }>`
          select account_id, count(*)::int as n from ${sql.raw(relation)} group by account_id`.execute(
          reader,
        );
        expect(
          rows.map((row) => row.account_id),
          relation,
        ).toEqual(['north']);
        expect(rows[0].n, relation).toBeGreaterThan(0);
      }
    } finally {
      await reader.destroy();
      await sql`drop owned by ${sql.id(role)}`.execute(database.db);
      await sql`drop role ${sql.id(role)}`.execute(database.db);
    }
  });
});
