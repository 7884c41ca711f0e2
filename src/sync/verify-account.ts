import { privacyPolicy } from './privacy/policy.js';
import { privacyOf } from '../config/privacy.js';
import { accountLogger } from '../log/logger.js';
import { loadStream } from '../streams/load-stream.js';
import type { StreamName } from '../streams/registry.js';
import { RUN_COUNTERS, zeroCounts } from '../warehouse/run-counters.js';
import { discover } from './plan-run.js';
import { endingMessage, InterruptedError, isBudgetError } from './errors.js';
import { closeRun, heartbeatEveryMs, openRun, runKind, startHeartbeat } from './runs/lifecycle.js';
import type { RunFacts } from './runs/states.js';
import type { RunStatus, SyncDeps } from './types.js';
import {
  KEPT_KEYS,
  leastRecentlyVerified,
  recordVerification,
  sampleSize,
  type RecordedTable,
} from './verifications.js';
import { verifyScope, type ScopeTable, type VerifiedStream } from './verify-scope.js';

/** How the properties of a verification are chosen. */
export type VerifySelection =
  { kind: 'all' } | { kind: 'sample'; percent: number } | { kind: 'property'; propertyIds: string[] };

/** What `propsync verify` asks of one account. */
export interface VerifyRequest {
  /** Streams to verify (those that declare `verify` in their manifest). */
  streams: StreamName[];
  selection: VerifySelection;
  /** `check`, or `recheck` after a repair. */
  pass: 'check' | 'recheck';
}

/** One stream's tables, compared over every property verified. */
export interface StreamVerification {
  stream: StreamName;
  tables: ScopeTable[];
  /** Properties whose scope of the stream drifted (what a repair refreshes). */
  driftedProperties: string[];
}

/** What verifying one account found. */
export interface AccountVerification {
  account: string;
  verificationId: number;
  runId: number;
  /** `succeeded`, or why it stopped before every property was verified. */
  status: RunStatus;
  error: string | null;
  /** Properties verified whole. */
  propertyIds: string[];
  streams: StreamVerification[];
  driftRows: number;
}

/** The streams of a request that declare how they are verified, loaded. */
async function verifiedStreams(names: readonly StreamName[]): Promise<VerifiedStream[]> {
  const streams = await Promise.all(names.map((name) => loadStream(name)));
  return streams.filter((stream): stream is VerifiedStream => stream.verify !== undefined);
}

/**
 * The properties to verify: those named, else all the run may cover, or a sample of them least recently verified first.
 */
async function chooseProperties(request: VerifyRequest, deps: SyncDeps): Promise<string[]> {
  const named = request.selection.kind === 'property' ? request.selection.propertyIds : undefined;
  const { propertyIds } = await discover({ kind: 'sync', propertyIds: named }, deps);
  if (request.selection.kind !== 'sample') return propertyIds;
  const ordered = await leastRecentlyVerified(deps.db, deps.account.id, propertyIds);
  return ordered.slice(0, sampleSize(ordered.length, request.selection.percent));
}

const driftOf = (table: ScopeTable) => table.missing.length + table.extra.length + table.differing.length;

/** Adds a property's comparison of a table to the stream's running totals. */
function addTable(into: ScopeTable, table: ScopeTable): void {
  into.checked += table.checked;
  into.missing.push(...table.missing);
  into.extra.push(...table.extra);
  into.differing.push(...table.differing);
}

/**
 * Verifies one account: chooses its properties, reads each property's whole scope of every
 * verified stream again from the source (through the account's client, so within its pacing
 * and daily budget; the calls are recorded as a run of kind `verify`, so that they count
 * against the day), compares it with the warehouse row by row, and records the outcome in
 * `sync_verifications`. Changes no data row. A spent budget or a signal stops it after the
 * scope in flight; what was verified until then is recorded.
 */
export async function verifyAccount(request: VerifyRequest, deps: SyncDeps): Promise<AccountVerification> {
  const { db, client, account, observer } = deps;
  const startedAt = new Date().toISOString();
  const streams = await verifiedStreams(request.streams);
  const runId = await openRun(db, {
    account: account.id,
    kind: runKind({ kind: 'verify' }),
    streams: [],
    propertyIds: undefined,
    requested: { kind: 'verify', ...request },
  });
  const logger = accountLogger(deps.logger, account.id, { runId });
  // The sweep closes a verify run whose process died: its heartbeat says it is alive.
  const heartbeat = startHeartbeat(db, runId, heartbeatEveryMs(deps.config.abandonedAfterMinutes), logger);
  const before = client.stats();
  const started = Date.now();
  const totals = streams.map((stream) => ({
    stream: stream.name,
    tables: stream.tables.map((table): ScopeTable => ({
      table: table.name,
      checked: 0,
      missing: [],
      extra: [],
      differing: [],
    })),
    drifted: new Set<string>(),
  }));
  const verified: string[] = [];
  let facts: Omit<RunFacts, 'unread'> = { budgetSpent: false, interrupted: false, failed: 0, done: 0 };
  let error: string | null = null;
  let units = 0;
  try {
    const propertyIds = await chooseProperties(request, { ...deps, logger });
    // Compared as written: a hashed column equals the hash of the source's value.
    const privacy = privacyPolicy(privacyOf(deps.config, deps.account));
    units = propertyIds.length * streams.length;
    const byStream = Object.fromEntries(streams.map((stream) => [stream.name, propertyIds.length]));
    observer?.onRunStart?.({
      account: account.id,
      runId,
      kind: 'sync',
      streams: streams.map((stream) => stream.name),
      workUnits: units,
      byStream,
    });
    logger.info(
      {
        event: 'verify_planned',
        properties: propertyIds.length,
        streams: streams.map((stream) => stream.name),
      },
      `verify ${runId}: ${propertyIds.length} properties, ${streams.length} streams`,
    );
    for (const propertyId of propertyIds) {
      for (const [index, stream] of streams.entries()) {
        if (deps.signal?.aborted) throw new InterruptedError('stopped by a signal');
        const unitKey = `verify:${stream.name}:${propertyId}`;
        const unitStarted = Date.now();
        observer?.onWorkUnitStart?.({
          account: account.id,
          runId,
          stream: stream.name,
          unitKey,
          propertyIds: [propertyId],
        });
        const result = await verifyScope(stream, propertyId, {
          db,
          privacy,
          account: account.id,
          client,
          logger,
          signal: deps.signal,
          onPage: (page) =>
            observer?.onPage?.({
              ...zeroCounts(RUN_COUNTERS),
              account: account.id,
              runId,
              stream: stream.name,
              unitKey,
              pageNo: page.pageNo,
              records: page.records,
              calls: page.calls,
            }),
        });
        const total = totals[index];
        for (const [position, table] of result.tables.entries()) {
          addTable(total.tables[position], table);
          if (driftOf(table) > 0) total.drifted.add(propertyId);
        }
        observer?.onWorkUnitEnd?.({
          account: account.id,
          runId,
          stream: stream.name,
          unitKey,
          status: 'done',
          durationMs: Date.now() - unitStarted,
        });
      }
      verified.push(propertyId);
    }
  } catch (caught) {
    const interrupted = deps.signal?.aborted === true || caught instanceof InterruptedError;
    // A verification that stopped on an error is failed, whatever it verified before.
    facts = { budgetSpent: isBudgetError(caught), interrupted, failed: interrupted ? 0 : 1, done: 0 };
    error = endingMessage(caught);
  } finally {
    heartbeat.stop();
  }
  const after = client.stats();
  const summary = await closeRun(db, {
    runId,
    facts,
    errors: error ? [error] : [],
    extraCalls: after.calls - before.calls,
    throttled: after.throttled - before.throttled,
    workUnitsTotal: units,
  });
  const status = summary.status as RunStatus;
  if (error)
    logger.warn(
      { event: 'verify_stopped', status, err: error },
      `verify ${runId} stopped (${status}): ${error}; ${verified.length} properties verified`,
    );
  observer?.onRunEnd?.({
    ...summary,
    account: account.id,
    kind: 'sync',
    streams: streams.map((stream) => stream.name),
    durationMs: Date.now() - started,
    errors: error ? [error] : [],
  });
  const results: StreamVerification[] = totals.map((total) => ({
    stream: total.stream,
    tables: total.tables,
    driftedProperties: [...total.drifted],
  }));
  const driftRows = results.reduce(
    (sum, stream) => sum + stream.tables.reduce((rows, table) => rows + driftOf(table), 0),
    0,
  );
  const verificationId = await recordVerification(db, account.id, {
    runId,
    pass: request.pass,
    selection: request.selection.kind,
    streams: streams.map((stream) => stream.name),
    propertyIds: verified,
    startedAt,
    status,
    clean: driftRows === 0,
    driftRows,
    tables: results.flatMap((stream) => stream.tables.map((table) => recordedTable(stream.stream, table))),
    error,
  });
  logger.info(
    { event: 'verify_finished', status, driftRows, properties: verified.length },
    `verify ${runId} ${status}: ${verified.length} properties, ${driftRows} rows drifted`,
  );
  return {
    account: account.id,
    verificationId,
    runId,
    status,
    error,
    propertyIds: verified,
    streams: results,
    driftRows,
  };
}

/** A table's comparison as the bookkeeping keeps it: counts and the first keys of each kind. */
function recordedTable(stream: string, table: ScopeTable): RecordedTable {
  return {
    stream,
    table: table.table,
    checked: table.checked,
    missing: table.missing.length,
    extra: table.extra.length,
    differing: table.differing.length,
    missingKeys: table.missing.slice(0, KEPT_KEYS),
    extraKeys: table.extra.slice(0, KEPT_KEYS),
    differingKeys: table.differing.slice(0, KEPT_KEYS),
  };
}
