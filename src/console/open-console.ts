import type { HttpRoutes } from '../app/http-server.js';
import { sessionTimeouts } from '../app/warehouse.js';
import type { Warehouse } from '../catalog/tables.js';
import type { ConsoleConfig } from '../config/console.js';
import type { Config, OfflineConfig, StreamName } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import { STREAM_NAMES } from '../streams/registry.js';
import { freshnessTargets } from '../sync/freshness.js';
import { connect } from '../warehouse/db.js';
import { consoleAccess } from './access.js';
import type { ConsoleContext } from './context.js';
import { consoleRoutes } from './handler.js';

/** The console of a process: its routes for the HTTP server, and its own pool to close. */
export interface OpenConsole {
  routes: HttpRoutes;
  close(): Promise<void>;
}

/**
 * Longest a console query may run: a page that would take longer fails alone (503) rather than
 * hold a connection a run may want.
 */
const CONSOLE_STATEMENT_TIMEOUT_MS = 15_000;

/**
 * The console of a server listening on `host`, or undefined when `console.enabled` is false.
 * Its access is checked first, so that a console that would be served openly (or a missing
 * secret) stops the start before anything opens. It reads through a pool of its own, two
 * connections with short limits, so that it never takes a connection from a run.
 */
export function openConsole(
  config: (Config | OfflineConfig) & { console: ConsoleConfig },
  options: {
    host: string;
    logger: Pick<Logger, 'warn'>;
    accounts?: readonly Config['accounts'][number][] | readonly OfflineConfig['accounts'][number][];
    env?: Readonly<Record<string, string | undefined>>;
  },
): OpenConsole | undefined {
  if (!config.console.enabled) return undefined;
  const access = consoleAccess(config.console, options.host, options.env);
  const accounts = (options.accounts ?? config.accounts).map((account) => ({
    id: account.id,
    name: account.name ?? null,
    timeZone: account.timeZone,
    dailyCallBudget: account.source.dailyCallBudget,
  }));
  const db = connect<Warehouse>(config.database.url, {
    maxConnections: 2,
    applicationName: 'propsync console',
    timeouts: {
      ...sessionTimeouts(config.database),
      statementTimeoutMs: Math.min(CONSOLE_STATEMENT_TIMEOUT_MS, config.database.statementTimeoutMs),
    },
  });
  const context: ConsoleContext = {
    db,
    accounts,
    streams: STREAM_NAMES.map((name: StreamName) => ({
      name,
      schedule: config.streams[name].enabled ? config.streams[name].schedule : null,
    })),
    freshness: freshnessTargets(config, accounts),
    abandonedAfterMinutes: config.abandonedAfterMinutes,
  };
  return { routes: consoleRoutes(context, access, options.logger), close: () => db.destroy() };
}
