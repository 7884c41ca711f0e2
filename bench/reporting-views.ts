/**
 * Benchmark (not a test) of the reporting views on the `large` (or `--scale medium`) data set:
 *   node bin/run-ts.mjs bench/reporting-views.ts [--scale medium|large] [--runs N] [--reload] [--load-only]
 * Its database and options: docs/benchmark.md#reporting-views
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { configSchema } from '../src/config/schema.js';
import { createLogger } from '../src/log/logger.js';
import { startSimulator } from '../src/simulator/index.js';
import { createSourceClient } from '../src/source/client.js';
import { runSync } from '../src/sync/engine.js';
import { BASE_TABLE_NAMES, type Db, type Warehouse } from '../src/catalog/tables.js';
import { analyzeChanged } from '../src/warehouse/statistics.js';
import { connect } from '../src/warehouse/db.js';
import { migrateWarehouse } from '../src/app/migrate-warehouse.js';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/warehouse/databases.js';
import { refreshReporting } from '../src/reporting/refresh.js';
import { REPORTING_VIEWS } from '../src/reporting/views.js';

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: 'large' },
    runs: { type: 'string', default: '5' },
    reload: { type: 'boolean', default: false },
    'load-only': { type: 'boolean', default: false },
  },
});
if (args.scale !== 'medium' && args.scale !== 'large') {
  console.error(`--scale: expected medium or large, got '${args.scale}'`);
  process.exit(2);
}
const scale: 'medium' | 'large' = args.scale;
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = scale === 'large' ? 'propsync_bench_reporting' : `propsync_bench_reporting_${scale}`;
const url = withDatabase(adminUrl, name);
/** Times each query is run (`--runs N`). */
const RUNS = Number(args.runs);

/** Whether the bench database holds a finished full load already. */
async function loaded(): Promise<boolean> {
  await ensureDatabase(adminUrl, name);
  const db = connect<Warehouse>(url, { maxConnections: 1 });
  try {
    const { rows } = await sql<{ done: boolean }>`
      select to_regclass('public.sync_runs') is not null
             and exists (select 1 from sync_runs where status = 'succeeded') as done`.execute(db);
    return rows[0].done;
  } catch {
    return false;
  } finally {
    await db.destroy();
  }
}

/** Loads the data set of `scale` (seed 1) into a fresh bench database with one full sync. */
async function load(): Promise<void> {
  await dropDatabase(adminUrl, name);
  await ensureDatabase(adminUrl, name);
  const started = Date.now();
  const sim = await startSimulator({
    port: 0,
    scale,
    seed: 1,
    today: '2026-06-15',
    username: 'bench',
    password: 'bench-password',
    rateLimit: 'off',
  });
  console.log(
    `simulator ${scale}: ${sim.dataset.leases.length} leases, ${sim.dataset.invoices.length} invoices`,
  );
  const db = connect<Warehouse>(url, { maxConnections: 8 });
  try {
    await migrateWarehouse(db);
    const config = configSchema.parse({
      database: { url },
      source: {
        url: sim.url,
        username: 'bench',
        password: 'bench-password',
        maxClockSkewHours: 0,
        pageSize: 500,
        concurrency: 4,
        dailyCallBudget: 1_000_000,
      },
      logLevel: 'warn',
    });
    const client = createSourceClient({ settings: config.accounts[0].source, timeZone: config.timeZone });
    const summary = await runSync(
      { kind: 'sync' },
      { db, client, config, account: config.accounts[0], logger: createLogger({ level: 'warn' }) },
    );
    await client.close();
    // What `propsync sync` does after a run (src/app/propsync.ts): the views are read analyzed.
    await analyzeChanged(db, BASE_TABLE_NAMES);
    console.log(
      `full load: ${summary.status}, ${summary.records} records, ${summary.rowsInserted} rows, ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  } finally {
    await db.destroy();
    await sim.close();
  }
}

/** Runs `query` `runs` times on one connection; returns the times in ms, sorted. */
async function time(db: Db, query: string, runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await sql.raw(query).execute(db);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

const ms = (value: number) => `${value.toFixed(0).padStart(6)} ms`;

if (args.reload || !(await loaded())) await load();
else console.log(`reusing the loaded data set in ${name} (--reload loads it again)`);
if (!args['load-only']) {
  const db: Db = connect<Warehouse>(url, { maxConnections: 1 });
  try {
    await migrateWarehouse(db);
    const refreshStarted = performance.now();
    const { refreshed } = await refreshReporting(db, { timeZone: 'America/Denver' });
    console.log(
      `refresh at the end of a sync (${refreshed.join(', ')}): ${ms(performance.now() - refreshStarted)}`,
    );
    const { rows } = await sql<{
      rows: string;
    }>`select (select count(*) from ar_transactions) || ' AR transactions, ' || (select count(*) from leases) || ' leases, ' || (select count(*) from invoice_line_items) || ' invoice lines' as rows`.execute(
      db,
    );
    console.log(
      `${rows[0].rows}; load average ${loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')} on ${cpus().length} cores`,
    );
    console.log(
      `${'view'.padEnd(24)} ${'kind'.padEnd(12)} ${'rows'.padStart(7)}  select * (best, median of ${RUNS})   dashboard query (best, median)`,
    );
    for (const view of REPORTING_VIEWS) {
      const count = await sql<{
        n: number;
      }>`select count(*)::int as n from ${sql.id('reporting', view.name)}`.execute(db);
      const all = await time(db, `select * from reporting.${view.name}`, RUNS);
      const example = await time(db, view.example, RUNS);
      const median = (times: number[]) => times[Math.floor(times.length / 2)];
      console.log(
        `${view.name.padEnd(24)} ${(view.maintained ? 'maintained' : view.materialized ? 'materialized' : 'view').padEnd(12)} ${String(count.rows[0].n).padStart(7)}  ${ms(all[0])} ${ms(median(all))}                 ${ms(example[0])} ${ms(median(example))}`,
      );
    }
  } finally {
    await db.destroy();
  }
}
