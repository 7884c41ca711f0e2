import type { Command } from 'commander';
import { sql } from 'kysely';
import type { StreamName } from '../../config/schema.js';
import { redactUrl } from '../../log/redact.js';
import { startHttpServer, type HttpEndpoint } from '../../scheduler/http-server.js';
import { createSyncMetrics } from '../../scheduler/metrics.js';
import { scheduledStreams, startScheduler } from '../../scheduler/scheduler.js';
import { createSourceClient } from '../../source/index.js';
import { runSync } from '../../sync/index.js';
import { callsToday, lastSuccessByStream } from '../../sync/status.js';
import { configFor, loggerFor, openWarehouse, requireMigrated } from '../context.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { collectStream } from '../options.js';

/** Longest wait for runs in flight after SIGINT/SIGTERM, leaving time to close within 30 s. */
const STOP_TIMEOUT_MS = 25_000;

/** `propsync schedule [--stream S]...`: the long-running scheduler with /healthz and /metrics. */
export function registerSchedule(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('schedule')
    .description('run each stream on its cron schedule until stopped, serving /healthz and /metrics')
    .option('--stream <name>', 'schedule only this stream (repeatable; default: the enabled ones)', collectStream)
    .addHelpText(
      'after',
      [
        '',
        'Schedules come from streams.<name>.schedule (cron, five fields or six with seconds) in',
        'timeZone. A run never overlaps another run of the same stream, in this process or in any',
        'other propsync on the same warehouse (a Postgres advisory lock; the loser logs run_skipped).',
        'Runs are also skipped once the day\'s call budget is spent by all processes together.',
        'SIGINT/SIGTERM: no new work; runs in flight stop after their page in flight; exits within',
        '30 s (0 when every run stopped in time, 1 otherwise). /healthz and /metrics listen on',
        'metrics.host:metrics.port (PROPSYNC_METRICS_PORT; 0 turns them off).',
        '',
        'Examples:',
        '  $ propsync schedule',
        '  $ PROPSYNC_METRICS_PORT=9464 propsync schedule --stream invoices',
        '  $ curl -s localhost:9464/metrics | grep propsync_last_success',
        '',
      ].join('\n'),
    )
    .action(async (options: { stream?: StreamName[] }, command: Command) => {
      const config = configFor(command);
      const logger = loggerFor(config);
      const streams = scheduledStreams(config, options.stream);
      const db = await openWarehouse(config.database.url, { maxConnections: streams.length * (config.source.concurrency + 1) + 2 });
      await requireMigrated(db).catch(async (error) => {
        await db.destroy();
        throw error;
      });
      const metrics = createSyncMetrics();
      for (const row of await lastSuccessByStream(db)) metrics.setLastSuccess(row.stream, row.at);
      const client = createSourceClient({ config: config.source, timeZone: config.timeZone, logger, onCall: metrics.onCall });
      const scheduler = startScheduler({
        config,
        db,
        client,
        logger,
        metrics,
        run: runSync,
        streams,
        beforeRun: async () => {
          const spent = (await callsToday(db)).get('*') ?? 0;
          return spent >= config.source.dailyCallBudget ? `today's call budget is spent (${spent} of ${config.source.dailyCallBudget} calls since midnight America/Denver)` : null;
        },
      });
      let http: HttpEndpoint | undefined;
      if (config.metrics.port > 0) {
        http = await startHttpServer({
          host: config.metrics.host,
          port: config.metrics.port,
          metrics,
          health: async () => {
            const database = await sql`select 1`.execute(db).then(() => 'ok', (error: Error) => error.message);
            return { ok: database === 'ok' && !scheduler.stopping(), stopping: scheduler.stopping(), database, jobs: scheduler.jobs() };
          },
        });
        logger.info({ event: 'http_listening', url: http.url }, `serving ${http.url}/healthz and ${http.url}/metrics`);
      }
      logger.info({ event: 'scheduler_started', streams, warehouse: redactUrl(config.database.url) }, `scheduler started for ${streams.join(', ')}; stop with SIGINT or SIGTERM`);

      const signal = await nextSignal();
      const stopping = Date.now();
      process.on('SIGINT', () => process.exit(EXIT.workFailed));
      process.on('SIGTERM', () => process.exit(EXIT.workFailed));
      logger.info({ event: 'scheduler_stopping', signal }, `${signal}: starting no new runs; waiting up to ${STOP_TIMEOUT_MS / 1000} s for the pages in flight`);
      const graceful = await scheduler.stop(STOP_TIMEOUT_MS);
      await http?.close();
      await client.close();
      if (graceful) await db.destroy();
      const ms = Date.now() - stopping;
      if (graceful) logger.info({ event: 'scheduler_stopped', ms }, `stopped in ${ms} ms; cursors and checkpoints are consistent`);
      else logger.error({ event: 'scheduler_stopped', ms }, `a run did not stop within ${STOP_TIMEOUT_MS / 1000} s; exiting anyway: its open transaction rolls back and the next run repeats that page`);
      done(graceful ? EXIT.ok : EXIT.workFailed);
    });
}

function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals) => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
      resolve(signal);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}
