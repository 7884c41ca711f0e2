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
export function rateAndEta(progress: StreamProgress, now: number): { recordsPerSecond: number; etaSeconds: number | null } {
  const elapsed = Math.max((now - progress.startedAt) / 1000, 0.001);
  const recordsPerSecond = progress.records / elapsed;
  const left = progress.total - progress.done;
  const etaSeconds = progress.done === 0 ? null : left <= 0 ? 0 : Math.round((elapsed / progress.done) * left);
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

/** Creates the progress display of a command; one instance can follow several runs in turn. */
export function createProgress(options: ProgressOptions): Progress {
  const output = options.output ?? process.stderr;
  const label = options.mode === 'bars' ? (options.label ?? '') : '';
  const streams = new Map<string, StreamProgress>();
  let runId: number | undefined;
  let multibar: cliProgress.MultiBar | undefined;
  let bars = new Map<string, cliProgress.SingleBar>();
  let timer: NodeJS.Timeout | undefined;

  const payload = (stream: string, progress: StreamProgress) => {
    const { recordsPerSecond, etaSeconds } = rateAndEta(progress, Date.now());
    return {
      stream: stream.padEnd(8),
      records: progress.records,
      calls: progress.calls,
      rate: recordsPerSecond.toFixed(0),
      left: formatSeconds(etaSeconds),
      failed: progress.failed ? ` | ${progress.failed} failed` : '',
    };
  };

  const redraw = (stream: string) => {
    const progress = streams.get(stream);
    const bar = bars.get(stream);
    if (!progress || !bar) return;
    if (progress.total !== bar.getTotal()) bar.setTotal(progress.total);
    bar.update(progress.done, payload(stream, progress));
  };

  const logLines = (logger: Logger) => {
    const now = Date.now();
    for (const [stream, progress] of streams) {
      const { recordsPerSecond, etaSeconds } = rateAndEta(progress, now);
      logger.info(
        { runId, stream, workUnits: progress.done, workUnitsTotal: progress.total, failed: progress.failed, records: progress.records, calls: progress.calls, recordsPerSecond: Math.round(recordsPerSecond), etaSeconds },
        `progress ${stream}: ${progress.done}/${progress.total} work units, ${progress.records} records, ${progress.calls} calls`,
      );
    }
  };

  const stopDisplay = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    multibar?.stop();
    multibar = undefined;
    bars = new Map();
  };

  const observer: SyncObserver = {
    onRunStart(event) {
      stopDisplay();
      runId = event.runId;
      streams.clear();
      const now = Date.now();
      for (const stream of event.streams) {
        streams.set(stream, { total: event.byStream[stream] ?? 0, done: 0, failed: 0, records: 0, calls: 0, startedAt: now });
      }
      if (options.mode === 'bars') {
        multibar = new cliProgress.MultiBar(
          {
            format: `${label}{stream} [{bar}] {value}/{total} work units | {records} records | {calls} calls | {rate} rec/s | {left} left{failed}`,
            stream: output,
            hideCursor: true,
            clearOnComplete: false,
            barsize: 24,
            fps: 5,
          },
          cliProgress.Presets.shades_classic,
        );
        for (const [stream, progress] of streams) bars.set(stream, multibar.create(Math.max(progress.total, 1), 0, payload(stream, progress)));
      } else {
        const { logger } = options;
        logger.info({ runId, workUnits: event.workUnits, byStream: event.byStream }, `run ${event.runId} planned ${event.workUnits} work units`);
        timer = setInterval(() => logLines(logger), options.intervalMs ?? 10_000);
        timer.unref();
      }
    },
    onWorkUnitStart(event) {
      const progress = streams.get(event.stream);
      if (progress && progress.done >= progress.total) {
        progress.total = progress.done + 1;
        redraw(event.stream);
      }
    },
    onPage(event) {
      const progress = streams.get(event.stream);
      if (!progress) return;
      progress.records += event.records;
      progress.calls += event.calls;
      redraw(event.stream);
    },
    onWorkUnitEnd(event) {
      const progress = streams.get(event.stream);
      if (!progress) return;
      progress.done += 1;
      if (event.status === 'failed') progress.failed += 1;
      if (progress.done > progress.total) progress.total = progress.done;
      redraw(event.stream);
    },
    onRunEnd() {
      for (const stream of streams.keys()) redraw(stream);
      stopDisplay();
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
