import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema, type Config } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log/logger.js';
import { advanceDataset, generateDataset } from '../../../src/simulator/data/index.js';
import { startSimulatorWith, type Simulator } from '../../../src/simulator/index.js';
import { createSourceClient } from '../../../src/source/client.js';
import { runSync } from '../../../src/sync/engine.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';

// The properties stream against the simulator: one row per listed property, and a property the
// source stops listing marked deleted. The data engine is the simulator's own, except that
// `advance` also takes the property `hidden` out of the listing.

let hidden: number | undefined;
let sim: Simulator;
let warehouse: TestDatabase;
let config: Config;

beforeAll(async () => {
  sim = await startSimulatorWith(
    {
      port: 0,
      scale: 'small',
      seed: 11,
      today: '2026-06-15',
      username: 'u',
      password: 'properties-pw',
      rateLimit: 'off',
    },
    {
      generate: generateDataset,
      advance: (dataset, days) => {
        const summary = advanceDataset(dataset, days);
        if (hidden !== undefined)
          dataset.properties = dataset.properties.filter((property) => property.PropertyID !== hidden);
        return summary;
      },
    },
  );
  warehouse = await createTestDatabase();
  config = configSchema.parse({
    database: { url: warehouse.url },
    source: { url: sim.url, username: 'u', password: 'properties-pw', maxClockSkewHours: 0 },
    logLevel: 'silent',
  });
});
afterAll(async () => {
  await sim?.close();
  await warehouse?.drop();
});

async function syncProperties() {
  const logger = createLogger({
    level: 'silent',
    destination: new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
  const client = createSourceClient({
    settings: config.accounts[0].source,
    timeZone: config.timeZone,
    logger,
  });
  try {
    return await runSync(
      { kind: 'sync', streams: ['properties'] },
      { db: warehouse.db, client, config, account: config.accounts[0], logger },
    );
  } finally {
    await client.close();
  }
}

async function stored() {
  return warehouse.db
    .selectFrom('properties')
    .select(['property_id', 'marketing_name', 'city', 'deleted_at'])
    .orderBy('property_id')
    .execute();
}

describe('properties stream, synced from the simulator', () => {
  it('loads one row per property the source lists, with its name and address', async () => {
    const summary = await syncProperties();
    expect(summary.status).toBe('succeeded');
    const rows = await stored();
    const listed = sim.dataset.properties;
    expect(rows.map((row) => Number(row.property_id))).toEqual(
      listed.map((property) => property.PropertyID).sort((a, b) => a - b),
    );
    for (const property of listed) {
      const row = rows.find((candidate) => Number(candidate.property_id) === property.PropertyID)!;
      expect(row).toMatchObject({
        marketing_name: property.MarketingName,
        city: property.Address.City,
        deleted_at: null,
      });
    }
  });

  it('marks deleted a property the source stops listing, and keeps the others', async () => {
    hidden = sim.dataset.properties[1].PropertyID;
    sim.advance(0);
    expect(sim.dataset.properties.some((property) => property.PropertyID === hidden)).toBe(false);
    await syncProperties();
    const rows = await stored();
    expect(rows.filter((row) => row.deleted_at !== null).map((row) => Number(row.property_id))).toEqual([
      hidden,
    ]);
    expect(rows.filter((row) => row.deleted_at === null)).toHaveLength(sim.dataset.properties.length);
    const { rows: counts } = await sql<{ n: number }>`select count(*)::int as n from properties`.execute(
      warehouse.db,
    );
    expect(counts[0].n).toBe(sim.dataset.properties.length + 1);
  });
});
