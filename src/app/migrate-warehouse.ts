import type { Kysely } from 'kysely';
import { WAREHOUSE_TABLES } from '../catalog/tables.js';
import { applyReportingDefinitions, type DefinitionsOutcome } from '../reporting/apply-definitions.js';
import { migrateToLatest } from '../warehouse/migrate.js';

/** What `propsync migrate` did. */
export interface WarehouseMigration {
  /** Versioned migrations applied, in order. */
  applied: string[];
  /** What bringing the reporting views to their definitions did. */
  reporting: DefinitionsOutcome;
}

/**
 * Brings a warehouse to this release: the versioned migrations (migrations/), the tables'
 * comments from their declarations, then the reporting views to their definitions.
 */
export async function migrateWarehouse<DB>(db: Kysely<DB>): Promise<WarehouseMigration> {
  const { applied } = await migrateToLatest(db, WAREHOUSE_TABLES);
  const reporting = await applyReportingDefinitions(db);
  return { applied, reporting };
}
