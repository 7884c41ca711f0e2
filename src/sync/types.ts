import type { Config } from '../config/schema.js';
import type { PrivacyConfig } from '../config/privacy.js';
import type { StreamName } from '../streams/registry.js';
import type { ChunkSize } from '../dates/calendar.js';
import type { Logger } from '../log/logger.js';
import type { SourceClient } from '../source/types.js';
import type { Db } from '../catalog/tables.js';
import type { Counts, RowCounter, RunCounter } from '../warehouse/run-counters.js';
import type { HeldLock } from './lock.js';
import type { RunState } from './runs/states.js';

/** What an operator or the scheduler asks the engine to do. */
export interface SyncRequest {
  /** `sync`: an incremental run (or a full refresh with `full`); `backfill`: an operator's date range. */
  kind: 'sync' | 'backfill';
  /** Streams to run; default: the enabled ones. */
  streams?: StreamName[];
  /** Properties to cover; default: the configured ones, else every property the source lists. */
  propertyIds?: string[];
  /** A full refresh of the selection instead of the incremental plan. */
  full?: boolean;
  /** For `backfill`: inclusive range and chunk size. */
  backfill?: { from: string; to: string; chunk?: ChunkSize };
}

/**
 * The source account a run syncs: its id (written in every row) and what the engine reads of
 * it. A run is one account's; several accounts are several runs.
 */
export interface SyncAccount {
  id: string;
  /** Zone of the account's dates and "today". */
  timeZone: string;
  /** Properties to sync; empty means every property the source lists. */
  propertyIds: readonly string[];
  source: { pageSize: number; concurrency: number; dailyCallBudget: number };
  /** The account's own personal-data policy; absent: the configuration's `privacy:`. */
  privacy?: PrivacyConfig;
}

/** What the engine needs from its caller. */
export interface SyncDeps {
  db: Db;
  account: SyncAccount;
  client: SourceClient;
  config: Config;
  logger: Logger;
  /** Aborting stops new pages and work units; the page in flight commits or rolls back. */
  signal?: AbortSignal;
  observer?: SyncObserver;
  /**
   * The locks of the run's streams, held by the caller: each page commits only while its
   * stream's lock is held, losing one for good stops the run, and holding them proves that
   * runs of those streams still marked running belong to a process that died (closed as abandoned).
   */
  lock?: HeldLock;
}

export type { RunStatus } from './runs/states.js';

/** Row counters of a page, a work unit or a run (see counters.ts). */
export type RowCounts = Counts<RowCounter>;

/** What a run did, as recorded in `sync_runs`: every run counter, and how its work units ended. */
export interface RunSummary extends Counts {
  /** The source account the run synced. */
  account: string;
  runId: number;
  kind: SyncRequest['kind'];
  streams: StreamName[];
  /** How it ended (abandoned: a later process found it left running by one that died). */
  status: RunState;
  workUnits: { total: number; done: number; failed: number; skipped: number };
  durationMs: number;
  /** One line per failed work unit: which stream, property, window, and why. */
  errors: string[];
  /** Windows the run knowingly left unread, each with why (they make it `incomplete`). */
  unread?: string[];
}

/** Events of a run, for progress bars, periodic log lines and metrics. */
export interface SyncObserver {
  onRunStart?(event: {
    account: string;
    runId: number;
    kind: SyncRequest['kind'];
    streams: StreamName[];
    workUnits: number;
    byStream: Partial<Record<StreamName, number>>;
  }): void;
  onWorkUnitStart?(event: {
    account: string;
    runId: number;
    stream: StreamName;
    unitKey: string;
    propertyIds: string[];
  }): void;
  /** A page committed: its counters (`pages` is implied: one). */
  onPage?(
    event: Counts<Exclude<RunCounter, { key: 'pages' }>> & {
      account: string;
      runId: number;
      stream: StreamName;
      unitKey: string;
      pageNo: number;
    },
  ): void;
  onWorkUnitEnd?(event: {
    account: string;
    runId: number;
    stream: StreamName;
    unitKey: string;
    status: 'done' | 'failed' | 'skipped';
    error?: string;
    durationMs: number;
  }): void;
  onRunEnd?(summary: RunSummary): void;
  /** Runs of a process that died, closed as abandoned by this run (which holds their streams' locks). */
  onRunsAbandoned?(event: {
    account: string;
    runId: number;
    abandoned: { runId: number; streams: StreamName[] }[];
  }): void;
}
