import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { createSourceClient } from '../../src/source/client.js';
import { latestCursorDay } from '../../src/sync/plan-run.js';
import { verifyAccount, type AccountVerification } from '../../src/sync/verify-account.js';
import type { SimLease } from '../../src/simulator/data/model.js';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';

/** What the proxy may change: the page asked for, and the reply's headers and body. */
interface Rewrite {
  pageNo?(area: string, pageNo: number): number;
  reply?(
    area: string,
    pageNo: number,
    reply: { status: number; headers: IncomingHttpHeaders; body: string },
  ): { status: number; headers: IncomingHttpHeaders; body: string };
}

/** A proxy in front of the simulator whose behaviour each test sets (`proxy.rewrite`). */
async function startRewritingProxy(
  target: string,
): Promise<{ url: string; rewrite: Rewrite; close(): Promise<void> }> {
  const upstream = new URL(target);
  const state = { rewrite: {} as Rewrite };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const area = url.pathname.split('/').pop() ?? '';
    const pageNo = Number(url.searchParams.get('page_no') ?? 1);
    const asked = state.rewrite.pageNo?.(area, pageNo) ?? pageNo;
    url.searchParams.set('page_no', String(asked));
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: `${url.pathname}${url.search}`,
        method: req.method,
        headers: req.headers,
      },
      (reply) => {
        const chunks: Buffer[] = [];
        reply.on('data', (chunk: Buffer) => chunks.push(chunk));
        reply.on('end', () => {
          const original = {
            status: reply.statusCode ?? 500,
            headers: { ...reply.headers },
            body: Buffer.concat(chunks).toString('utf8'),
          };
          const out = state.rewrite.reply?.(area, pageNo, original) ?? original;
          const body = Buffer.from(out.body, 'utf8');
          const headers = { ...out.headers, 'content-length': String(body.length) };
          delete headers['transfer-encoding'];
          res.writeHead(out.status, headers);
          res.end(body);
        });
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get rewrite() {
      return state.rewrite;
    },
    set rewrite(value: Rewrite) {
      state.rewrite = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A reply whose announced total (header and body) is `total(real)`. */
function withTotal(total: (real: number) => number) {
  return (
    area: string,
    _pageNo: number,
    reply: { status: number; headers: IncomingHttpHeaders; body: string },
  ) => {
    if (area !== 'leases' || reply.headers['x-total-count'] === undefined) return reply;
    const lie = total(Number(reply.headers['x-total-count']));
    return {
      ...reply,
      headers: { ...reply.headers, 'x-total-count': String(lie) },
      body: reply.body.replace(/"totalCount":\s*"?\d+"?/g, `"totalCount":${lie}`),
    };
  };
}

const PAGE = 5;
let h: SyncHarness;
let proxy: Awaited<ReturnType<typeof startRewritingProxy>>;
beforeAll(async () => {
  h = await startSyncHarness({
    scale: 'small',
    seed: 61,
    today: '2026-05-04',
    source: { retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10, maxTotalWaitMs: 1_000 } },
  });
  proxy = await startRewritingProxy(h.sim.url);
  // The client reads the account's source: point the account at the proxy.
  h.config.accounts[0].source.url = proxy.url;
  expect((await h.sync({ streams: ['leases'] }, { pageSize: PAGE })).status).toBe('succeeded');
});
afterAll(async () => {
  await proxy?.close();
  await h?.close();
});

const deletedLeases = async () =>
  Number(
    (
      await sql<{ n: string }>`select count(*) as n from leases where deleted_at is not null`.execute(
        h.warehouse.db,
      )
    ).rows[0].n,
  );
const seenRows = async (propertyId: string) =>
  Number(
    (
      await sql<{
        n: string;
      }>`select count(*) as n from sync_work_unit_seen s join sync_work_units u using (work_unit_id) where ${Number(propertyId)} = any(u.property_ids)`.execute(
        h.warehouse.db,
      )
    ).rows[0].n,
  );

it('deletes nothing and fails the unit when X-Total-Count is short, zero or growing', async () => {
  const before = await deletedLeases();
  let calls = 0;
  const lies: Record<string, (real: number) => number> = {
    short: (real) => Math.max(real - 3, 1),
    zero: () => 0,
    growing: (real) => real + ++calls,
  };
  for (const [name, lie] of Object.entries(lies)) {
    proxy.rewrite = { reply: withTotal(lie) };
    const summary = await h.sync({ streams: ['leases'], full: true }, { pageSize: PAGE });
    // A property whose lie happens to be its true total completes; every other one fails.
    expect(summary.status, name).not.toBe('succeeded');
    expect(summary.workUnits.failed, name).toBeGreaterThan(0);
    expect(summary.errors.join('\n'), name).toMatch(/not complete, so nothing was deleted/);
    expect(await deletedLeases(), name).toBe(before);
  }
  proxy.rewrite = {};
});

it('deletes nothing and fails the unit when the source sends the same page again and again', async () => {
  const before = await deletedLeases();
  proxy.rewrite = { pageNo: (area, pageNo) => (area === 'leases' ? 1 : pageNo) };
  const summary = await h.sync({ streams: ['leases'], full: true }, { pageSize: PAGE });
  proxy.rewrite = {};
  expect(summary.status).toBe('failed');
  expect(summary.errors.join('\n')).toMatch(/page \d+ repeats the keys of page \d+/);
  expect(await deletedLeases()).toBe(before);
});

it('moves no cursor past the local tomorrow when the source says it is year 2100', async () => {
  proxy.rewrite = {
    reply: (_area, _pageNo, reply) => ({
      ...reply,
      headers: { ...reply.headers, date: 'Fri, 01 Jan 2100 12:00:00 GMT' },
    }),
  };
  const summary = await h.sync({ streams: ['leases'] }, { pageSize: PAGE });
  proxy.rewrite = {};
  const tomorrow = latestCursorDay(h.config.timeZone);
  // Every unit done, but the days after tomorrow knowingly left unread (issue 36): incomplete, saying so.
  expect(summary.status).toBe('incomplete');
  expect(summary.workUnits.failed).toBe(0);
  expect(summary.unread).toEqual([
    expect.stringContaining(`its today 2100-01-01 is past the local tomorrow ${tomorrow}`),
  ]);
  const { rows } = await sql<{
    value: string | null;
    next_due: string | null;
  }>`select value::text, state->>'nextDue' as next_due from sync_cursors`.execute(h.warehouse.db);
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    expect(row.value! <= tomorrow, `cursor ${row.value}`).toBe(true);
    // A next-refresh day comes from the planning day, itself never past tomorrow: not from year 2100.
    if (row.next_due) expect(row.next_due < '2100-01-01').toBe(true);
  }
});

it('reads a resumed listing again from page 1 when its total changed, and leaves no seen keys behind', async () => {
  const propertyId = h.sim.dataset.leases[0].propertyId;
  // The first attempt fails on page 3 of that property's full listing, after checkpointing page 2.
  proxy.rewrite = {
    reply: (area, pageNo, reply) =>
      area === 'leases' && pageNo === 3 && reply.body.includes(`"${propertyId}"`)
        ? { ...reply, status: 500, body: '{"error":"boom"}' }
        : reply,
  };
  const failed = await h.sync(
    { streams: ['leases'], full: true, propertyIds: [propertyId] },
    { pageSize: PAGE },
  );
  proxy.rewrite = {};
  expect(failed.status).toBe('failed');
  const checkpoint = await h.warehouse.db
    .selectFrom('sync_work_units')
    .select(['next_page', 'listing_total'])
    .where('run_id', '=', failed.runId)
    .executeTakeFirstOrThrow();
  expect(checkpoint.next_page).toBe(3);
  expect(checkpoint.listing_total).toBeGreaterThan(2 * PAGE);

  // Meanwhile the property gets a new lease: the listing's total changes.
  const template = h.sim.dataset.leases.find((lease) => lease.propertyId === propertyId)!;
  const newId = Math.max(...h.sim.dataset.leases.map((lease) => lease._id)) + 1;
  const fresh: SimLease = {
    ...structuredClone(template),
    id: String(newId),
    _id: newId,
    arTransactions: undefined,
    scheduledCharges: undefined,
    leaseIntervals: { leaseInterval: [] },
    leaseHistory: undefined,
  };
  h.sim.dataset.leases.push(fresh);
  h.sim.advance(0);

  const logsBefore = h.logs.length;
  const resumed = await h.sync(
    { streams: ['leases'], full: true, propertyIds: [propertyId] },
    { pageSize: PAGE },
  );
  expect(resumed.status).toBe('succeeded');
  const logs = h.logs.slice(logsBefore);
  expect(logs.some((line) => line.event === 'work_unit_resumed' && line.page === 3)).toBe(true);
  expect(logs.some((line) => line.event === 'listing_changed')).toBe(true);
  const row = await h.warehouse.db
    .selectFrom('leases')
    .select(['lease_id', 'deleted_at'])
    .where('lease_id', '=', newId)
    .executeTakeFirst();
  expect(row).toEqual({ lease_id: newId, deleted_at: null });
  // Every unit of the property is finished or superseded: the keys they saw are gone.
  expect(await seenRows(propertyId)).toBe(0);
});

it('verify trusts a listing as the engine does: a repeated page or a total it misses fails the check, never drift', async () => {
  const property = String(h.sim.dataset.properties[0].PropertyID);
  const verifyLeases = async () => {
    const [base] = h.config.accounts;
    const account = { ...base, source: { ...base.source, pageSize: PAGE } };
    const client = createSourceClient({ settings: account.source, timeZone: account.timeZone });
    try {
      return await verifyAccount(
        { streams: ['leases'], selection: { kind: 'property', propertyIds: [property] }, pass: 'check' },
        { db: h.warehouse.db, client, config: h.config, account, logger: createLogger({ level: 'silent' }) },
      );
    } finally {
      await client.close();
    }
  };
  const driftRows = (result: AccountVerification) =>
    result.streams
      .flatMap((stream) => stream.tables)
      .reduce((sum, t) => sum + t.missing.length + t.extra.length, 0);
  proxy.rewrite = { pageNo: (area, pageNo) => (area === 'leases' && pageNo === 2 ? 1 : pageNo) };
  const repeated = await verifyLeases();
  expect(repeated.status).toBe('failed');
  expect(repeated.error).toMatch(/page 2 of getLeases of property \d+ repeats the keys of page 1/);
  expect(driftRows(repeated)).toBe(0);
  for (const lie of [(real: number) => real + 3, (real: number) => Math.max(real - 3, 1)]) {
    proxy.rewrite = { reply: withTotal(lie) };
    const short = await verifyLeases();
    expect(short.status).toBe('failed');
    expect(short.error).toMatch(/announced \d+ records but \d+ distinct ones came; it is not complete/);
    expect(driftRows(short)).toBe(0);
  }
  proxy.rewrite = {};
  const clean = await verifyLeases();
  expect(clean.status).toBe('succeeded');
  expect(driftRows(clean)).toBe(0);
});
