/**
 * A warehouse with a history an operator would look at, made by real runs against the simulator
 * over HTTP: a clean run, one that quarantined damaged records, one whose invoice units failed
 * (the source answered 500), a clean run again, a verify pass that found drift, and a run put on
 * the queue with no worker to take it. Used by the browser test and by `npm run docs:console`.
 */
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { openBoss, ensureQueues } from '../../src/queue/boss.js';
import { enqueueRun } from '../../src/queue/enqueue-run.js';
import { createLogger } from '../../src/log/logger.js';
import { createSourceClient } from '../../src/source/client.js';
import { STREAM_NAMES } from '../../src/streams/registry.js';
import { verifyAccount } from '../../src/sync/verify-account.js';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';

export interface ConsoleWorld {
  h: SyncHarness;
  /** The run whose invoice units failed. */
  failedRunId: number;
  /** A unit of it that failed, with its error. */
  failedUnit: { workUnitId: number; error: string };
  close(): Promise<void>;
}

const quiet = () =>
  createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, callback) => callback() }) });

export async function buildConsoleWorld(options: { scale?: 'small' | 'medium' } = {}): Promise<ConsoleWorld> {
  const h = await startSyncHarness({ today: '2026-06-15', scale: options.scale });
  const db = h.warehouse.db;
  const [account] = h.config.accounts;
  const first = await h.sync();
  if (first.status !== 'succeeded') throw new Error(`the first run ended ${first.status}`);
  h.sim.advance(1);
  h.sim.setFaults('badrecord@0.03:kind=date|id');
  await h.sync();
  h.sim.advance(1);
  h.sim.setFaults('500:method=getInvoices');
  const failing = await h.sync();
  h.sim.setFaults(undefined);
  h.sim.advance(1);
  await h.sync();

  // Drift behind the sync's back, then a verify pass that names it.
  await sql`update ar_transactions set amount = amount + 1 where account_id = ${account.id}
             and ar_transaction_id = (select min(ar_transaction_id) from ar_transactions where account_id = ${account.id})`.execute(
    db,
  );
  const client = createSourceClient({
    settings: account.source,
    timeZone: account.timeZone,
    logger: quiet(),
  });
  try {
    await verifyAccount(
      { streams: [...STREAM_NAMES], selection: { kind: 'all' }, pass: 'check' },
      { db, client, config: h.config, account, logger: quiet() },
    );
  } finally {
    await client.close();
  }

  // A run on the queue, with no worker to take its lanes.
  const boss = await openBoss(h.config.database.url, quiet(), { maxConnections: 2 });
  const queueClient = createSourceClient({
    settings: account.source,
    timeZone: account.timeZone,
    logger: quiet(),
  });
  try {
    await ensureQueues(db, boss, [account.id]);
    await enqueueRun(
      { kind: 'sync', streams: [...STREAM_NAMES] },
      { db, boss, config: h.config, account, client: queueClient, logger: quiet() },
    );
  } finally {
    await queueClient.close();
    await boss.stop({ graceful: false, close: true, wait: true });
  }

  const unit = await db
    .selectFrom('sync_work_units')
    .select(['work_unit_id', 'error'])
    .where('run_id', '=', failing.runId)
    .where('error', 'is not', null)
    .orderBy('work_unit_id')
    .executeTakeFirst();
  if (!unit?.error) throw new Error(`run ${failing.runId} (${failing.status}) has no failed unit`);
  return {
    h,
    failedRunId: failing.runId,
    failedUnit: { workUnitId: Number(unit.work_unit_id), error: unit.error },
    close: () => h.close(),
  };
}
