/**
 * The simulator's seeded data set: generation, the moving clock, and the truth helpers that
 * tests compare a finished sync against. The server renders what `model.ts` describes.
 */
export { generateDataset, type GenerateOptions } from './generate.js';
export { advanceDataset, type AdvanceResult } from './advance.js';
export { CHANGE_KINDS, type ChangeKind, type ChangeSummary } from './context.js';
export { SCALE_SETTINGS } from './generate-properties.js';
export { SCALES, type Scale } from './world.js';
export { residentFriendlyName, AR_CODES, AR_TRANSACTION_TYPE, MOVE_OUT_REASONS } from './reference.js';
export { INVOICE_TYPE_NAMES } from './invoice-records.js';
export { mountainDateTime, isMountainDst, dayFromIso, isoFromDay, mdy } from './calendar.js';
export {
  expectedWarehouse,
  expectedInventory,
  type SpaceTruth,
  leaseCountsByStatus,
  TRUTH_TABLES,
  type TableTruth,
  type TruthOptions,
  type WarehouseTruth,
} from './truth.js';
export * from './model.js';
export { UNKNOWN_STATUS, SPACE_STATES, type SpaceState } from './inventory.js';
