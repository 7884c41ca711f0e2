import { EXIT, type ExitCode } from '../app/exit-codes.js';
import { databaseHealth } from '../app/health.js';
import { startHttpServer } from '../app/http-server.js';
import { loggerFor } from '../app/logger.js';
import { selectedAccounts } from '../app/propsync.js';
import { nextSignal } from '../app/signals.js';
import { openMigratedWarehouse } from '../app/warehouse.js';
import type { OfflineConfig } from '../config/schema.js';
import { openConsole } from './open-console.js';

/**
 * `propsync console`: the console alone (for users who run `sync` from cron), with /healthz, on
 * `host:port`, until SIGINT/SIGTERM/SIGHUP. The warehouse must be migrated; the console's
 * access is checked before anything opens (exit 2 with what to fix).
 */
export async function runConsoleProcess(
  config: OfflineConfig,
  options: { host: string; port: number; accounts?: readonly string[] },
): Promise<ExitCode> {
  const logger = loggerFor(config);
  const accounts = selectedAccounts(config.accounts, options.accounts);
  const web = openConsole(
    { ...config, console: { ...config.console, enabled: true } },
    { host: options.host, logger, accounts },
  )!;
  const db = await openMigratedWarehouse(config.database, { maxConnections: 1 }).catch(async (error) => {
    await web.close();
    throw error;
  });
  const http = await startHttpServer({
    host: options.host,
    port: options.port,
    routes: web.routes,
    health: async () => {
      const database = await databaseHealth(db);
      return { ok: database === 'ok', database };
    },
  });
  logger.info(
    { event: 'console_listening', url: http.url, auth: config.console.auth?.type ?? 'none' },
    `serving the console at ${http.url}/ (and ${http.url}/healthz); stop with SIGINT, SIGTERM or SIGHUP`,
  );
  const signal = await nextSignal(() => process.exit(EXIT.ok));
  logger.info({ event: 'console_stopping', signal }, `${signal}: closing the console`);
  await http.close();
  await web.close();
  await db.destroy();
  return EXIT.ok;
}
