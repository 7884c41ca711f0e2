/** Contract: paging, body links and rate limits (source-api.md section 4). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRateLimitSpec, RateLimiter } from '../../src/simulator/server/rate-limit.js';
import type { Simulator } from '../../src/simulator/server/simulator.js';
import { PROPERTY_A } from './fixtures/dataset.js';
import { call, idsOf, leasesOf, startFixtureSimulator, type CallOptions } from './support.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startFixtureSimulator();
});
afterAll(async () => {
  await sim.close();
});

const ALL_CURRENT: CallOptions = {
  method: 'getLeases',
  version: 'r2',
  params: {
    propertyId: String(PROPERTY_A),
    leaseStatusTypeIds: '1,2,3,4,5,6',
    includeOtherIncomeLeases: '1',
  },
};

function links(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(/,\s*(?=<)/)) {
    const match = /^<([^>]+)>;\s*rel="([a-z]+)"$/.exec(part.trim());
    if (match) out[match[2]!] = match[1]!;
  }
  return out;
}

describe('paging', () => {
  it('pages with page_no/per_page, X-Total-Count and RFC 8288 Link first/prev/next/last', async () => {
    const whole = await call(sim, ALL_CURRENT);
    const total = leasesOf(whole).length;
    expect(total).toBe(29);
    expect(whole.headers.get('x-total-count')).toBe('29');

    const first = await call(sim, { ...ALL_CURRENT, query: { per_page: 5 } });
    expect(leasesOf(first)).toHaveLength(5);
    expect(first.headers.get('x-total-count')).toBe('29');
    const firstLinks = links(first.headers.get('link'));
    expect(Object.keys(firstLinks)).toEqual(['first', 'next', 'last']);
    expect(new URL(firstLinks.last!).searchParams.get('page_no')).toBe('6');
    expect(new URL(firstLinks.next!).searchParams.get('per_page')).toBe('5');

    // Following `next` visits every record once, in id order, and the last page is short.
    const seen: string[] = [];
    let url: string | undefined = `${sim.url}/api/v1/leases?per_page=5`;
    let pages = 0;
    let lastLinks: Record<string, string> = {};
    while (url) {
      const parsed = new URL(url);
      const reply = await call(sim, { ...ALL_CURRENT, query: Object.fromEntries(parsed.searchParams) });
      seen.push(...idsOf(leasesOf(reply)));
      lastLinks = links(reply.headers.get('link'));
      if (pages > 0 && lastLinks.next)
        expect(Object.keys(lastLinks)).toEqual(['first', 'prev', 'next', 'last']);
      url = lastLinks.next;
      pages += 1;
    }
    expect(pages).toBe(6);
    expect(lastLinks).not.toHaveProperty('next');
    expect(new URL(lastLinks.prev!).searchParams.get('page_no')).toBe('5');
    expect(seen).toEqual(idsOf(leasesOf(whole)));
    expect(seen.map(Number)).toEqual([...seen.map(Number)].sort((a, b) => a - b));
  });

  it('Link URLs are absolute and keep the request\u2019s other query parameters', async () => {
    const reply = await call(sim, { ...ALL_CURRENT, query: { per_page: 10, page_no: 2, trace: 'abc' } });
    const found = links(reply.headers.get('link'));
    for (const href of Object.values(found)) {
      const url = new URL(href);
      expect(url.origin).toBe(sim.url);
      expect(url.pathname).toBe('/api/v1/leases');
      expect(url.searchParams.get('trace')).toBe('abc');
    }
    expect(new URL(found.prev!).searchParams.get('page_no')).toBe('1');
  });

  it('defaults to 500 per page and page 1', async () => {
    const reply = await call(sim, ALL_CURRENT);
    const found = links(reply.headers.get('link'));
    expect(new URL(found.first!).searchParams.get('per_page')).toBe('500');
    expect(new URL(found.last!).searchParams.get('page_no')).toBe('1');
    expect(found).not.toHaveProperty('next');
    expect(found).not.toHaveProperty('prev');
  });

  it('sends result.pagination only with X-Send-Pagination-Links: 1', async () => {
    const without = await call(sim, { ...ALL_CURRENT, query: { per_page: 5, page_no: 2 } });
    expect(without.body.response.result).not.toHaveProperty('pagination');
    const withLinks = await call(sim, {
      ...ALL_CURRENT,
      query: { per_page: 5, page_no: 2 },
      headers: { 'X-Send-Pagination-Links': '1' },
    });
    const pagination = withLinks.body.response.result.pagination;
    expect(pagination).toMatchObject({ totalCount: 29, pageNumber: 2, perPage: 5 });
    expect(pagination.links).toEqual(links(withLinks.headers.get('link')));
    expect(Object.keys(pagination.links)).toEqual(['first', 'prev', 'next', 'last']);
    const xml = await call(sim, {
      ...ALL_CURRENT,
      format: 'xml',
      query: { per_page: 5 },
      headers: { 'X-Send-Pagination-Links': '1' },
    });
    expect(xml.body.response.result.pagination).toMatchObject({
      totalCount: '29',
      pageNumber: '1',
      perPage: '5',
    });
    expect(xml.body.response.result.pagination.links.next).toContain('page_no=2');
  });

  it('a page past the end is "No records found" with the total still announced', async () => {
    const reply = await call(sim, { ...ALL_CURRENT, query: { per_page: 5, page_no: 9 } });
    expect(reply.body.response.result).toBe('No records found with mentioned preferences.');
    expect(reply.headers.get('x-total-count')).toBe('29');
  });

  it('per_page outside 5..1000 or a bad page_no is code 400 naming it', async () => {
    for (const [query, name] of [
      [{ per_page: 4 }, 'per_page'],
      [{ per_page: 1001 }, 'per_page'],
      [{ per_page: 'ten' }, 'per_page'],
      [{ page_no: 0 }, 'page_no'],
      [{ page_no: '-1' }, 'page_no'],
    ] as const) {
      const reply = await call(sim, { ...ALL_CURRENT, query: query as Record<string, string | number> });
      expect(reply.status).toBe(200);
      expect(reply.body.response.error.code).toBe(400);
      expect(reply.body.response.error.message).toContain(`'${name}'`);
    }
    const edge = await call(sim, { ...ALL_CURRENT, query: { per_page: 1000 } });
    expect(leasesOf(edge)).toHaveLength(29);
  });

  it('pages getInvoices and getProperties the same way', async () => {
    const invoices = await call(sim, {
      method: 'getInvoices',
      version: 'r2',
      params: {},
      query: { per_page: 5, page_no: 2 },
    });
    expect(invoices.headers.get('x-total-count')).toBe('8');
    expect(links(invoices.headers.get('link'))).toHaveProperty('prev');
    const properties = await call(sim, { method: 'getProperties', params: {}, query: { per_page: 5 } });
    expect(properties.headers.get('x-total-count')).toBe('3');
  });
});

describe('rate limits', () => {
  it('announces the default limits on every reply, in the documented form', async () => {
    const limited = await startFixtureSimulator({ rateLimit: 'default' });
    try {
      const reply = await call(limited, ALL_CURRENT);
      expect(reply.headers.get('x-ratelimit-limit')).toBe('15000/day;1000/hour;150/minute');
      expect(reply.headers.get('x-ratelimit-remaining')).toBe('14999/day;999/hour;149/minute');
      const reset = reply.headers.get('x-ratelimit-reset')!.split(';').map(Number);
      expect(reset).toHaveLength(3);
      expect(reset[0]).toBeGreaterThan(86_000);
      expect(reset[0]).toBeLessThanOrEqual(86_400);
      expect(reset[1]).toBeLessThanOrEqual(3600);
      expect(reset[2]).toBeLessThanOrEqual(60);
      expect(reset[2]).toBeGreaterThan(50);
      // Errors carry them too.
      const unauthorised = await call(limited, { ...ALL_CURRENT, auth: null });
      expect(unauthorised.headers.get('x-ratelimit-limit')).toBe('15000/day;1000/hour;150/minute');
      const unknown = await call(limited, { ...ALL_CURRENT, version: 'r9' });
      expect(unknown.body.response.error.code).toBe(404);
      expect(unknown.headers.get('x-ratelimit-remaining')).toBe('14999/day;999/hour;149/minute');
      const bad = await call(limited, { ...ALL_CURRENT, params: { propertyId: 'x' } });
      expect(bad.headers.get('x-ratelimit-remaining')).toBe('14998/day;998/hour;148/minute');
    } finally {
      await limited.close();
    }
  });

  it('throttles per method with HTTP 429, an error envelope and Retry-After; the window then reopens', async () => {
    const limited = await startFixtureSimulator({ rateLimit: '3/2s,100/hour' });
    try {
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) {
        const reply = await call(limited, ALL_CURRENT);
        expect(reply.status).toBe(200);
        remaining.push(reply.headers.get('x-ratelimit-remaining')!);
        expect(reply.headers.get('x-ratelimit-limit')).toBe('100/hour;3/2s');
      }
      expect(remaining).toEqual(['99/hour;2/2s', '98/hour;1/2s', '97/hour;0/2s']);
      const throttled = await call(limited, ALL_CURRENT);
      expect(throttled.status).toBe(429);
      expect(throttled.body.response).toMatchObject({ requestId: '15', error: { code: 429 } });
      const retryAfter = Number(throttled.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(2);
      expect(throttled.headers.get('x-ratelimit-remaining')).toBe('97/hour;0/2s');
      // Another method has its own budget.
      const other = await call(limited, { method: 'getInvoices', version: 'r2', params: {} });
      expect(other.status).toBe(200);
      expect(other.headers.get('x-ratelimit-remaining')).toBe('99/hour;2/2s');
      // XML callers get the envelope in XML.
      const xml = await call(limited, { ...ALL_CURRENT, format: 'xml' });
      expect(xml.status).toBe(429);
      expect(xml.body.response.error.code).toBe('429');
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
      const again = await call(limited, ALL_CURRENT);
      expect(again.status).toBe(200);
      expect(again.headers.get('x-ratelimit-remaining')).toBe('96/hour;2/2s');
      expect(limited.stats().calls.getLeases).toMatchObject({ '200': 4, '429': 2 });
    } finally {
      await limited.close();
    }
  });

  it('off: no limits and no headers; setRateLimit changes them in-process', async () => {
    const reply = await call(sim, ALL_CURRENT);
    expect(reply.headers.get('x-ratelimit-limit')).toBeNull();
    const limited = await startFixtureSimulator({ rateLimit: 'off' });
    try {
      limited.setRateLimit('1/minute');
      expect((await call(limited, ALL_CURRENT)).status).toBe(200);
      const throttled = await call(limited, ALL_CURRENT);
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(50);
      limited.setRateLimit('off');
      expect((await call(limited, ALL_CURRENT)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('counts per credential and method (limiter unit)', () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(parseRateLimitSpec('2/minute'), () => now);
    expect(limiter.take('alice\u0000getLeases').allowed).toBe(true);
    expect(limiter.take('alice\u0000getLeases').allowed).toBe(true);
    const refused = limiter.take('alice\u0000getLeases');
    expect(refused).toMatchObject({ allowed: false, retryAfter: 60 });
    expect(limiter.take('bob\u0000getLeases').allowed).toBe(true);
    expect(limiter.take('alice\u0000getInvoices').allowed).toBe(true);
    now += 30_000;
    expect(limiter.take('alice\u0000getLeases').retryAfter).toBe(30);
    now += 30_000;
    expect(limiter.take('alice\u0000getLeases').allowed).toBe(true);
  });

  it('parses LIMITS specs', () => {
    expect(parseRateLimitSpec('default')).toEqual([
      { limit: 15000, seconds: 86400 },
      { limit: 1000, seconds: 3600 },
      { limit: 150, seconds: 60 },
    ]);
    expect(parseRateLimitSpec('20/2s,500/hour')).toEqual([
      { limit: 500, seconds: 3600 },
      { limit: 20, seconds: 2 },
    ]);
    expect(parseRateLimitSpec('15000/day;1000/hour;150/minute')).toHaveLength(3);
    expect(parseRateLimitSpec('off')).toBeNull();
    for (const bad of ['20', '20/fortnight', '0/minute', 'x/s'])
      expect(() => parseRateLimitSpec(bad)).toThrow(/invalid rate limit/);
  });
});
