import { Writable } from 'node:stream';
import cliProgress from 'cli-progress';
import type { Logger } from '../log/logger.js';
import type { SyncObserver } from '../sync/types.js';

/** `bars`: a progress bar per stream on a terminal; `log`: a pino line per stream every `intervalMs`. */
export type ProgressMode = 'bars' | 'log';

/** Bars need a terminal to draw on; log lines need the command's logger. */
export type ProgressOptions =
  | {
      mode: 'bars';
      /** Where bars are drawn; default stderr. */
      output?: NodeJS.WritableStream;
      /** Text before each bar, e.g. `[demo] `. */
      label?: string;
    }
  | {
      mode: 'log';
      logger: Logger;
      /** Period of the lines; default 10 s. */
      intervalMs?: number;
      /** Where the sink writes; default stderr. */
      output?: NodeJS.WritableStream;
    };

/** A run's progress display, driven by the engine's observer events. */
export interface Progress {
  observer: SyncObserver;
  /**
   * Where log lines should go while bars are drawn: each line is printed above the bars
   * instead of through them. Writes straight to the output when no bars are shown.
   */
  sink: Writable;
  /** Removes the bars and stops the periodic lines. */
  stop(): void;
}

/** Counters of one stream in the current run. */
export interface StreamProgress {
  total: number;
  done: number;
  failed: number;
  records: number;
  calls: number;
  startedAt: number;
}

/** Records per second and seconds left of a stream's progress at `now`. */
export function rateAndEta(
  progress: StreamProgress,
  now: number,
): { recordsPerSecond: number; etaSeconds: number | null } {
  const elapsed = Math.max((now - progress.startedAt) / 1000, 0.001);
  const recordsPerSecond = progress.records / elapsed;
  const left = progress.total - progress.done;
  const etaSeconds =
    progress.done === 0 ? null : left <= 0 ? 0 : Math.round((elapsed / progress.done) * left);
  return { recordsPerSecond, etaSeconds };
}

/** Seconds as `42s`, `3m05s`, `1h02m`; `?` while unknown. */
export function formatSeconds(seconds: number | null): string {
  if (seconds === null) return '?';
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

/** Chooses bars on a terminal and periodic log lines elsewhere. */
export function progressModeFor(stream: { isTTY?: boolean } = process.stderr): ProgressMode {
  return stream.isTTY === true && process.env.CI === undefined ? 'bars' : 'log';
}

/** One stream of one account's run, as displayed. */
interface Shown {
  account: string;
  stream: string;
  runId: number;
  progress: StreamProgress;
}

/**
 * Creates the progress display of a command; one instance can follow several runs in turn, and
 * the runs of several accounts at once (each account's streams apart, named `account/stream`
 * unless the only account is `default`). The display ends when the last run going ends.
 */
export function createProgress(options: ProgressOptions): Progress {
  const output = options.output ?? process.stderr;
  const label = options.mode === 'bars' ? (options.label ?? '') : '';
  // By `account/stream`; the runs going on, by account.
  const shown = new Map<string, Shown>();
  const running = new Set<string>();
  let multibar: cliProgress.MultiBar | undefined;
  let bars = new Map<string, cliProgress.SingleBar>();
  let timer: NodeJS.Timeout | undefined;

  const keyOf = (event: { account: string; stream: string }) => `${event.account}/${event.stream}`;
  const nameOf = (entry: Shown) =>
    [...shown.values()].some((other) => other.account !== 'default')
      ? `${entry.account}/${entry.stream}`
      : entry.stream;

  const payload = (entry: Shown) => {
    const { progress } = entry;
    const { recordsPerSecond, etaSeconds } = rateAndEta(progress, Date.now());
    return {
      stream: nameOf(entry).padEnd(8),
      records: progress.records,
      calls: progress.calls,
      rate: recordsPerSecond.toFixed(0),
      left: formatSeconds(etaSeconds),
      failed: progress.failed ? ` | ${progress.failed} failed` : '',
    };
  };

  const redraw = (key: string) => {
    const entry = shown.get(key);
    const bar = bars.get(key);
    if (!entry || !bar) return;
    if (entry.progress.total !== bar.getTotal()) bar.setTotal(entry.progress.total);
    bar.update(entry.progress.done, payload(entry));
  };

  const logLines = (logger: Logger) => {
    const now = Date.now();
    for (const entry of shown.values()) {
      const { account, stream, runId, progress } = entry;
      const { recordsPerSecond, etaSeconds } = rateAndEta(progress, now);
      logger.info(
        {
          account,
          runId,
          stream,
          workUnits: progress.done,
          workUnitsTotal: progress.total,
          failed: progress.failed,
          records: progress.records,
          calls: progress.calls,
          recordsPerSecond: Math.round(recordsPerSecond),
          etaSeconds,
        },
        `progress ${nameOf(entry)}: ${progress.done}/${progress.total} work ` +
          `units, ${progress.records} records, ${progress.calls} calls`,
      );
    }
  };

  const stopDisplay = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    multibar?.stop();
    multibar = undefined;
    bars = new Map();
    running.clear();
  };

  const observer: SyncObserver = {
    onRunStart(event) {
      // A run starting while none goes on starts a new display; one starting beside another joins it.
      if (running.size === 0) {
        stopDisplay();
        shown.clear();
      }
      running.add(event.account);
      const now = Date.now();
      const added: string[] = [];
      for (const stream of event.streams) {
        const key = keyOf({ account: event.account, stream });
        shown.set(key, {
          account: event.account,
          stream,
          runId: event.runId,
          progress: {
            total: event.byStream[stream] ?? 0,
            done: 0,
            failed: 0,
            records: 0,
            calls: 0,
            startedAt: now,
          },
        });
        added.push(key);
      }
      if (options.mode === 'bars') {
        multibar ??= new cliProgress.MultiBar(
          {
            format:
              `${label}{stream} [{bar}] {value}/{total} work units | {records} records | {calls} calls | ` +
              `{rate} rec/s | {left} left{failed}`,
            stream: output,
            hideCursor: true,
            clearOnComplete: false,
            barsize: 24,
            fps: 5,
          },
          cliProgress.Presets.shades_classic,
        );
        for (const key of added) {
          const entry = shown.get(key)!;
          const earlier = bars.get(key);
          if (earlier) multibar.remove(earlier);
          bars.set(key, multibar.create(Math.max(entry.progress.total, 1), 0, payload(entry)));
        }
        for (const key of bars.keys()) redraw(key);
      } else {
        const { logger } = options;
        logger.info(
          {
            account: event.account,
            runId: event.runId,
            workUnits: event.workUnits,
            byStream: event.byStream,
          },
          `run ${event.runId} planned ${event.workUnits} work units`,
        );
        timer ??= setInterval(() => logLines(logger), options.intervalMs ?? 10_000);
        timer.unref();
      }
    },
    onWorkUnitStart(event) {
      const key = keyOf(event);
      const entry = shown.get(key);
      if (entry && entry.progress.done >= entry.progress.total) {
        entry.progress.total = entry.progress.done + 1;
        redraw(key);
      }
    },
    onPage(event) {
      const key = keyOf(event);
      const entry = shown.get(key);
      if (!entry) return;
      entry.progress.records += event.records;
      entry.progress.calls += event.calls;
      redraw(key);
    },
    onWorkUnitEnd(event) {
      const key = keyOf(event);
      const entry = shown.get(key);
      if (!entry) return;
      entry.progress.done += 1;
      if (event.status === 'failed') entry.progress.failed += 1;
      if (entry.progress.done > entry.progress.total) entry.progress.total = entry.progress.done;
      redraw(key);
    },
    onRunEnd(summary) {
      for (const key of shown.keys()) redraw(key);
      running.delete(summary.account);
      if (running.size === 0) stopDisplay();
    },
  };

  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      const text = chunk.toString();
      if (multibar) {
        multibar.log(text.endsWith('\n') ? text : `${text}\n`);
        // log() only buffers; a redraw prints the line above the bars at once.
        multibar.update();
      } else output.write(text);
      callback();
    },
  });

  return { observer, sink, stop: stopDisplay };
}
