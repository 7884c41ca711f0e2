/**
 * Records replies of the simulator as fixtures of the stream tests: a few records of each
 * stream's method, in each version, as the client decodes them (JSON and XML decode alike).
 * Run: node bin/run-ts.mjs test/streams/record-fixtures.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configSchema } from '../../src/config/schema.js';
import { sourceSettingsOf } from '../../src/config/source-settings.js';
import { startSimulator } from '../../src/simulator/index.js';
import { createSourceClient } from '../../src/source/index.js';
import type { SourceRequest } from '../../src/source/types.js';
import { GET_INVOICES } from '../../src/streams/invoices/method.js';
import { GET_LEASES } from '../../src/streams/leases/method.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Records kept per fixture: enough to hold every child kind, small enough to read. */
const KEEP = 3;

const sim = await startSimulator({ port: 0, scale: 'small', seed: 11, today: '2024-06-15', username: 'u', password: 'fixture-pw', rateLimit: 'off' });
const propertyId = String(sim.dataset.properties[0].PropertyID);
const requests: Record<string, SourceRequest> = {
  'leases/fixtures/getLeases': {
    method: GET_LEASES,
    params: { propertyId, leaseStatusTypeIds: [1, 2, 3, 4, 5, 6], includeArTransactions: true, includeLeaseHistory: true, includeOtherIncomeLeases: true },
  },
  'invoices/fixtures/getInvoices': { method: GET_INVOICES, params: { propertyIds: [propertyId], includeExported: true, customerRefunds: true, includeVoidedPayments: true } },
};
try {
  for (const version of ['r1', 'r2'] as const) {
    const config = configSchema.parse({ database: { url: 'postgres://x@localhost/x' }, source: { url: sim.url, username: 'u', password: 'fixture-pw', pageSize: 50, versions: { getLeases: version, getInvoices: version } } });
    const client = createSourceClient({ settings: sourceSettingsOf(config.source), timeZone: config.timeZone });
    for (const [name, request] of Object.entries(requests)) {
      const records: unknown[] = [];
      for await (const page of client.pages(request)) records.push(...page.records);
      // Records with the most kinds of children first (every child table shows up), the smallest of those.
      const kinds = (record: unknown) => Object.values(record as object).filter((value) => value !== null && typeof value === 'object').length;
      const size = (record: unknown) => JSON.stringify(record).length;
      const kept = records.sort((a, b) => kinds(b) - kinds(a) || size(a) - size(b)).slice(0, KEEP);
      const file = join(HERE, `${name}-${version}.json`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(kept, null, 1)}\n`);
    }
    await client.close();
  }
} finally {
  await sim.close();
}
