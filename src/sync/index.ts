/** The sync engine: runs streams' work units with cursors, checkpoints, quarantine and run history. */
export { runSync } from './engine.js';
export type { RunStatus, RunSummary, RowCounts, SyncDeps, SyncObserver, SyncRequest } from './types.js';
