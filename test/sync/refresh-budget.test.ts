import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';

let h: SyncHarness;
beforeAll(async () => {
  h = await startSyncHarness({ scale: 'small', seed: 3, today: '2026-03-10' });
});
afterAll(async () => {
  await h?.close();
});

it('refreshes the reporting views under a statement budget of their own (database.refreshStatementTimeoutMs); a refresh out of budget is logged, the run still succeeds', async () => {
  h.config.database.refreshStatementTimeoutMs = 1;
  const starved = await h.sync();
  expect(starved.status).toBe('succeeded');
  const failed = h.logs.find((line) => line.event === 'reporting_refresh_failed' && line.runId === starved.runId);
  expect(String(failed?.err)).toMatch(/statement timeout/);

  h.config.database.refreshStatementTimeoutMs = 3_600_000;
  const next = await h.sync();
  expect(next.status).toBe('succeeded');
  expect(h.logs.some((line) => line.event === 'reporting_refreshed' && line.runId === next.runId)).toBe(true);
});
