import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CallEvent } from '../source/types.js';
import { RUN_COUNTERS, type CounterKey, type RunCounter } from '../warehouse/run-counters.js';
import type { SyncObserver } from '../sync/types.js';
import { FRESHNESS_STATES, type StreamFreshness } from '../sync/freshness.js';
import type { DeliveryEvent } from './alerts/evaluate.js';

/** Prometheus metrics of a propsync process, fed by the engine's observer and the client's calls. */
export interface SyncMetrics {
  registry: Registry;
  /** Feeds runs, work units, pages, records and rows. */
  observer: SyncObserver;
  /** Feeds calls, retries, 429s, call durations and the budget left of the account that called. */
  onCall(event: CallEvent, account: string): void;
  /** Counts a scheduled run skipped because another process held the account's stream lock. */
  lockSkipped(account: string, stream: string): void;
  /** Marks an account's stream run as started or ended (the `propsync_run_in_progress` gauge). */
  setRunning(account: string, stream: string, running: boolean): void;
  /** Sets the last success time of an account's stream, e.g. from `sync_runs` when the process starts. */
  setLastSuccess(account: string, stream: string, at: Date): void;
  /** Counts an alert message sent, or given up on (`propsync_alerts_undelivered_total`). */
  alertDelivered(event: DeliveryEvent): void;
  /** The text exposition for `/metrics`. */
  render(): Promise<string>;
  contentType: string;
}

/** Rows of one kind that drifted in one table at an account's latest verification. */
export interface VerifyDrift {
  account: string;
  stream: string;
  table: string;
  kind: 'missing' | 'extra' | 'differing';
  rows: number;
}

type MeteredCounter = Extract<RunCounter, { metric: object }>;

/**
 * The Prometheus counters fed by each committed page, one per metric name of the run counters
 * (`propsync_rows_total` carries an `action` label per row counter). Every metric carries the
 * `account` label.
 */
function pageMetrics(registers: Registry[]): { counter: MeteredCounter; metric: Counter }[] {
  const metered = RUN_COUNTERS.filter((counter): counter is MeteredCounter => 'metric' in counter);
  const byName = new Map<string, Counter>();
  return metered.map((counter) => {
    const { name, help } = counter.metric;
    let metric = byName.get(name);
    if (!metric) {
      metric = new Counter({
        name,
        help,
        labelNames: 'action' in counter.metric ? ['account', 'stream', 'action'] : ['account', 'stream'],
        registers,
      });
      byName.set(name, metric);
    }
    return { counter, metric };
  });
}

const DURATION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200];
const CALL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * Creates the metrics on a registry of their own (tests make several in one process), with
 * Node's default process metrics unless `defaultMetrics: false`.
 */
export function createSyncMetrics(
  options: {
    defaultMetrics?: boolean;
    accounts?: readonly { id: string; dailyCallBudget: number }[];
    openQuarantine?: () => Promise<ReadonlyMap<string, number>>;
    /** Jobs in the dead-letter queue by account (workers): read at each scrape. */
    deadLetters?: () => Promise<ReadonlyMap<string, number>>;
    /** The drifted rows of each account's latest verification, by stream, table and kind (read at each scrape). */
    verifyDrift?: () => Promise<readonly VerifyDrift[]>;
    /** The freshness of each account's stream (read at each scrape). */
    freshness?: () => Promise<readonly StreamFreshness[]>;
  } = {},
): SyncMetrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'propsync_' });
  const registers = [registry];

  const runs = new Counter({
    name: 'propsync_runs_total',
    help: 'Sync runs ended, by stream, kind and outcome.',
    labelNames: ['account', 'stream', 'kind', 'status'],
    registers,
  });
  const runDuration = new Histogram({
    name: 'propsync_run_duration_seconds',
    help: 'Duration of sync runs.',
    labelNames: ['account', 'stream', 'kind'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  const lastSuccess = new Gauge({
    name: 'propsync_last_success_timestamp_seconds',
    help: "End time of the last successful run of each account's stream (Unix seconds).",
    labelNames: ['account', 'stream'],
    registers,
  });
  const running = new Gauge({
    name: 'propsync_run_in_progress',
    help: "1 while a run of the account's stream is in progress in this process.",
    labelNames: ['account', 'stream'],
    registers,
  });
  const skipped = new Counter({
    name: 'propsync_runs_skipped_total',
    help: "Scheduled runs skipped because another process held the account's stream lock.",
    labelNames: ['account', 'stream'],
    registers,
  });
  const abandoned = new Counter({
    name: 'propsync_runs_abandoned_total',
    help: "Runs left running by a process that died, closed as abandoned by a later run of the account's stream.",
    labelNames: ['account', 'stream'],
    registers,
  });
  const workUnits = new Counter({
    name: 'propsync_work_units_total',
    help: 'Work units ended, by account, stream and outcome.',
    labelNames: ['account', 'stream', 'status'],
    registers,
  });
  const workUnitDuration = new Histogram({
    name: 'propsync_work_unit_duration_seconds',
    help: 'Duration of work units.',
    labelNames: ['account', 'stream'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  const pageCounters = pageMetrics(registers);
  const calls = new Counter({
    name: 'propsync_source_calls_total',
    help: 'HTTP calls to the source, by method and HTTP status (or "error" when no reply came).',
    labelNames: ['account', 'method', 'status'],
    registers,
  });
  const retries = new Counter({
    name: 'propsync_source_retries_total',
    help: 'Calls that failed and will be tried again.',
    labelNames: ['account', 'method'],
    registers,
  });
  const throttled = new Counter({
    name: 'propsync_source_throttled_total',
    help: 'Calls the source answered with 429.',
    labelNames: ['account', 'method'],
    registers,
  });
  const callDuration = new Histogram({
    name: 'propsync_source_call_duration_seconds',
    help: 'Duration of HTTP calls to the source.',
    labelNames: ['account', 'method'],
    buckets: CALL_BUCKETS,
    registers,
  });
  const bytes = new Counter({
    name: 'propsync_source_bytes_total',
    help: 'Bytes of the source replies.',
    labelNames: ['account', 'method'],
    registers,
  });
  const budgetLeft = new Gauge({
    name: 'propsync_call_budget_left',
    help: "Calls left in today's budget of each account.",
    labelNames: ['account'],
    registers,
  });
  const budgetDaily = new Gauge({
    name: 'propsync_call_budget_daily',
    help: 'Calls each account may spend per day (source.dailyCallBudget).',
    labelNames: ['account'],
    registers,
  });
  for (const account of options.accounts ?? []) {
    budgetDaily.set({ account: account.id }, account.dailyCallBudget);
    budgetLeft.set({ account: account.id }, account.dailyCallBudget);
  }
  const openQuarantine = options.openQuarantine;
  new Gauge({
    name: 'propsync_quarantine_open',
    help: 'Quarantine entries not yet resolved, by account, read from the warehouse at each scrape.',
    labelNames: ['account'],
    registers,
    async collect() {
      if (!openQuarantine) return;
      for (const [account, open] of await openQuarantine()) this.set({ account }, open);
    },
  });
  const deadLetters = options.deadLetters;
  if (deadLetters) {
    new Gauge({
      name: 'propsync_dead_letter_jobs',
      help:
        'Jobs whose retries ran out, waiting in the dead-letter queue, by account, ' +
        'read from the warehouse at each scrape.',
      labelNames: ['account'],
      registers,
      async collect() {
        this.reset();
        for (const account of options.accounts ?? []) this.set({ account: account.id }, 0);
        for (const [account, count] of await deadLetters()) this.set({ account }, count);
      },
    });
  }
  const verifyDrift = options.verifyDrift;
  new Gauge({
    name: 'propsync_verify_drift_rows',
    help:
      "Rows of the warehouse that differed from the source at each account's latest verification " +
      '(propsync verify), by stream, table and kind (missing, extra, differing); ' +
      'read from the warehouse at each scrape.',
    labelNames: ['account', 'stream', 'table', 'kind'],
    registers,
    async collect() {
      if (!verifyDrift) return;
      this.reset();
      for (const drift of await verifyDrift())
        this.set(
          { account: drift.account, stream: drift.stream, table: drift.table, kind: drift.kind },
          drift.rows,
        );
    },
  });
  // Both freshness gauges are collected side by side at a scrape: they share one reading of the warehouse.
  let reading: { at: number; judged: Promise<readonly StreamFreshness[]> } | undefined;
  const judgedNow = async (): Promise<readonly StreamFreshness[]> => {
    if (!options.freshness) return [];
    if (!reading || Date.now() - reading.at > 1_000)
      reading = { at: Date.now(), judged: options.freshness() };
    return reading.judged;
  };
  new Gauge({
    name: 'propsync_stream_last_success_timestamp_seconds',
    help:
      "End of the last successful run of each account's stream by any process (Unix seconds), " +
      'read from the warehouse at each scrape; absent until it first succeeds.',
    labelNames: ['account', 'stream'],
    registers,
    async collect() {
      if (!options.freshness) return;
      this.reset();
      for (const judged of await judgedNow())
        if (judged.lastSuccessAt)
          this.set(
            { account: judged.account, stream: judged.stream },
            Date.parse(judged.lastSuccessAt) / 1000,
          );
    },
  });
  new Gauge({
    name: 'propsync_stream_freshness_state',
    help:
      "Freshness of each account's stream, read from the warehouse at each scrape: 0 ok, " +
      '1 warn (late), 2 error (stale or never succeeded), by its streams.<name>.freshness ' +
      'thresholds or its schedule.',
    labelNames: ['account', 'stream'],
    registers,
    async collect() {
      if (!options.freshness) return;
      this.reset();
      for (const judged of await judgedNow())
        this.set({ account: judged.account, stream: judged.stream }, FRESHNESS_STATES.indexOf(judged.state));
    },
  });
  const alertsSent = new Counter({
    name: 'propsync_alerts_sent_total',
    help: 'Alert messages delivered, by account, target, kind and event (firing, reminder, resolved, test).',
    labelNames: ['account', 'target', 'kind', 'event'],
    registers,
  });
  const alertsUndelivered = new Counter({
    name: 'propsync_alerts_undelivered_total',
    help:
      'Alert messages given up on after their retries (the receiver was down, ' +
      'refused or too slow), by account, target and kind.',
    labelNames: ['account', 'target', 'kind'],
    registers,
  });
  const rateLeft = new Gauge({
    name: 'propsync_rate_limit_remaining',
    help: 'Calls left in the tightest rate-limit window, as the source last announced.',
    labelNames: ['account', 'method'],
    registers,
  });

  const observer: SyncObserver = {
    onPage(event) {
      for (const { counter, metric } of pageCounters) {
        const value = 'eachPage' in counter ? 1 : event[counter.key as Exclude<CounterKey, 'pages'>];
        const labels = { account: event.account, stream: event.stream };
        metric.inc('action' in counter.metric ? { ...labels, action: counter.metric.action } : labels, value);
      }
    },
    onWorkUnitEnd(event) {
      workUnits.inc({ account: event.account, stream: event.stream, status: event.status });
      if (event.status !== 'skipped')
        workUnitDuration.observe({ account: event.account, stream: event.stream }, event.durationMs / 1000);
    },
    onRunEnd(summary) {
      const now = Date.now() / 1000;
      const { account } = summary;
      for (const stream of summary.streams) {
        runs.inc({ account, stream, kind: summary.kind, status: summary.status });
        runDuration.observe({ account, stream, kind: summary.kind }, summary.durationMs / 1000);
        if (summary.status === 'succeeded') lastSuccess.set({ account, stream }, now);
      }
    },
    onRunsAbandoned(event) {
      for (const run of event.abandoned)
        for (const stream of run.streams) abandoned.inc({ account: event.account, stream });
    },
  };

  return {
    registry,
    observer,
    onCall(event, account) {
      const labels = { account, method: event.method };
      calls.inc({ ...labels, status: event.status === undefined ? 'error' : String(event.status) });
      callDuration.observe(labels, event.ms / 1000);
      if (event.bytes > 0) bytes.inc(labels, event.bytes);
      if (event.willRetry) retries.inc(labels);
      if (event.throttled || event.status === 429) throttled.inc(labels);
      budgetLeft.set({ account }, event.budgetLeft);
      if (event.remaining !== undefined) rateLeft.set(labels, event.remaining);
    },
    lockSkipped(account, stream) {
      skipped.inc({ account, stream });
    },
    setRunning(account, stream, isRunning) {
      running.set({ account, stream }, isRunning ? 1 : 0);
    },
    setLastSuccess(account, stream, at) {
      lastSuccess.set({ account, stream }, at.getTime() / 1000);
    },
    alertDelivered(event) {
      const labels = { account: event.account, target: event.target, kind: event.kind };
      if (event.delivered) alertsSent.inc({ ...labels, event: event.event });
      else alertsUndelivered.inc(labels);
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
