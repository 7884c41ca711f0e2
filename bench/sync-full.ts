/**
 * Benchmark: a full sync of a simulator data set into a fresh database, then an incremental
 * sync right after, then one after `advance(7)`. Prints records, rows, calls and rates.
 *
 *   node bin/run-ts.mjs bench/sync-full.ts [small|medium|large] [json|xml]
 *
 * Uses BENCH_DATABASE_URL (a server where it may create a database), else the local
 * postgres://postgres@127.0.0.1:5432/postgres.
 */
import { configSchema } from '../src/config/schema.js';
import { createLogger } from '../src/log/logger.js';
import { startSimulator } from '../src/simulator/index.js';
import { createSourceClient } from '../src/source/index.js';
import { runSync } from '../src/sync/index.js';
import { connect, migrateToLatest } from '../src/warehouse-schema.js';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/warehouse/databases.js';

const scale = (process.argv[2] ?? 'medium') as 'small' | 'medium' | 'large';
const format = (process.argv[3] ?? 'json') as 'json' | 'xml';
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `propsync_bench_${process.pid}`;

const t0 = Date.now();
const sim = await startSimulator({ port: 0, scale, seed: 1, today: '2026-06-15', username: 'bench', password: 'bench-password', rateLimit: 'off' });
console.log(`simulator ${scale}: ${sim.dataset.leases.length} leases, ${sim.dataset.invoices.length} invoices, started in ${Date.now() - t0} ms`);
await ensureDatabase(adminUrl, name);
const url = withDatabase(adminUrl, name);
const db = connect(url, { maxConnections: 8 });
await migrateToLatest(db);
const config = configSchema.parse({
  database: { url },
  source: { url: sim.url, username: 'bench', password: 'bench-password', format, pageSize: 500, concurrency: 4, maxClockSkewHours: 0 },
  logLevel: 'warn',
});
const logger = createLogger({ level: 'warn' });

async function run(label: string) {
  const client = createSourceClient({ config: config.source, timeZone: config.timeZone });
  const started = Date.now();
  const s = await runSync({ kind: 'sync' }, { db, client, config, logger });
  const seconds = (Date.now() - started) / 1000;
  await client.close();
  const rows = s.rowsInserted + s.rowsUpdated + s.rowsUnchanged;
  console.log(
    `${label.padEnd(22)} ${s.status.padEnd(9)} ${String(s.workUnits.total).padStart(5)} units ${String(s.calls).padStart(5)} calls ` +
      `${String(s.records).padStart(7)} records ${String(rows).padStart(9)} rows (${s.rowsInserted} ins, ${s.rowsUpdated} upd, ${s.rowsDeleted} del) ` +
      `${(s.bytes / 1e6).toFixed(1)} MB ${seconds.toFixed(1)} s ${(s.records / seconds).toFixed(0)} records/s ${(rows / seconds).toFixed(0)} rows/s`,
  );
}

try {
  await run('full (first) sync');
  await run('incremental, no change');
  sim.advance(7);
  await run('incremental, +7 days');
} finally {
  await db.destroy();
  await dropDatabase(adminUrl, name);
  await sim.close();
}
