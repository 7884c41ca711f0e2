import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodVersion } from '../../src/source/settings.js';
import type { SourceRequest } from '../../src/source/types.js';
import { allPages, clientFor, sourceConfig, startSim } from './support.js';
import { GET_PROPERTIES } from '../../src/streams/properties/manifest.js';
import { GET_INVOICES } from '../../src/streams/invoices/manifest.js';
import { GET_LEASES } from '../../src/streams/leases/manifest.js';

let sim: Awaited<ReturnType<typeof startSim>>;
let propertyIds: string[];

beforeAll(async () => {
  sim = await startSim();
  propertyIds = sim.dataset.properties.map((p) => String(p.PropertyID));
});
afterAll(async () => {
  await sim.close();
});

/** All records of a request, read in one format and version. */
async function recordsIn(
  format: 'json' | 'xml',
  version: MethodVersion,
  request: SourceRequest,
  sendPaginationLinks = false,
): Promise<unknown[]> {
  const { client } = clientFor(
    sourceConfig(sim.url, { format, pageSize: 100, versions: { getLeases: version, getInvoices: version } }),
    { sendPaginationLinks },
  );
  try {
    return (await allPages(client, request)).flatMap((page) => page.records);
  } finally {
    await client.close();
  }
}

const everyLease = (propertyId: string): SourceRequest => ({
  method: GET_LEASES,
  params: {
    propertyId,
    leaseStatusTypeIds: [1, 2, 3, 4, 5, 6],
    includeOtherIncomeLeases: true,
    includeLeaseHistory: true,
    includeArTransactions: true,
  },
});
const everyInvoice: SourceRequest = {
  method: GET_INVOICES,
  params: { includeExported: true, customerRefunds: true, includeVoidedPayments: true },
};

describe('JSON and XML decode to the same tree', () => {
  for (const version of ['r1', 'r2'] as const) {
    it(`getLeases ${version}: with history and AR transactions, and by default`, async () => {
      for (const request of [
        everyLease(propertyIds[0]),
        { method: GET_LEASES, params: { propertyId: propertyIds[1] } },
      ]) {
        const json = await recordsIn('json', version, request);
        const xml = await recordsIn('xml', version, request);
        expect(json.length).toBeGreaterThan(0);
        expect(xml).toEqual(json);
      }
    });
    it(`getInvoices ${version}`, async () => {
      const json = await recordsIn('json', version, everyInvoice);
      const xml = await recordsIn('xml', version, everyInvoice);
      expect(json.length).toBeGreaterThan(0);
      expect(xml).toEqual(json);
    });
  }
  it('getProperties', async () => {
    const json = await recordsIn('json', 'r1', { method: GET_PROPERTIES, params: {} });
    expect(json).toHaveLength(propertyIds.length);
    expect(await recordsIn('xml', 'r1', { method: GET_PROPERTIES, params: {} })).toEqual(json);
  });
  it('every scalar leaf is a string', async () => {
    const records = await recordsIn('json', 'r2', everyLease(propertyIds[0]));
    const leaves = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === 'object') Object.values(node).forEach(walk);
      else leaves.add(typeof node);
    };
    walk(records);
    expect([...leaves]).toEqual(['string']);
  });
  it('r1 and r2 differ where the contract says they do', async () => {
    const r1 = (await recordsIn('json', 'r1', everyLease(propertyIds[0]))) as Record<string, unknown>[];
    const r2 = (await recordsIn('json', 'r2', everyLease(propertyIds[0]))) as Record<string, unknown>[];
    expect(r1.map((lease) => lease.id)).toEqual(r2.map((lease) => lease.id));
    expect(r2.every((lease) => lease.unitSpaces !== undefined && lease.unitSpaceId === undefined)).toBe(true);
    expect(r1.every((lease) => lease.unitSpaces === undefined && lease.leaseIntervals === undefined)).toBe(
      true,
    );
  });
});
