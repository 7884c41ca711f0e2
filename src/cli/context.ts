import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import type { LevelWithSilent } from 'pino';
import { loadConfig, loadOfflineConfig } from '../config/load.js';
import type { Config, OfflineConfig } from '../config/schema.js';
import { createLogger, type Logger } from '../log/logger.js';
import { redactUrl } from '../log/redact.js';
import type { Db } from '../warehouse-schema.js';
import type { ConnectOptions } from '../warehouse/db.js';
import { CliError, EXIT } from './exit-codes.js';

/** Options every command accepts. */
export interface GlobalOptions {
  config?: string;
}

/** The global options of the program a command belongs to. */
export function globalOptions(command: Command): GlobalOptions {
  let root = command;
  while (root.parent) root = root.parent;
  return root.opts<GlobalOptions>();
}

/** The full configuration (source included) for commands that call the source. */
export function configFor(command: Command): Config {
  return loadConfig({ configPath: globalOptions(command).config });
}

/** The configuration of commands that only touch the warehouse. */
export function offlineConfigFor(command: Command): OfflineConfig {
  return loadOfflineConfig({ configPath: globalOptions(command).config });
}

/** The logger of a command, at the configured level. */
export function loggerFor(config: { logLevel: string }, base: Record<string, unknown> = {}): Logger {
  return createLogger({ level: config.logLevel as never, base });
}

/** Whether the operator watches a terminal (progress bars, pretty logs, confirmation prompts). */
export function isTerminal(stream: { isTTY?: boolean } = process.stderr): boolean {
  return stream.isTTY === true;
}

/**
 * The logger of a command that may show progress bars: on a terminal, pino-pretty lines in
 * this thread written to `sink` (so they print above the bars); elsewhere pino JSON on stderr.
 * Either way secrets are censored by the logger's redaction paths.
 */
export async function commandLogger(config: { logLevel: string }, options: { base?: Record<string, unknown>; sink?: Writable; terminal?: boolean } = {}): Promise<Logger> {
  const level = config.logLevel as LevelWithSilent;
  if (!(options.terminal ?? isTerminal()) || !options.sink) return createLogger({ level, base: options.base ?? {}, pretty: false });
  const { default: pinoPretty } = await import('pino-pretty');
  const pretty = pinoPretty({ colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', destination: options.sink, sync: true });
  return createLogger({ level, base: options.base ?? {}, destination: pretty });
}

/**
 * Opens the warehouse of a command and checks that it answers. A warehouse that cannot be
 * reached is a configuration problem for the operator (exit 2), reported without its password.
 */
export async function openWarehouse(url: string, options: ConnectOptions = {}): Promise<Db> {
  // Loaded on first use: kysely and pg are slow to load, and --help needs neither.
  const [{ sql }, { connect }] = await Promise.all([import('kysely'), import('../warehouse-schema.js')]);
  const db = connect(url, { applicationName: 'propsync', ...options });
  try {
    await sql`select 1`.execute(db);
    return db;
  } catch (error) {
    await db.destroy().catch(() => {});
    throw new CliError(`cannot reach the warehouse at ${redactUrl(url)}: ${(error as Error).message}; check DATABASE_URL (or database.url) and that Postgres is running`, EXIT.usage);
  }
}

/** The migrations that the warehouse has not applied yet, by name. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const { pendingMigrations: pending } = await import('../warehouse/migrate.js');
  return pending(db);
}

/** Fails with exit 2 and "run propsync migrate" unless every migration has been applied. */
export async function requireMigrated(db: Db): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length) {
    throw new CliError(`the warehouse is not migrated (pending: ${pending.join(', ')}); run \`propsync migrate\` first`, EXIT.usage);
  }
}

/**
 * An AbortSignal that SIGINT or SIGTERM aborts: the engine then starts no new page or work unit
 * and lets the page in flight commit or roll back. A second signal ends the process at once
 * (Postgres rolls back the open transaction). `dispose` removes the handlers.
 */
export function abortOnSignals(logger: Logger, what: string): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const handler = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      logger.warn({ event: 'signal', signal: name }, `${name} again: stopping at once; the page in flight rolls back`);
      process.exit(EXIT.workFailed);
    }
    logger.warn({ event: 'signal', signal: name }, `${name}: stopping ${what} after the page in flight (send it again to stop at once)`);
    controller.abort(new Error(`stopped by ${name}`));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
