/**
 * Contract: the API-key gateway (`/ext/orgs/<org>/v1/<area>`, `X-Api-Key`, a JSON body), beside or instead
 * of Basic auth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/server/simulator.js';
import { PROPERTY_A } from './fixtures/dataset.js';
import {
  API_KEY,
  call,
  callUrl,
  envelopeText,
  GATEWAY,
  invoicesOf,
  leasesOf,
  ORG,
  startFixtureSimulator,
  type CallOptions,
} from './support.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startFixtureSimulator({ ...GATEWAY });
});
afterAll(async () => {
  await sim.close();
});

const leaseCall: CallOptions = {
  method: 'getLeases',
  version: 'r2',
  params: { propertyId: String(PROPERTY_A), leaseStatusTypeIds: '1,2,3,4,5,6' },
};
const invoiceCall: CallOptions = { method: 'getInvoices', version: 'r2', params: {} };

describe('the gateway', () => {
  it('serves the same data as Basic auth, at /ext/orgs/<org>/v1/<area> with X-Api-Key and a JSON body', async () => {
    for (const request of [
      leaseCall,
      invoiceCall,
      { method: 'getProperties', params: {} },
      { ...leaseCall, version: 'r1', query: { per_page: 5, page_no: 2 } },
    ]) {
      const basic = await call(sim, request);
      const gateway = await call(sim, { ...request, gateway: GATEWAY });
      expect(gateway.status).toBe(200);
      expect(gateway.headers.get('content-type')).toMatch(/^application\/json/);
      expect(gateway.body).toEqual(basic.body);
      expect(gateway.headers.get('x-total-count')).toBe(basic.headers.get('x-total-count'));
    }
    expect(leasesOf(await call(sim, { ...leaseCall, gateway: GATEWAY })).length).toBeGreaterThan(0);
    expect(invoicesOf(await call(sim, { ...invoiceCall, gateway: GATEWAY })).length).toBeGreaterThan(0);
  });

  it("gives Link URLs on the gateway's own path", async () => {
    const reply = await call(sim, { ...leaseCall, gateway: GATEWAY, query: { per_page: 5 } });
    expect(reply.headers.get('link')).toContain(`/ext/orgs/${ORG}/v1/leases?`);
  });

  it('answers a missing or wrong key, or a wrong org, with HTTP 401 and an error envelope (code 301), never echoing the key', async () => {
    const wrong: CallOptions['gateway'][] = [
      { org: ORG, apiKey: null },
      { org: ORG, apiKey: 'wrong-key-123' },
      { org: ORG, apiKey: `${API_KEY}x` },
      { org: 'other-org', apiKey: API_KEY },
    ];
    const messages = new Set<string>();
    for (const gateway of wrong) {
      const reply = await call(sim, { ...leaseCall, gateway });
      expect(reply.status).toBe(401);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reply.body).toEqual({
        response: {
          requestId: '15',
          error: { code: 301, message: expect.stringContaining('Authentication failed') },
        },
      });
      expect(reply.text).not.toContain('wrong-key-123');
      expect(reply.text).not.toContain(API_KEY);
      messages.add(reply.body.response.error.message);
    }
    // A wrong org and a wrong key read the same: the reply tells which part was wrong to nobody.
    expect(messages.size).toBe(1);
  });

  it('does not take the Basic credential on the gateway, nor the API key on /api/v1', async () => {
    const basicOnGateway = await call(sim, {
      ...leaseCall,
      gateway: { org: ORG, apiKey: null },
      auth: { username: 'sim-user', password: 'sim-secret-pw' },
    });
    expect(basicOnGateway.status).toBe(401);
    const keyOnBasic = await call(sim, { ...leaseCall, auth: null, headers: { 'X-Api-Key': API_KEY } });
    expect(keyOnBasic.status).toBe(401);
  });

  it('wants {"auth":{"type":"apikey"}} in the envelope', async () => {
    const reply = await call(sim, { ...leaseCall, gateway: GATEWAY, authType: 'basic' });
    expect(reply.status).toBe(401);
    expect(reply.body.response.error.code).toBe(301);
  });

  it('takes the envelope only as a JSON body: multipart or XML is code 400, once the key is right', async () => {
    const multipart = await call(sim, { ...leaseCall, gateway: GATEWAY, transport: 'multipart' });
    const xml = await fetch(callUrl(sim, { ...leaseCall, gateway: GATEWAY }), {
      method: 'POST',
      headers: { 'X-Api-Key': API_KEY, 'Content-Type': 'application/xml' },
      body: envelopeText({ ...leaseCall, format: 'xml', authType: 'apikey' }),
    });
    for (const body of [multipart.body, await xml.json()]) {
      expect(body.response.error).toMatchObject({ code: 400, message: expect.stringContaining('JSON body') });
    }
    const unreadable = await fetch(callUrl(sim, { ...leaseCall, gateway: GATEWAY }), {
      method: 'POST',
      headers: { 'X-Api-Key': API_KEY, 'Content-Type': 'application/json' },
      body: '{"method": ',
    });
    expect(((await unreadable.json()) as any).response.error.code).toBe(400);
    // Without the key, the caller learns nothing about its body.
    const anonymous = await fetch(callUrl(sim, { ...leaseCall, gateway: GATEWAY }), {
      method: 'POST',
      headers: { 'Content-Type': 'application/xml' },
      body: '<nope/>',
    });
    expect(anonymous.status).toBe(401);
  });

  it('answers an unknown area, method or version with code 404, as on /api/v1', async () => {
    const area = await call(sim, { ...leaseCall, gateway: GATEWAY, area: 'tenants' });
    const version = await call(sim, { ...leaseCall, gateway: GATEWAY, version: 'r3' });
    for (const reply of [area, version]) {
      expect(reply.status).toBe(200);
      expect(reply.body.response.error.code).toBe(404);
    }
  });

  it('counts its rate limits per credential and method, with the same headers and 429', async () => {
    const limited = await startFixtureSimulator({ ...GATEWAY, rateLimit: '2/minute' });
    try {
      const statusCall: CallOptions = { method: 'getStatus', params: {}, gateway: GATEWAY };
      const first = await call(limited, statusCall);
      expect(first.headers.get('x-ratelimit-limit')).toBe('2/minute');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('1/minute');
      expect(first.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
      await call(limited, statusCall);
      const throttled = await call(limited, statusCall);
      expect(throttled.status).toBe(429);
      expect(throttled.body.response.error.code).toBe(429);
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
      // The Basic credential has its own counts.
      const basic = await call(limited, { method: 'getStatus', params: {} });
      expect(basic.headers.get('x-ratelimit-remaining')).toBe('1/minute');
    } finally {
      await limited.close();
    }
  });

  it('injects the same faults', async () => {
    const clean = await call(sim, { ...leaseCall, gateway: GATEWAY });
    sim.setFaults('500x1,badrecord:ids=1001');
    try {
      const failed = await call(sim, { ...leaseCall, gateway: GATEWAY });
      expect(failed.status).toBe(500);
      expect(failed.body.response.error.code).toBe(500);
      const basic = await call(sim, leaseCall);
      const gateway = await call(sim, { ...leaseCall, gateway: GATEWAY });
      expect(gateway.body).toEqual(basic.body);
      expect(gateway.body).not.toEqual(clean.body);
    } finally {
      sim.setFaults(undefined);
    }
  });
});

describe('which paths are served', () => {
  it('serves the gateway alone when no Basic credential is given: /api/v1 is 404', async () => {
    const alone = await startFixtureSimulator({ username: undefined, password: undefined, ...GATEWAY });
    try {
      expect((await call(alone, { ...leaseCall, gateway: GATEWAY })).status).toBe(200);
      const basic = await call(alone, leaseCall);
      expect(basic.status).toBe(404);
      expect(basic.body.response.error.message).toContain('/ext/orgs/<org>/v1/<area>');
    } finally {
      await alone.close();
    }
  });

  it('serves Basic auth alone when no API key is given: the gateway path is 404', async () => {
    const basic = await startFixtureSimulator();
    try {
      const reply = await call(basic, { ...leaseCall, gateway: GATEWAY });
      expect(reply.status).toBe(404);
      expect(reply.body.response.error.message).toContain('/api/v1/<area>');
    } finally {
      await basic.close();
    }
  });

  it('refuses half a credential', async () => {
    await expect(startFixtureSimulator({ apiKey: API_KEY })).rejects.toThrow(/API key and an org/);
    await expect(startFixtureSimulator({ username: undefined, password: undefined })).rejects.toThrow(
      /username and a password .* or an API key/,
    );
    await expect(startFixtureSimulator({ password: undefined })).rejects.toThrow(
      /both a username and a password/,
    );
  });
});
