import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';

// One call in flight at a time: while a lane's page waits on the warehouse, another lane's call
// still goes out (the calls are not idle while the warehouse works), and never two calls at once.
let h: SyncHarness;
let proxy: Server;
/** Requests the proxy in front of the simulator holds at once, and the most it held. */
let inFlight = 0;
let mostInFlight = 0;
beforeAll(async () => {
  h = await startSyncHarness({ scale: 'small', seed: 14, source: { concurrency: 1 } });
  const target = new URL(h.sim.url);
  proxy = createServer((incoming, outgoing) => {
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    const forward = request(
      {
        host: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (reply) => {
        outgoing.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(outgoing);
        reply.on('end', () => (inFlight -= 1));
      },
    );
    incoming.pipe(forward);
  });
  await new Promise<void>((listening) => proxy.listen(0, '127.0.0.1', listening));
  h.config.accounts[0].source.url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((closed) => proxy?.close(closed));
  await h?.close();
});

const leaseCalls = () =>
  Object.values(h.sim.stats().calls.getLeases ?? {}).reduce((sum, count) => sum + count, 0);

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
    expect(mostInFlight).toBe(1);
    const expected = expectedTotals(h.sim.dataset);
    const actual = await warehouseTotals(h.warehouse.db, expected);
    for (const table of ['leases', 'ar_transactions']) expect(actual[table], table).toEqual(expected[table]);
  } finally {
    if (!released) await blocker.query('rollback').catch(() => {});
    await blocker.end();
  }
});
