/**
 * Loading of a stream's tables, whichever the stream: the table is chosen at run time, so the
 * statements are built from its declaration (`schema.ts`) and run on any typed database. Every
 * statement is one account's: it writes that account's id and touches no other account's rows.
 */

export { dedupeByKey, type LoadRow, type UpsertCounts } from './rows.js';
export { copyOrMerge, upsertRows, upsertStaged, type StagedTable, type UpsertOptions } from './merge.js';
export { markDeletedWhere, markMissingChildren, markUnseenDeleted } from './mark-deleted.js';
export { storedParents, storedTextDigests, type StoredParents } from './lookups.js';
