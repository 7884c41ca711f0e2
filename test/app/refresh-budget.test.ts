import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPropsync } from '../../src/app/propsync.js';
import { createLogger } from '../../src/log/logger.js';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';

let h: SyncHarness;
beforeAll(async () => {
  h = await startSyncHarness({ scale: 'small', seed: 3, today: '2026-03-10' });
});
afterAll(async () => {
  await h?.close();
});

/** A run through the app (which refreshes the reporting views after the engine), its log lines kept. */
async function syncThroughApp(refreshStatementTimeoutMs: number) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  const config = { ...h.config, database: { ...h.config.database, refreshStatementTimeoutMs } };
  const propsync = await openPropsync(config, { logger: createLogger({ level: 'info', destination: sink }) });
  try {
    const [run] = await propsync.run({ kind: 'sync' });
    return { summary: run.summary!, lines };
  } finally {
    await propsync.close();
  }
}

it('refreshes the reporting views under a statement budget of their own (database.refreshStatementTimeoutMs); a refresh out of budget is logged, the run still succeeds', async () => {
  const starved = await syncThroughApp(1);
  expect(starved.summary.status).toBe('succeeded');
  const failed = starved.lines.find((line) => line.event === 'reporting_refresh_failed');
  expect(String(failed?.err)).toMatch(/statement timeout/);

  const next = await syncThroughApp(3_600_000);
  expect(next.summary.status).toBe('succeeded');
  expect(next.lines.some((line) => line.event === 'reporting_refreshed')).toBe(true);
});
