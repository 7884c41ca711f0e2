import type { Writable } from 'node:stream';
import type { LevelWithSilent } from 'pino';
import { createLogger, type Logger } from '../log/logger.js';

/** The logger of a process, at the configured level: pino JSON on stderr. */
export function loggerFor(config: { logLevel: string }, base: Record<string, unknown> = {}): Logger {
  return createLogger({ level: config.logLevel as never, base });
}

/** Whether the operator watches a terminal (progress bars, pretty logs, confirmation prompts). */
export function isTerminal(stream: { isTTY?: boolean } = process.stderr): boolean {
  return stream.isTTY === true;
}

/**
 * The logger of a process that may show progress bars: on a terminal, pino-pretty lines in
 * this thread written to `sink` (so they print above the bars); elsewhere pino JSON on stderr.
 * Either way secrets are censored by the logger's redaction paths.
 */
export async function displayLogger(
  config: { logLevel: string },
  options: { base?: Record<string, unknown>; sink?: Writable; terminal?: boolean } = {},
): Promise<Logger> {
  const level = config.logLevel as LevelWithSilent;
  if (!(options.terminal ?? isTerminal()) || !options.sink)
    return createLogger({ level, base: options.base ?? {}, pretty: false });
  const { default: pinoPretty } = await import('pino-pretty');
  const pretty = pinoPretty({
    colorize: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
    destination: options.sink,
    sync: true,
  });
  return createLogger({ level, base: options.base ?? {}, destination: pretty });
}
