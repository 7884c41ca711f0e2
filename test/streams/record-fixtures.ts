/**
 * Records replies of the simulator as the fixtures of the stream tests (conformance.test.ts and
 * each stream's own), for every registered stream: a few records of the first call its plan
 * makes on an empty warehouse (one property, everything), in each version its method speaks, as
 * the client decodes them (JSON and XML decode alike), into <name>/fixtures/<method>-<version>.json.
 * Run: node bin/run-ts.mjs test/streams/record-fixtures.ts [stream ...]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configSchema } from '../../src/config/schema.js';
import { startSimulator } from '../../src/simulator/index.js';
import { createSourceClient } from '../../src/source/client.js';
import { loadStream, STREAM_MANIFESTS } from '../../src/streams/load-stream.js';
import type { WorkUnitPlan } from '../../src/streams/types.js';
import { planContext } from './plan-support.js';

/** Records kept per fixture: enough to hold every child kind, small enough to read. */
const KEEP = 3;
const TODAY = '2024-06-15';
const wanted = process.argv.slice(2);

const sim = await startSimulator({
  port: 0,
  scale: 'small',
  seed: 11,
  today: TODAY,
  username: 'u',
  password: 'fixture-pw',
  rateLimit: 'off',
});
const propertyId = String(sim.dataset.properties[0].PropertyID);
try {
  for (const manifest of STREAM_MANIFESTS.filter(
    (candidate) => wanted.length === 0 || wanted.includes(candidate.name),
  )) {
    const stream = await loadStream(manifest.name);
    const lanes = await stream.plan(
      planContext(manifest.name, { today: TODAY, propertyIds: [propertyId], cursors: {}, expected: {} }),
    );
    const unit = lanes[0].steps.find((step): step is WorkUnitPlan => typeof step !== 'function')!;
    for (const version of manifest.method.versions) {
      const config = configSchema.parse({
        database: { url: 'postgres://x@localhost/x' },
        source: {
          url: sim.url,
          username: 'u',
          password: 'fixture-pw',
          pageSize: 50,
          versions: { [manifest.method.name]: version },
        },
      });
      const client = createSourceClient({ settings: config.accounts[0].source, timeZone: config.timeZone });
      const records: unknown[] = [];
      for await (const page of client.pages(unit.request)) records.push(...page.records);
      await client.close();
      // Records with the most kinds of children first (every child table shows up), the smallest of those.
      const kinds = (record: unknown) =>
        Object.values(record as object).filter((value) => value !== null && typeof value === 'object').length;
      const size = (record: unknown) => JSON.stringify(record).length;
      const kept = records.sort((a, b) => kinds(b) - kinds(a) || size(a) - size(b)).slice(0, KEEP);
      const file = fileURLToPath(
        new URL(`./${manifest.name}/fixtures/${manifest.method.name}-${version}.json`, import.meta.url),
      );
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(kept, null, 1)}\n`);
    }
  }
} finally {
  await sim.close();
}
