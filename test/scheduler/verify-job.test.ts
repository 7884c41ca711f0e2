import { sql } from 'kysely';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPropsync } from '../../src/app/propsync.js';
import { createLogger } from '../../src/log/logger.js';
import { createSyncMetrics } from '../../src/app/metrics.js';
import { startVerifyJobs } from '../../src/scheduler/verify-job.js';
import { latestDrift } from '../../src/sync/verifications.js';
import { waitFor } from '../cli/support.js';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';

const quiet = () =>
  createLogger({
    level: 'warn',
    destination: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
  });

describe('scheduled verification (verify.cron, verify.sample)', () => {
  let h: SyncHarness;
  beforeAll(async () => {
    h = await startSyncHarness();
    expect((await h.sync()).status).toBe('succeeded');
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  it('verifies a sample of the properties at its cron, least recently verified first, and /metrics shows the drift it found', async () => {
    const db = h.warehouse.db;
    await sql`update ar_transactions set amount = amount + 5 where ar_transaction_id = (select min(ar_transaction_id) from ar_transactions)`.execute(
      db,
    );
    // Every second, half the properties: two runs cover all four.
    const config = { ...h.config, verify: { cron: '* * * * * *', sample: 50 } };
    const propsync = await openPropsync(config, { logger: quiet(), budget: 'whole' });
    const jobs = startVerifyJobs(propsync, ['leases']);
    try {
      await waitFor(
        async () =>
          (await db.selectFrom('sync_verifications').select('verification_id').execute()).length >= 2,
        20_000,
        'two scheduled verifications',
      );
    } finally {
      await jobs.stop();
      await propsync.close();
    }
    const passes = await db.selectFrom('sync_verifications').selectAll().orderBy('verification_id').execute();
    expect(passes[0]).toMatchObject({
      selection: 'sample',
      pass: 'check',
      streams: ['leases'],
      status: 'succeeded',
    });
    expect(passes[0].property_ids).toHaveLength(2);
    expect(new Set([...passes[0].property_ids, ...passes[1].property_ids]).size).toBe(4);
    // The edited row is found by whichever pass covered its property, and nothing was changed.
    expect(passes.some((pass) => !pass.clean && pass.drift_rows === 1)).toBe(true);

    const metrics = createSyncMetrics({
      defaultMetrics: false,
      verifyDrift: () => latestDrift(db, ['default']),
    });
    const text = await metrics.render();
    expect(text).toMatch(
      /propsync_verify_drift_rows\{account="default",stream="leases",table="ar_transactions",kind="missing"\} 0/,
    );
    const last = passes[passes.length - 1];
    expect(text).toContain(
      `propsync_verify_drift_rows{account="default",stream="leases",table="ar_transactions",kind="differing"} ${last.drift_rows}`,
    );
  }, 60_000);
});
