import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';

// One call in flight at a time: while a lane's page waits on the warehouse, another lane's call
// still goes out (the calls are not idle while the warehouse works), and never two calls at once.
let h: SyncHarness;
beforeAll(async () => {
  h = await startSyncHarness({ scale: 'small', seed: 14, source: { concurrency: 1 } });
});
afterAll(async () => {
  await h?.close();
});

const leaseCalls = () => Object.values(h.sim.stats().calls.getLeases ?? {}).reduce((sum, count) => sum + count, 0);

async function waitFor(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

it('a second lane calls the source while the first lane waits to load its page, with one call in flight at most', async () => {
  const blocker = new pg.Client({ connectionString: h.warehouse.url });
  await blocker.connect();
  let released = false;
  try {
    // Nothing can be written to leases until the blocker lets go: every leases page waits in its load.
    await blocker.query('begin');
    await blocker.query('lock table public.leases in share mode');
    const run = h.sync({ streams: ['leases'] });
    await waitFor(() => leaseCalls() >= 2, 'a second getLeases call while the first page cannot load');
    // Both lanes now wait on the lock: no third call until one of them has loaded.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(leaseCalls()).toBe(2);
    await blocker.query('commit');
    released = true;
    const summary = await run;
    expect(summary.status).toBe('succeeded');
    // Each call's span, from its log line (its end) and duration: none overlaps another.
    const spans = h.logs
      .filter((line) => line.event === 'source.call')
      .map((line) => ({ end: Date.parse(line.time as string), start: Date.parse(line.time as string) - (line.ms as number) }))
      .sort((a, b) => a.start - b.start);
    expect(spans.length).toBeGreaterThan(3);
    for (let i = 1; i < spans.length; i++) expect(spans[i].start, `call ${i} began before call ${i - 1} ended`).toBeGreaterThanOrEqual(spans[i - 1].end - 2);
    const expected = expectedTotals(h.sim.dataset);
    const actual = await warehouseTotals(h.warehouse.db, expected);
    for (const table of ['leases', 'ar_transactions']) expect(actual[table], table).toEqual(expected[table]);
  } finally {
    if (!released) await blocker.query('rollback').catch(() => {});
    await blocker.end();
  }
});
