import type { Writable } from 'node:stream';
import type { LevelWithSilent } from 'pino';
import { createLogger, prettyStream, type Logger } from '../log/logger.js';

/** The logger of a process, at the configured level: pino JSON on stderr. */
export function loggerFor(config: { logLevel: string }, base: Record<string, unknown> = {}): Logger {
  return createLogger({ level: config.logLevel as never, base });
}

/** Whether the operator watches a terminal (progress bars, pretty logs, confirmation prompts). */
export function isTerminal(stream: { isTTY?: boolean } = process.stderr): boolean {
  return stream.isTTY === true;
}

/**
 * The level a terminal shows: warnings and errors (the bars and the summary say the rest), or
 * every line when the configured level asks for more than `info` (debug, trace).
 */
export function terminalLevel(level: string): LevelWithSilent {
  return level === 'info' ? 'warn' : (level as LevelWithSilent);
}

/** A log record as one terminal line: the account, the message and an error's own text, no fields. */
function oneLine(log: Record<string, unknown>, messageKey: string): string {
  const account = typeof log.account === 'string' ? `${log.account}: ` : '';
  let message = String(log[messageKey] ?? '');
  const error = (log.err ?? log.error) as { message?: unknown } | string | undefined;
  const detail = typeof error === 'string' ? error : typeof error?.message === 'string' ? error.message : '';
  if (detail && !message.includes(detail)) message = message ? `${message}: ${detail}` : detail;
  return `${account}${message}`.replace(/\s*\n\s*/g, ' ');
}

/**
 * The logger of a process that may show progress bars: on a terminal, one line per warning or
 * error (every record at debug or trace) in this thread written to `sink`, so they print above
 * the bars; elsewhere pino JSON on stderr at the configured level. Either way secrets are
 * censored by the logger's redaction paths.
 */
export function displayLogger(
  config: { logLevel: string },
  options: { base?: Record<string, unknown>; sink?: Writable; terminal?: boolean } = {},
): Logger {
  const level = config.logLevel as LevelWithSilent;
  if (!(options.terminal ?? isTerminal()) || !options.sink)
    return createLogger({ level, base: options.base ?? {}, pretty: false });
  const pretty = prettyStream({
    hideObject: true,
    messageFormat: (log, messageKey) => oneLine(log, messageKey),
    destination: options.sink,
  });
  return createLogger({ level: terminalLevel(level), base: options.base ?? {}, destination: pretty });
}
