import type { Db } from '../catalog/tables.js';
import type { FreshnessTarget } from '../sync/freshness.js';

/** An account as the console shows it: from the configuration, never its credentials. */
export interface ConsoleAccount {
  id: string;
  name: string | null;
  timeZone: string;
  dailyCallBudget: number;
}

/** A stream as the overview shows it: its cron schedule, null when it is not enabled. */
export interface ConsoleStream {
  name: string;
  schedule: string | null;
}

/** What every page reads from: the warehouse (the console's own small pool) and the configuration. */
export interface ConsoleContext {
  db: Db;
  accounts: readonly ConsoleAccount[];
  streams: readonly ConsoleStream[];
  /** Each account's enabled streams with their freshness thresholds (src/sync/freshness.ts). */
  freshness: readonly FreshnessTarget[];
  /** Minutes without a heartbeat after which a run still marked running is shown as abandoned. */
  abandonedAfterMinutes: number;
}

/** Rows per page of every list. */
export const PAGE_SIZE = 50;
