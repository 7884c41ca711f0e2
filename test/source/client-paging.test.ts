import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceRequest } from '../../src/source/types.js';
import { allPages, clientFor, sourceConfig, startProxy, startSim, type Proxy } from './support.js';
import { GET_LEASES } from '../../src/streams/leases/manifest.js';

let sim: Awaited<ReturnType<typeof startSim>>;
/** The simulator without `X-Total-Count` and `Link`. */
let bare: Proxy;
let request: SourceRequest;
let expected: unknown[];

beforeAll(async () => {
  sim = await startSim();
  bare = await startProxy(sim.url, (reply) => {
    const headers = { ...reply.headers };
    delete headers['x-total-count'];
    delete headers.link;
    return { ...reply, headers };
  });
  request = {
    method: GET_LEASES,
    params: { propertyId: sim.dataset.properties[0].PropertyID, leaseStatusTypeIds: [1, 2, 3, 4, 5, 6] },
  };
  const { client } = clientFor(sourceConfig(sim.url, { pageSize: 1000 }));
  expected = (await allPages(client, request)).flatMap((page) => page.records);
  await client.close();
});
afterAll(async () => {
  await bare.close();
  await sim.close();
});

const ids = (records: unknown[]) => records.map((record) => (record as { id: string }).id);

describe('paging', () => {
  it('has enough records for several pages', () => {
    expect(expected.length).toBeGreaterThan(60);
    expect(new Set(ids(expected)).size).toBe(expected.length);
  });

  for (const variant of [
    { name: 'headers', proxied: false, links: false },
    { name: 'headers and body links', proxied: false, links: true },
    { name: 'body links only', proxied: true, links: true },
    { name: 'neither headers nor body links', proxied: true, links: false },
  ]) {
    it(`reads every record once, in order, with ${variant.name}`, async () => {
      const { client, events } = clientFor(
        sourceConfig(variant.proxied ? bare.url : sim.url, { pageSize: 7 }),
        { sendPaginationLinks: variant.links },
      );
      const pages = await allPages(client, request);
      await client.close();
      expect(ids(pages.flatMap((page) => page.records))).toEqual(ids(expected));
      const full = Math.ceil(expected.length / 7);
      expect(pages.map((page) => page.pageNo)).toEqual(Array.from({ length: full }, (_, i) => i + 1));
      expect(pages.map((page) => page.isLast)).toEqual(
        Array.from({ length: full }, (_, i) => i === full - 1),
      );
      expect(events).toHaveLength(full);
      const known = !variant.proxied || variant.links;
      for (const page of pages) expect(page.totalCount).toBe(known ? expected.length : undefined);
      for (const page of pages)
        expect(page.records.every((record) => !('pagination' in (record as object)))).toBe(true);
    });
  }

  it('ends on a full last page: by the total or links when known, else by an empty page', async () => {
    const perPage = expected.length;
    const { client: informed, events: informedEvents } = clientFor(
      sourceConfig(sim.url, { pageSize: perPage }),
    );
    const withTotal = await allPages(informed, request);
    await informed.close();
    expect(withTotal.map((page) => [page.records.length, page.isLast])).toEqual([[perPage, true]]);
    expect(informedEvents).toHaveLength(1);

    const { client: linked, events: linkedEvents } = clientFor(
      sourceConfig(bare.url, { pageSize: perPage }),
      { sendPaginationLinks: true },
    );
    expect((await allPages(linked, request)).map((page) => page.isLast)).toEqual([true]);
    await linked.close();
    expect(linkedEvents).toHaveLength(1);

    const { client: blind, events: blindEvents } = clientFor(sourceConfig(bare.url, { pageSize: perPage }));
    const pages = await allPages(blind, request);
    await blind.close();
    expect(pages.map((page) => [page.records.length, page.isLast])).toEqual([
      [perPage, false],
      [0, true],
    ]);
    expect(blindEvents).toHaveLength(2);
  });

  it('starts at a given page', async () => {
    const { client } = clientFor(sourceConfig(sim.url, { pageSize: 10 }));
    const pages = await allPages(client, request, 3);
    await client.close();
    expect(pages[0].pageNo).toBe(3);
    expect(ids(pages.flatMap((page) => page.records))).toEqual(ids(expected.slice(20)));
  });

  it('keeps one page at a time: the next page is fetched only when asked for', async () => {
    const { client, events } = clientFor(sourceConfig(sim.url, { pageSize: 10 }));
    const iterator = client.pages(request);
    const first = await iterator.next();
    expect(first.value?.pageNo).toBe(1);
    expect(events).toHaveLength(1);
    await iterator.return(undefined);
    expect(events).toHaveLength(1);
    await client.close();
  });

  it('with prefetch, fetches the next page while the caller holds one, and reads the same pages', async () => {
    const { client, events } = clientFor(sourceConfig(sim.url, { pageSize: 7 }));
    const iterator = client.pages(request, { prefetch: true });
    const first = await iterator.next();
    expect(first.value?.pageNo).toBe(1);
    await expect.poll(() => events.length).toBe(2);
    expect(events.map((event) => event.page)).toEqual([1, 2]);
    const pages = [first.value!];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) pages.push(next.value);
    await client.close();
    expect(ids(pages.flatMap((page) => page.records))).toEqual(ids(expected));
    expect(pages.map((page) => page.pageNo)).toEqual(pages.map((_, index) => index + 1));
    // None fetched past the last page.
    expect(events).toHaveLength(pages.length);
  });

  it('with prefetch, tells the calls of a page fetched ahead that the caller stopped before taking', async () => {
    const { client, events } = clientFor(sourceConfig(sim.url, { pageSize: 7 }));
    const unused: number[] = [];
    const iterator = client.pages(request, { prefetch: true, onUnused: (calls) => void unused.push(calls) });
    await iterator.next();
    await iterator.return(undefined);
    await client.close();
    // Page 2 was asked for (or stopped before it was sent): what reached the source is told, no more.
    expect(unused).toHaveLength(1);
    expect(unused[0]).toBe(events.length - 1);
  });

  it("with prefetch, fetches nothing more once the caller's signal stops it", async () => {
    const stop = new AbortController();
    const { client, events } = clientFor(sourceConfig(sim.url, { pageSize: 7 }));
    const iterator = client.pages(request, { prefetch: true, signal: stop.signal });
    await iterator.next();
    stop.abort(new Error('stopped'));
    // Page 2 may have come already; nothing after it is fetched, and the listing ends in the stop.
    const after: (number | 'stopped')[] = [];
    try {
      for (let next = await iterator.next(); !next.done; next = await iterator.next())
        after.push(next.value.pageNo);
    } catch {
      after.push('stopped');
    }
    await client.close();
    expect(after.at(-1)).toBe('stopped');
    expect(after.length).toBeLessThanOrEqual(2);
    expect(events.length).toBeLessThanOrEqual(2);
  });
});
