/**
 * Records a getProperties reply of the simulator as the fixture of the properties tests, as the
 * client decodes it (JSON and XML decode alike). Run: node bin/run-ts.mjs test/streams/properties/record-fixtures.ts
 */
import { writeFileSync } from 'node:fs';
import { configSchema } from '../../../src/config/schema.js';
import { sourceSettingsOf } from '../../../src/config/source-settings.js';
import { startSimulator } from '../../../src/simulator/index.js';
import { createSourceClient } from '../../../src/source/index.js';
import { GET_PROPERTIES } from '../../../src/streams/properties/method.js';

const sim = await startSimulator({ port: 0, scale: 'small', seed: 11, today: '2024-06-15', username: 'u', password: 'fixture-pw', rateLimit: 'off' });
try {
  const config = configSchema.parse({ database: { url: 'postgres://x@localhost/x' }, source: { url: sim.url, username: 'u', password: 'fixture-pw' } });
  const client = createSourceClient({ settings: sourceSettingsOf(config.source), timeZone: config.timeZone });
  const records: unknown[] = [];
  for await (const page of client.pages({ method: GET_PROPERTIES, params: {} })) records.push(...page.records);
  await client.close();
  writeFileSync(new URL('./fixtures/getProperties-r1.json', import.meta.url), `${JSON.stringify(records, null, 1)}\n`);
} finally {
  await sim.close();
}
