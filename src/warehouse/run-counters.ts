/**
 * The counters a run keeps, declared once: the name in summaries and events, the column in
 * `sync_runs` (and `sync_work_units`), what it counts, and the Prometheus counter it feeds.
 * Pages, work units and runs sum them; every place that stores, sums, logs or exports them
 * derives its list from here.
 */
export const RUN_COUNTERS = [
  {
    key: 'pages',
    column: 'pages',
    type: 'integer',
    meaning: 'Pages committed.',
    group: 'cost',
    perUnit: true,
    eachPage: true,
    metric: { name: 'propsync_pages_total', help: 'Pages committed.' },
  },
  {
    key: 'records',
    column: 'records',
    type: 'integer',
    meaning: 'Source records read.',
    group: 'rows',
    perUnit: true,
    metric: { name: 'propsync_records_total', help: 'Source records read.' },
  },
  {
    key: 'rowsInserted',
    column: 'rows_inserted',
    type: 'integer',
    meaning: 'Warehouse rows inserted.',
    group: 'rows',
    perUnit: true,
    metric: {
      name: 'propsync_rows_total',
      help: 'Warehouse rows by what the load did to them.',
      action: 'inserted',
    },
  },
  {
    key: 'rowsUpdated',
    column: 'rows_updated',
    type: 'integer',
    meaning: 'Warehouse rows changed.',
    group: 'rows',
    perUnit: true,
    metric: {
      name: 'propsync_rows_total',
      help: 'Warehouse rows by what the load did to them.',
      action: 'updated',
    },
  },
  {
    key: 'rowsUnchanged',
    column: 'rows_unchanged',
    type: 'integer',
    meaning: 'Rows read again without a change (not rewritten).',
    group: 'rows',
    perUnit: true,
    metric: {
      name: 'propsync_rows_total',
      help: 'Warehouse rows by what the load did to them.',
      action: 'unchanged',
    },
  },
  {
    key: 'rowsDeleted',
    column: 'rows_deleted',
    type: 'integer',
    meaning: 'Rows marked deleted because the source stopped listing them.',
    group: 'rows',
    perUnit: true,
    metric: {
      name: 'propsync_rows_total',
      help: 'Warehouse rows by what the load did to them.',
      action: 'deleted',
    },
  },
  {
    key: 'quarantined',
    column: 'quarantined',
    type: 'integer',
    meaning: 'Records that failed validation and went to quarantine.',
    group: 'rows',
    perUnit: true,
    metric: {
      name: 'propsync_quarantined_total',
      help: 'Records that failed validation and went to quarantine.',
    },
  },
  {
    key: 'calls',
    column: 'calls',
    type: 'integer',
    meaning: 'Calls made to the source, retries included.',
    group: 'cost',
    perUnit: true,
  },
  {
    key: 'bytes',
    column: 'bytes',
    type: 'bigint',
    meaning: "Bytes of the source's replies.",
    group: 'cost',
    perUnit: true,
  },
  {
    key: 'retries',
    column: 'retries',
    type: 'integer',
    meaning: 'Calls that failed and were tried again.',
    group: 'cost',
    perUnit: true,
  },
  {
    key: 'throttled',
    column: 'throttled',
    type: 'integer',
    meaning: 'Calls the source answered with 429 (counted per run).',
    group: 'cost',
    perUnit: false,
  },
] as const;

export type RunCounter = (typeof RUN_COUNTERS)[number];
export type CounterKey = RunCounter['key'];

/** Counters that work units keep (and runs sum from them). */
export type UnitCounter = Extract<RunCounter, { perUnit: true }>;
export const UNIT_COUNTERS = RUN_COUNTERS.filter((counter): counter is UnitCounter => counter.perUnit);

/** Counters of what a load did to the warehouse. */
export type RowCounter = Extract<RunCounter, { group: 'rows' }>;
export const ROW_COUNTERS = RUN_COUNTERS.filter((counter): counter is RowCounter => counter.group === 'rows');

/** Counters by key. */
export type Counts<C extends RunCounter = RunCounter> = { [K in C['key']]: number };

/** Zero for every counter of a list. */
export function zeroCounts<C extends RunCounter>(counters: readonly C[]): Counts<C> {
  return Object.fromEntries(counters.map((counter) => [counter.key, 0])) as Counts<C>;
}

/** The counters of a list picked from a larger object (e.g. a summary's row counts). */
export function pickCounts<C extends RunCounter>(counters: readonly C[], from: Counts<C>): Counts<C> {
  return Object.fromEntries(
    counters.map((counter) => [counter.key, from[counter.key as C['key']]]),
  ) as Counts<C>;
}
