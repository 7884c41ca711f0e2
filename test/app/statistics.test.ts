import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPropsync } from '../../src/app/propsync.js';
import { createLogger } from '../../src/log/logger.js';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';

let h: SyncHarness;
beforeAll(async () => {
  h = await startSyncHarness({ scale: 'small', seed: 4, today: '2026-03-10' });
});
afterAll(async () => {
  await h?.close();
});

/** A run through the app (which analyzes and refreshes after the engine), its log lines kept. */
async function syncThroughApp() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  const propsync = await openPropsync(h.config, {
    logger: createLogger({ level: 'info', destination: sink }),
  });
  try {
    const [run] = await propsync.run({ kind: 'sync' });
    return { summary: run.summary!, lines };
  } finally {
    await propsync.close();
  }
}

/** When each source table was last analyzed (by anyone), null for never. */
async function lastAnalyzed(): Promise<Map<string, string | null>> {
  const { rows } = await sql<{ name: string; at: string | null }>`
    select relname as name, greatest(last_analyze, last_autoanalyze)::text as at from pg_stat_user_tables
     where relname in ('leases', 'ar_transactions', 'invoices', 'invoice_line_items')`.execute(
    h.warehouse.db,
  );
  return new Map(rows.map((row) => [row.name, row.at]));
}

it('analyzes the tables a first load fills after it, before the reporting refresh, and none after a run that changed little', async () => {
  const full = await syncThroughApp();
  expect(full.summary.status).toBe('succeeded');
  // A first load looks nothing up, so it takes no statistics while it loads (docs/sync.md).
  expect(full.lines.some((line) => line.event === 'first_load')).toBe(true);
  const taken = full.lines.filter((line) => line.event === 'statistics_taken');
  expect(taken).toEqual([]);
  const analyzed = full.lines.find((line) => line.event === 'statistics_analyzed');
  // Before the views are refreshed from them.
  expect(full.lines.indexOf(analyzed!)).toBeLessThan(
    full.lines.findIndex((line) => line.event === 'reporting_refreshed'),
  );
  const { rows } = await sql<{
    n: number;
  }>`select count(*)::int as n from pg_stats where schemaname = current_schema() and tablename = 'ar_transactions'`.execute(
    h.warehouse.db,
  );
  expect(rows[0].n).toBeGreaterThan(0);
  // Each analyzed by the run after it loaded, unless autovacuum happened to get there first.
  const { rows: auto } = await sql<{
    name: string;
  }>`select relname as name from pg_stat_user_tables where last_autoanalyze is not null`.execute(
    h.warehouse.db,
  );
  const byRun = [...taken, analyzed].flatMap((line) => (line?.tables as string[] | undefined) ?? []);
  for (const table of ['leases', 'ar_transactions', 'invoices', 'invoice_line_items']) {
    expect([...byRun, ...auto.map((row) => row.name)], table).toContain(table);
  }
  const after = await lastAnalyzed();
  for (const [table, at] of after) expect(at, table).not.toBeNull();

  // The same listing again: no table grew, nothing analyzed.
  const rerun = await syncThroughApp();
  expect(rerun.summary.status).toBe('succeeded');
  expect(rerun.lines.find((line) => line.event === 'statistics_analyzed')).toBeUndefined();
  expect(rerun.lines.find((line) => line.event === 'statistics_taken')).toBeUndefined();
  expect(rerun.lines.some((line) => line.event === 'reporting_refreshed')).toBe(true);
});
