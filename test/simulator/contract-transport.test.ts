/** Contract: transport, envelopes, formats, auth, errors, the Date header (source-api.md sections 1 to 3). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toXml } from '../../src/simulator/server/formats.js';
import type { Simulator } from '../../src/simulator/server/simulator.js';
import { FIXTURE_TODAY, PROPERTY_A } from './fixtures/dataset.js';
import {
  call,
  callUrl,
  envelopeText,
  leasesOf,
  PASSWORD,
  startFixtureSimulator,
  USER,
  xmlParser,
} from './support.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startFixtureSimulator();
});
afterAll(async () => {
  await sim.close();
});

const leaseCall = { method: 'getLeases', version: 'r2', params: { propertyId: String(PROPERTY_A) } };

describe('transport', () => {
  it('serves /api/v1/<area> and /api/<area> alike', async () => {
    const v1 = await call(sim, leaseCall);
    const bare = await call(sim, { ...leaseCall, prefix: '/api' });
    expect(v1.status).toBe(200);
    expect(bare.status).toBe(200);
    expect(bare.text).toBe(v1.text);
  });

  it('reads multipart and raw JSON bodies the same way, and ignores file parts', async () => {
    const multipart = await call(sim, leaseCall);
    const raw = await call(sim, { ...leaseCall, transport: 'raw' });
    const withFiles = await call(sim, { ...leaseCall, files: { file1: 'ignored', file2: 'also ignored' } });
    expect(raw.text).toBe(multipart.text);
    expect(withFiles.text).toBe(multipart.text);
    expect(leasesOf(multipart).length).toBeGreaterThan(0);
  });

  it('compares requestContentType case-insensitively and answers in the request format', async () => {
    const lower = await call(sim, {
      ...leaseCall,
      format: 'xml',
      requestContentType: 'application/xml; charset=utf-8',
    });
    const upper = await call(sim, {
      ...leaseCall,
      format: 'xml',
      requestContentType: 'APPLICATION/XML; CHARSET=UTF-8',
    });
    expect(lower.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(upper.text).toBe(lower.text);
    expect(lower.text.startsWith('<?xml')).toBe(true);
    const json = await call(sim, { ...leaseCall, requestContentType: 'Application/Json; CHARSET=UTF-8' });
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('reads raw XML bodies and answers XML shaped like the JSON', async () => {
    const json = await call(sim, {
      ...leaseCall,
      params: { ...leaseCall.params, includeArTransactions: '1', leaseIds: '1004' },
    });
    const xml = await call(sim, {
      ...leaseCall,
      params: { ...leaseCall.params, includeArTransactions: '1', leaseIds: '1004' },
      format: 'xml',
      transport: 'raw',
    });
    expect(xml.body.response.code).toBe('200');
    expect(xml.body.response.requestId).toBe('15');
    const jsonLease = leasesOf(json)[0];
    const xmlLease = leasesOf(xml)[0];
    // Same keys, same order, same text of every scalar (XML has no types).
    const stringify = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(stringify)
        : value && typeof value === 'object'
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stringify(v)]))
          : String(value);
    const normalise = (value: unknown): unknown =>
      // A one-element list is one element in XML: compare as bare objects.
      Array.isArray(value)
        ? value.length === 1
          ? normalise(value[0])
          : value.map(normalise)
        : value && typeof value === 'object'
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v)]))
          : value;
    expect(normalise(xmlLease)).toEqual(normalise(stringify(jsonLease)));
    expect(Object.keys(xmlLease)).toEqual(Object.keys(jsonLease));
  });

  it('answers XML lists as repeated elements', async () => {
    const xml = await call(sim, { ...leaseCall, format: 'xml' });
    const leases = xml.body.response.result.leases.lease;
    expect(Array.isArray(leases)).toBe(true);
    expect(leases.length).toBeGreaterThan(1);
    expect((xml.text.match(/<lease>/g) ?? []).length).toBe(leases.length);
  });

  it('accepts Accept-Language and ignores it', async () => {
    const plain = await call(sim, leaseCall);
    const english = await call(sim, { ...leaseCall, headers: { 'Accept-Language': 'en-US' } });
    expect(english.text).toBe(plain.text);
  });

  it('sends the simulated day as the HTTP Date, at the wall-clock time of day in America/Denver', async () => {
    const before = Date.now();
    const reply = await call(sim, leaseCall);
    const date = new Date(reply.headers.get('date')!);
    const denverDay = new Intl.DateTimeFormat('en-CA', {
      timeZone: 'America/Denver',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(date);
    expect(denverDay).toBe(FIXTURE_TODAY);
    const denverTime = (d: Date) =>
      new Intl.DateTimeFormat('en-GB', {
        timeZone: 'America/Denver',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(d);
    const now = new Date(before);
    // Same time of day (to the minute, allowing for a minute tick during the call).
    expect([denverTime(now), denverTime(new Date(before + 60_000))]).toContain(denverTime(date));
    // Every reply carries it, errors included.
    const unauthorised = await call(sim, { ...leaseCall, auth: null });
    expect(unauthorised.headers.get('date')).toBeTruthy();
    expect(
      new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Denver' }).format(
        new Date(unauthorised.headers.get('date')!),
      ),
    ).toBe(FIXTURE_TODAY);
  });
});

describe('request and response envelopes', () => {
  it('echoes requestId as a string, numbers included, and leaves it out when absent', async () => {
    const text = await call(sim, { ...leaseCall, requestId: 'abc-7' });
    expect(text.body.response.requestId).toBe('abc-7');
    const number = await call(sim, { ...leaseCall, requestId: 42 });
    expect(number.body.response.requestId).toBe('42');
    expect(number.text).toContain('"requestId":"42"');
    const none = await call(sim, { ...leaseCall, requestId: null });
    expect(none.body.response).not.toHaveProperty('requestId');
    const xmlNone = await call(sim, { ...leaseCall, requestId: null, format: 'xml' });
    expect(xmlNone.text).not.toContain('<requestId>');
  });

  it('sends an integer code and the result, in this key order', async () => {
    const reply = await call(sim, leaseCall);
    expect(Object.keys(reply.body.response)).toEqual(['requestId', 'code', 'result']);
    expect(reply.body.response.code).toBe(200);
    expect(reply.text).toContain('"code":200');
    expect(reply.body.response.result.currencyCode).toBe('USD');
  });

  it('treats an omitted version as r1', async () => {
    const omitted = await call(sim, { ...leaseCall, version: undefined });
    const r1 = await call(sim, { ...leaseCall, version: 'r1' });
    expect(omitted.text).toBe(r1.text);
    expect(leasesOf(omitted)[0]).toHaveProperty('leaseActivities');
  });

  it('takes <version> inside XML', async () => {
    const r2 = await call(sim, { ...leaseCall, format: 'xml', version: 'r2' });
    const r1 = await call(sim, { ...leaseCall, format: 'xml', version: 'r1' });
    expect(leasesOf(r2)[0]).toHaveProperty('leaseIntervals');
    expect(leasesOf(r1)[0]).toHaveProperty('leaseActivities');
  });
});

describe('errors', () => {
  it('answers a missing or wrong credential with HTTP 401 and an error envelope (code 301)', async () => {
    for (const auth of [
      null,
      { username: USER, password: 'wrong' },
      { username: 'someone', password: PASSWORD },
    ]) {
      const reply = await call(sim, { ...leaseCall, auth });
      expect(reply.status).toBe(401);
      expect(reply.body.response.requestId).toBe('15');
      expect(reply.body.response.error.code).toBe(301);
      expect(reply.body.response).not.toHaveProperty('result');
    }
    const xml = await call(sim, { ...leaseCall, auth: null, format: 'xml' });
    expect(xml.status).toBe(401);
    expect(xml.body.response.error.code).toBe('301');
    const garbage = await fetch(callUrl(sim, leaseCall), {
      method: 'POST',
      headers: { Authorization: 'Bearer nope', 'Content-Type': 'application/json' },
      body: envelopeText(leaseCall),
    });
    expect(garbage.status).toBe(401);
  });

  it('never echoes the password', async () => {
    const reply = await call(sim, { ...leaseCall, auth: { username: USER, password: 'wrong-password-123' } });
    expect(reply.text).not.toContain('wrong-password-123');
    expect(reply.text).not.toContain(PASSWORD);
  });

  it('answers an unknown area, method or version with code 404 and HTTP 200', async () => {
    const area = await call(sim, { ...leaseCall, area: 'tenants' });
    const method = await call(sim, { ...leaseCall, method: 'getLeaseDetails', area: 'leases' });
    const wrongArea = await call(sim, { ...leaseCall, area: 'vendors' });
    const version = await call(sim, { ...leaseCall, version: 'r3' });
    for (const reply of [area, method, wrongArea, version]) {
      expect(reply.status).toBe(200);
      expect(reply.body.response.error.code).toBe(404);
      expect(reply.body.response.requestId).toBe('15');
    }
    expect(version.body.response.error.message).toContain('r3');
    expect(method.body.response.error.message).toContain('getLeaseDetails');
  });

  it('answers a path outside /api with HTTP 404 and a GET with 405, both with an envelope', async () => {
    const outside = await fetch(`${sim.url}/nothing/here`, { method: 'POST' });
    expect(outside.status).toBe(404);
    expect(((await outside.json()) as any).response.error.code).toBe(404);
    const get = await fetch(callUrl(sim, leaseCall));
    expect(get.status).toBe(405);
    expect(((await get.json()) as any).response.error.code).toBe(404);
  });

  it('answers an unreadable envelope with code 400 in the request format', async () => {
    const url = callUrl(sim, leaseCall);
    const auth = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
    const json = await fetch(url, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: '{"method": ',
    });
    expect(json.status).toBe(200);
    expect(((await json.json()) as any).response.error).toMatchObject({
      code: 400,
      message: expect.stringContaining('requestBody'),
    });
    const xml = await fetch(url, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/xml' },
      body: '<nope/>',
    });
    expect(xml.headers.get('content-type')).toMatch(/xml/);
    expect(await xml.text()).toContain('<code>400</code>');
  });

  it('answers a malformed parameter with code 400 naming it (HTTP 200)', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'propertyId'],
      [{ propertyId: 'abc' }, 'propertyId'],
      [{ propertyId: String(PROPERTY_A), moveInDateFrom: '2024-01-01' }, 'moveInDateFrom'],
      [{ propertyId: String(PROPERTY_A), moveOutDateTo: '02/30/2024' }, 'moveOutDateTo'],
      [{ propertyId: String(PROPERTY_A), leaseIds: '1004,x' }, 'leaseIds'],
      [{ propertyId: String(PROPERTY_A), includeArTransactions: 'yes' }, 'includeArTransactions'],
      [{ propertyId: String(PROPERTY_A), favouriteColour: 'blue' }, 'favouriteColour'],
    ];
    for (const [params, name] of cases) {
      const reply = await call(sim, { ...leaseCall, params });
      expect(reply.status).toBe(200);
      expect(reply.body.response.error.code).toBe(400);
      expect(reply.body.response.error.message).toContain(`'${name}'`);
    }
  });

  it('answers a property the credential cannot see with code 302', async () => {
    const reply = await call(sim, { ...leaseCall, params: { propertyId: '999999' } });
    expect(reply.status).toBe(200);
    expect(reply.body.response.error.code).toBe(302);
  });
});

describe('getStatus and getProperties', () => {
  it('getStatus answers Success', async () => {
    const reply = await call(sim, { method: 'getStatus', params: {} });
    expect(reply.body.response.result).toEqual({ status: 'Success', message: expect.any(String) });
  });

  it('getProperties answers PascalCase properties, filtered by propertyIds', async () => {
    const all = await call(sim, { method: 'getProperties', params: {} });
    const properties = all.body.response.result.PhysicalProperty.Property;
    expect(properties).toHaveLength(3);
    expect(properties[0]).toEqual({
      PropertyID: PROPERTY_A,
      MarketingName: 'Aspen Court',
      Type: 'Apartment',
      IsDisabled: 0,
      Address: {
        Address: expect.any(String),
        City: 'Denver',
        State: 'CO',
        PostalCode: '80202',
        Country: 'US',
      },
    });
    const one = await call(sim, {
      method: 'getProperties',
      params: { propertyIds: `${PROPERTY_A}, 100002` },
    });
    expect(one.body.response.result.PhysicalProperty.Property.map((p: any) => p.PropertyID)).toEqual([
      PROPERTY_A,
      100002,
    ]);
    const xml = await call(sim, { method: 'getProperties', params: {}, format: 'xml' });
    expect(xml.body.response.result.PhysicalProperty.Property[0].PropertyID).toBe(String(PROPERTY_A));
  });
});

describe('XML shaped like the JSON', () => {
  it('writes @attributes as attributes, lists as repeated elements, and escapes text', () => {
    const tree = {
      result: {
        items: {
          item: [
            { '@attributes': { type: 'a&b', rank: 1 }, id: '1', name: 'Tom & <Jerry>' },
            { id: 2, flag: true },
          ],
        },
        note: 'it\'s "quoted"',
      },
    };
    const xml = toXml('response', tree);
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><response><result><items>' +
        '<item type="a&amp;b" rank="1"><id>1</id><name>Tom &amp; &lt;Jerry&gt;</name></item>' +
        '<item><id>2</id><flag>true</flag></item></items><note>it&apos;s &quot;quoted&quot;</note></result></response>',
    );
    const parsed = xmlParser.parse(xml).response;
    expect(parsed.result.items.item[0]['@attributes']).toEqual({ type: 'a&b', rank: '1' });
    expect(parsed.result.items.item[0].name).toBe('Tom & <Jerry>');
    expect(parsed.result.note).toBe('it\'s "quoted"');
  });

  it('escapes every text, one after another', () => {
    const xml = toXml('r', { a: ['xy&', '&', '<b', 'c>'] });
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><r><a>xy&amp;</a><a>&amp;</a><a>&lt;b</a><a>c&gt;</a></r>',
    );
  });
});
