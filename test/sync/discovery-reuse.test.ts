/**
 * A run's discovery listing (getProperties) is the very listing its properties stream reads
 * whole: the stream loads the replies discovery got, and the run calls getProperties once a page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSourceClient } from '../../src/source/client.js';
import { KeptReplies, KEPT_FOR_MS } from '../../src/source/kept-replies.js';
import { GET_PROPERTIES } from '../../src/streams/properties/manifest.js';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';

let h: SyncHarness;
beforeAll(async () => {
  h = await startSyncHarness({ scale: 'medium', seed: 5, today: '2026-04-20' });
});
afterAll(async () => {
  await h?.close();
});

/** getProperties calls the simulator has answered so far. */
const propertyCalls = () => Object.values(h.sim.stats().calls.getProperties ?? {}).reduce((a, b) => a + b, 0);

/** The properties of the warehouse, as the source lists them: id, name, disabled. */
async function warehouseProperties() {
  const rows = await h.warehouse.db
    .selectFrom('properties')
    .select(['property_id', 'marketing_name', 'is_disabled'])
    .where('deleted_at', 'is', null)
    .orderBy('property_id')
    .execute();
  return rows.map((row) => [Number(row.property_id), row.marketing_name, row.is_disabled]);
}

const sourceProperties = () =>
  [...h.sim.dataset.properties]
    .sort((a, b) => a.PropertyID - b.PropertyID)
    .map((property) => [property.PropertyID, property.MarketingName, property.IsDisabled === 1]);

describe("the properties stream reads discovery's replies", () => {
  it('calls getProperties once a page per run, and loads every property the source lists (JSON, then XML)', async () => {
    const pages = Math.ceil(h.sim.dataset.properties.length / 5);
    expect(pages).toBeGreaterThan(1);
    for (const day of [0, 1]) {
      if (day) h.sim.advance(1);
      const before = propertyCalls();
      const total = h.sim.stats().total;
      const summary = await h.sync(
        { streams: ['properties'] },
        { pageSize: 5, format: day ? 'xml' : 'json' },
      );
      expect(summary.status, summary.errors.join('\n')).toBe('succeeded');
      expect(propertyCalls() - before).toBe(pages);
      expect(await warehouseProperties()).toEqual(sourceProperties());
      const unit = await h.warehouse.db
        .selectFrom('sync_work_units')
        .select(['calls', 'pages', 'records', 'status'])
        .where('run_id', '=', summary.runId)
        .where('stream', '=', 'properties')
        .executeTakeFirstOrThrow();
      expect(unit).toMatchObject({ calls: 0, pages, status: 'done' });
      expect(unit.records).toBe(h.sim.dataset.properties.length);
      // The run counts the calls the source answered, no more.
      expect(summary.calls).toBe(h.sim.stats().total - total);
    }
  });

  it('calls again for a reply kept longer than a run plans in', async () => {
    const [account] = h.config.accounts;
    let now = Date.now();
    const client = createSourceClient({
      settings: account.source,
      timeZone: account.timeZone,
      now: () => now,
    });
    try {
      const request = { method: GET_PROPERTIES, params: {} };
      const read = async (options: { keep?: boolean; reuse?: boolean }) => {
        const calls: number[] = [];
        for await (const page of client.pages(request, options)) calls.push(page.calls);
        return calls;
      };
      const before = propertyCalls();
      await read({ keep: true });
      expect(await read({ reuse: true })).toEqual([0]);
      // Taken once: the next reader calls.
      expect(await read({ reuse: true })).toEqual([1]);
      await read({ keep: true });
      now += KEPT_FOR_MS + 1;
      expect(await read({ reuse: true })).toEqual([1]);
      expect(propertyCalls() - before).toBe(4);
    } finally {
      await client.close();
    }
  });
});

describe('KeptReplies', () => {
  it('gives a reply once, and none past its time', () => {
    let now = 0;
    const kept = new KeptReplies(() => now);
    const reply = { status: 200, headers: {}, body: Buffer.from('{}'), requestId: 'r-1' };
    kept.put('a', reply);
    kept.put('b', reply);
    expect(kept.take('a')).toBe(reply);
    expect(kept.take('a')).toBeUndefined();
    now = KEPT_FOR_MS + 1;
    expect(kept.take('b')).toBeUndefined();
  });
});
