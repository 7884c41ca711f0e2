import { readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  Migrator,
  NO_MIGRATIONS,
  sql,
  type Kysely,
  type Migration,
  type MigrationProvider,
  type MigrationResult,
} from 'kysely';

/** The project's migrations folder (`migrations/` at the top of the checkout or package). */
export const MIGRATIONS_FOLDER = resolve(dirname(fileURLToPath(import.meta.url)), '../../migrations');

/** Reads numbered migration files (`0001_name.ts`) from a folder, in name order. */
export class FolderMigrationProvider implements MigrationProvider {
  constructor(private readonly folder: string = MIGRATIONS_FOLDER) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await readdir(this.folder)).filter((name) => /^\d{4}_.+\.(ts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')).sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      const module = (await import(pathToFileURL(join(this.folder, file)).href)) as Migration;
      migrations[file.replace(/\.(ts|js|mjs)$/, '')] = { up: module.up, down: module.down };
    }
    return migrations;
  }
}

/** What a migration command did: the migrations applied or reverted, in order. */
export interface MigrationOutcome {
  applied: string[];
}

function migrator(db: Kysely<any>): Migrator {
  return new Migrator({ db, provider: new FolderMigrationProvider() });
}

function outcome(results: MigrationResult[] | undefined, error: unknown): MigrationOutcome {
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(failed ? `migration ${failed.migrationName} failed: ${message}` : `migration failed: ${message}`);
  }
  return { applied: (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName) };
}

/** Applies every pending migration; an up-to-date database is left untouched. */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationOutcome> {
  const { results, error } = await migrator(db).migrateToLatest();
  return outcome(results, error);
}

/**
 * Reverts every migration, leaving the database as empty as before the first one: the
 * migrator's own bookkeeping tables (`kysely_migration`, `kysely_migration_lock`) go too.
 */
export async function migrateDownAll(db: Kysely<any>): Promise<MigrationOutcome> {
  const { results, error } = await migrator(db).migrateTo(NO_MIGRATIONS);
  const reverted = outcome(results, error);
  await sql`drop table if exists ${sql.table(DEFAULT_MIGRATION_TABLE)}, ${sql.table(DEFAULT_MIGRATION_LOCK_TABLE)}`.execute(db);
  return reverted;
}
