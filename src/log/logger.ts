import { createRequire } from 'node:module';
import pino, { type Logger, type LevelWithSilent } from 'pino';
import { REDACT_PATHS } from './redact.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level?: LevelWithSilent;
  /** Pretty, coloured lines (pino-pretty) instead of JSON; default: when stderr is a terminal. */
  pretty?: boolean;
  /** Where JSON lines go; default stderr. Tests pass a stream to capture them. */
  destination?: NodeJS.WritableStream;
  /** Fields on every line (for example `{ demo: true }`). */
  base?: Record<string, unknown>;
}

/**
 * The process's logger: pino JSON, one event per line, secrets censored by path. Child
 * loggers add `runId` and `workUnit` so every line of a run says which work it belongs to.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const pretty = options.pretty ?? (!options.destination && process.stderr.isTTY === true);
  const settings: pino.LoggerOptions = {
    level: options.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '***' },
    base: { ...(options.base ?? {}) },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (pretty) return pino(settings, prettyStream({ destination: 2 }));
  return pino(
    settings,
    (options.destination as pino.DestinationStream | undefined) ?? pino.destination({ fd: 2, sync: true }),
  );
}

/**
 * pino-pretty's stream, written in this thread (no transport's worker, so pino is bundled) and
 * loaded only when asked for, on a terminal: coloured lines with their time, `options` on top.
 */
export function prettyStream(options: PrettyOptions): NodeJS.WritableStream {
  const pinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pinoPretty({
    colorize: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
    sync: true,
    ...options,
  });
}

type PrettyOptions = NonNullable<Parameters<typeof import('pino-pretty')>[0]>;

/** A child logger whose lines name the account: bound once, not again when the parent already names it. */
export function accountLogger(logger: Logger, account: string, fields: Record<string, unknown> = {}): Logger {
  return logger.child(logger.bindings().account === account ? fields : { account, ...fields });
}
