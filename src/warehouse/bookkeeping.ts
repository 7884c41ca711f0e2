import {
  bigint,
  bigintArray,
  boolean,
  date,
  defineTable,
  integer,
  jsonb,
  text,
  textArray,
  timestamptz,
  type Column,
  type ColumnBuilder,
} from '../warehouse/schema.js';
import { RUN_COUNTERS, UNIT_COUNTERS, type RunCounter } from './run-counters.js';

/** The sync's own tables: runs, work units (with their checkpoints and the keys each saw), cursors, quarantine. */

type CounterColumns<C extends RunCounter> = { [K in C as K['column']]: Column<K['type'], false, true> };

/** The counter columns of a list of counters: not null, default 0. */
function counterColumns<C extends RunCounter>(counters: readonly C[]): CounterColumns<C> {
  const column = (counter: RunCounter): ColumnBuilder<'integer' | 'bigint', false, true> =>
    (counter.type === 'bigint' ? bigint(counter.meaning) : integer(counter.meaning)).notNull().defaulted();
  return Object.fromEntries(
    counters.map((counter) => [counter.column, column(counter)]),
  ) as unknown as CounterColumns<C>;
}

export const SYNC_RUNS = defineTable({
  name: 'sync_runs',
  meaning: 'One row per run: a sync, a backfill, a scheduled run.',
  key: ['run_id'],
  indexes: [['started_at']],
  crossAccountIndexes: [['run_id']],
  columns: {
    run_id: bigint("The run's id, referenced by last_run_id of the rows it changed.").notNull().defaulted(),
    kind: text('Kind of run: sync, full or backfill.').notNull(),
    streams: textArray('Streams the run covered.').notNull(),
    property_ids: bigintArray('Properties asked for (null: the configured ones, or all).'),
    requested: jsonb('The full request, as the operator or scheduler made it.').notNull().defaulted(),
    status: text(
      'running, then how it ended (succeeded, incomplete, partial, failed, interrupted, ' +
        'budget_exhausted), or abandoned: its process died and a later run or sweep closed it.',
    )
      .notNull()
      .defaulted(),
    started_at: timestamptz('When the run started.').notNull().defaulted(),
    finished_at: timestamptz('When the run ended.'),
    source_today: date('The source\'s "today" (in its time zone) the run planned with.'),
    work_units_total: integer('Work units planned.').notNull().defaulted(),
    work_units_done: integer('Work units done.').notNull().defaulted(),
    work_units_failed: integer('Work units failed or interrupted.').notNull().defaulted(),
    ...counterColumns(RUN_COUNTERS),
    error: text('Why the run failed, if it did (one line per failed work unit).'),
    host: text('Host the run ran on.'),
    pid: integer('Process id of the run.'),
    heartbeat_at: timestamptz(
      'When the running process last said it was alive; a running run without a recent heartbeat ' +
        'is shown as abandoned.',
    ),
    unread: text(
      'Windows the run knowingly left unread, one line each with why (the run then ends incomplete, not succeeded).',
    ),
  },
});

export const SYNC_WORK_UNITS = defineTable({
  name: 'sync_work_units',
  meaning: 'One row per unit of work of a run: a stream, properties, a date window, paged to its end.',
  key: ['work_unit_id'],
  indexes: [['run_id'], ['unit_key', 'status']],
  crossAccountIndexes: [['work_unit_id']],
  columns: {
    work_unit_id: bigint("The unit's id.").notNull().defaulted(),
    run_id: bigint('Its run.').notNull(),
    stream: text('The stream it reads.').notNull(),
    kind: text('Kind of unit (live, move_outs, missing, full, post_date, backfill ...).').notNull(),
    unit_key: text('Identifies the same work across runs: a unit planned again resumes.').notNull(),
    property_ids: bigintArray('Properties it reads.').notNull().defaulted(),
    window_from: date('First day of its date window.'),
    window_to: date('Last day of its date window.'),
    params: jsonb('Request parameters.').notNull().defaulted(),
    status: text('pending, running, done, skipped, failed, interrupted, or abandoned (its process died).')
      .notNull()
      .defaulted(),
    next_page: integer('Checkpoint: the next page to read.').notNull().defaulted(),
    per_page: integer('Page size the checkpoint counts in; a resume with another page size starts over.'),
    ...counterColumns(UNIT_COUNTERS),
    started_at: timestamptz('When the unit started.'),
    finished_at: timestamptz('When the unit ended.'),
    error: text('Why it failed, if it did.'),
    listing_total: integer(
      'Checkpoint: the total the listing announced on the first page of the current pass; ' +
        'a resume that sees another total reads the listing again.',
    ),
  },
});

export const SYNC_WORK_UNIT_SEEN = defineTable({
  name: 'sync_work_unit_seen',
  meaning:
    'The record keys a work unit has loaded so far, so that a resumed unit still knows which ' +
    'rows the source stopped listing.',
  key: ['work_unit_id', 'entity', 'key'],
  columns: {
    work_unit_id: bigint('The work unit.').notNull(),
    entity: text("Kind of record: the stream's entity.").notNull(),
    key: bigint("The record's key.").notNull(),
  },
});

export const SYNC_CURSORS = defineTable({
  name: 'sync_cursors',
  meaning: 'How far each stream has read, per scope (a property or a property group) and cursor name.',
  key: ['stream', 'scope', 'cursor'],
  columns: {
    stream: text('The stream.').notNull(),
    scope: text('A property id, or comma-joined sorted property ids of a group.').notNull(),
    cursor: text('Name of the cursor.').notNull(),
    value: date('The last day fully read.'),
    state: jsonb('Free-form state of the cursor.').notNull().defaulted(),
    updated_at: timestamptz('When the cursor last moved.').notNull().defaulted(),
    last_run_id: bigint('The run that last moved it.'),
  },
});

export const QUARANTINE = defineTable({
  name: 'quarantine',
  meaning:
    'Records that failed validation, kept raw so nothing is lost; resolved when a later run loads them.',
  key: ['quarantine_id'],
  indexes: [['stream', 'record_key']],
  columns: {
    quarantine_id: bigint("The entry's id.").notNull().defaulted(),
    run_id: bigint('The run that read the record.'),
    work_unit_id: bigint('The work unit that read it.'),
    stream: text('Its stream.').notNull(),
    entity: text("Kind of record: the stream's entity.").notNull(),
    record_key: text("The record's key, when it has a usable one."),
    property_id: bigint('Its property, when known.'),
    window_from: date("First day of the unit's date window."),
    window_to: date("Last day of the unit's date window."),
    page: integer('Page it came on.'),
    reason: text('Why it failed validation.').notNull(),
    raw: jsonb(
      'The record as the source sent it; NUL characters and lone surrogates, which jsonb cannot ' +
        'hold, replaced by U+FFFD (the record in full is then in raw_text).',
    ).notNull(),
    created_at: timestamptz('When it was quarantined.').notNull().defaulted(),
    resolved_at: timestamptz('When a later run loaded the record.'),
    resolved_run_id: bigint('That run.'),
    raw_text: text(
      'The record as the source sent it, as JSON text, when raw could not hold it as is (NUL ' +
        'characters or lone surrogates, kept here as \\u escapes); null otherwise.',
    ),
  },
});

export const ACCOUNTS = defineTable({
  name: 'accounts',
  meaning:
    'One row per source account a run has synced, with its display name (the reporting views show it).',
  key: [],
  columns: {
    name: text('The display name the configuration gives the account, if any.'),
    first_seen_at: timestamptz('When a run first synced the account.').notNull().defaulted(),
    last_seen_at: timestamptz('When a run last started for the account.').notNull().defaulted(),
  },
});

export const SYNC_VERIFICATIONS = defineTable({
  name: 'sync_verifications',
  meaning:
    'One row per pass of `propsync verify` over an account: what was read again from the ' +
    'source, and how the warehouse differed from it, per table.',
  key: ['verification_id'],
  indexes: [['finished_at']],
  crossAccountIndexes: [['verification_id']],
  columns: {
    verification_id: bigint("The verification's id.").notNull().defaulted(),
    run_id: bigint('The run (sync_runs, kind verify) whose calls it spent.'),
    pass: text('check: a verification; recheck: the one after a repair (--repair).').notNull(),
    selection: text(
      'How its properties were chosen: all, sample (least recently verified first) or property (named).',
    ).notNull(),
    streams: textArray('Streams verified.').notNull(),
    property_ids: bigintArray(
      'Properties verified whole (a pass stopped early lists those it finished).',
    ).notNull(),
    started_at: timestamptz('When it started.').notNull().defaulted(),
    finished_at: timestamptz('When it ended.'),
    status: text('succeeded, or why it stopped early (budget_exhausted, interrupted, failed).').notNull(),
    clean: boolean('No row differed from the source.').notNull(),
    drift_rows: integer('Rows missing, extra or differing, all tables together.').notNull().defaulted(),
    tables: jsonb(
      'Per stream and table: rows checked, the counts of missing, extra and differing rows, ' +
        'and the first keys of each (with the differing columns).',
    )
      .notNull()
      .defaulted(),
    error: text('Why it stopped early, if it did.'),
  },
});

export const SOURCE_PACING = defineTable({
  name: 'source_pacing',
  meaning:
    'The pacing of one source method of an account, shared by every process that calls it: ' +
    'each call reserves its start here.',
  key: ['method'],
  columns: {
    method: text('The source method (each has its own rate-limit windows).').notNull(),
    next_at: timestamptz('The earliest start of the next call.').notNull().defaulted(),
    interval_ms: integer("Least gap between two starts, from the short windows' limits less the reserve.")
      .notNull()
      .defaulted(),
    remaining: integer(
      'Calls left in the tightest announced window, less the calls reserved since (null: not announced yet).',
    ),
    reset_at: timestamptz('When that window resets.'),
  },
});

export const SOURCE_BUDGET = defineTable({
  name: 'source_budget',
  meaning:
    "Calls of an account's daily budget reserved by every process together, per day in the account's time zone.",
  key: ['day'],
  columns: {
    day: date("The day, in the account's time zone.").notNull(),
    spent: integer('Calls reserved that day (each is reserved just before it goes).').notNull().defaulted(),
  },
});

export const SYNC_RUN_LANES = defineTable({
  name: 'sync_run_lanes',
  meaning:
    'The lanes of a run put on the queue (propsync enqueue): one job each; ' +
    "the worker that ends the run's last lane finishes the run.",
  key: ['run_id', 'lane_key'],
  columns: {
    run_id: bigint('The run that planned the lane.').notNull(),
    lane_key: text("The lane's key (its stream and scope).").notNull(),
    stream: text('The stream of the lane.').notNull(),
    status: text(
      'queued, then done, skipped (already waiting on the queue for an earlier run), failed, ' +
        'budget_exhausted or dead (its retries ran out: in the dead-letter queue).',
    )
      .notNull()
      .defaulted(),
    error: text('Why it failed, if it did.'),
    finished_at: timestamptz('When its job ended for good.'),
  },
});

export const ALERT_STATE = defineTable({
  name: 'alert_state',
  meaning:
    'What each alert target was last told of each alert of an account, so that every process ' +
    'sends each change once (docs/alerts.md).',
  key: ['alert_key', 'target'],
  columns: {
    alert_key: text(
      'The alert: its kind and what it is about (freshness:STREAM, run_failed:STREAM, credentials).',
    ).notNull(),
    target: text('The alert target (alerts[].name) told.').notNull(),
    kind: text(
      'run_failed, credentials, budget, freshness, verify_drift, dead_letter or quarantine.',
    ).notNull(),
    status: text('firing, or resolved.').notNull(),
    severity: text('warn or error, as last told.').notNull(),
    summary: text('The message last sent.').notNull(),
    value: bigint('The count last told (open quarantine entries, dead letters): more is news again.'),
    since: timestamptz('When the alert started firing.').notNull().defaulted(),
    notified_at: timestamptz('When the target was last told (the change, or a reminder).')
      .notNull()
      .defaulted(),
    reminders: integer('Reminders sent since it started firing.').notNull().defaulted(),
    delivered_at: timestamptz('When the last message was delivered; null when every attempt failed.'),
  },
});

export const PRIVACY_POLICIES = defineTable({
  name: 'privacy_policies',
  meaning:
    "The personal-data policy an account's rows were written under (privacy: " +
    'of the configuration); no row: kept as the source sent them.',
  key: [],
  columns: {
    modes: jsonb('The mode of each personal class: keep, hash or drop.').notNull(),
    key_id: text(
      'An HMAC of a fixed text under the hash key, telling keys apart without revealing them; ' +
        'null when nothing is hashed.',
    ),
    recorded_at: timestamptz(
      'When the policy was recorded (first write, or the end of propsync privacy apply).',
    )
      .notNull()
      .defaulted(),
    applying: jsonb(
      'While propsync privacy apply rewrites the rows: the policy it brings them to and the last ' +
        'key done per table; null otherwise.',
    ),
  },
});

/** The sync's bookkeeping tables. */
export const SYNC_TABLES = [
  ACCOUNTS,
  SYNC_RUNS,
  SYNC_WORK_UNITS,
  SYNC_WORK_UNIT_SEEN,
  SYNC_CURSORS,
  QUARANTINE,
  SOURCE_PACING,
  SOURCE_BUDGET,
  SYNC_RUN_LANES,
  SYNC_VERIFICATIONS,
  ALERT_STATE,
  PRIVACY_POLICIES,
] as const;
