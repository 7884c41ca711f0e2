import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { applyComments } from './comments.js';
import type { Table } from './schema.js';
import { messageOf } from '../log/errors.js';
import { importModule } from '../runtime/import-module.js';

/**
 * The project's migrations folder, `migrations/` at the top of the checkout or package: two
 * levels up from this module in `src/warehouse/`, and from the build's `dist/src/<folder>/`.
 */
export const MIGRATIONS_FOLDER = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../migrations',
);

/**
 * The numbered migration files, by name without extension, as Kysely's FileMigrationProvider
 * reads them, but imported through `importModule` (the built command cannot import by itself).
 */
export function migrationProvider(folder: string = MIGRATIONS_FOLDER): MigrationProvider {
  return {
    async getMigrations() {
      const migrations: Record<string, Migration> = {};
      for (const { file, name } of await migrationFiles(folder)) {
        const module = (await importModule(path.join(folder, file))) as Partial<Migration> & {
          default?: Partial<Migration>;
        };
        const migration = typeof module.default?.up === 'function' ? module.default : module;
        if (typeof migration.up === 'function') migrations[name] = migration as Migration;
      }
      return migrations;
    },
  };
}

/** A migration file as Kysely's provider reads them: `.js`, `.mjs`, `.ts` or `.mts`, not declarations. */
const MIGRATION_FILE = /^(?!.*\.d\.m?ts$).*\.(m?js|m?ts)$/;

/** The folder's migration files, each with its migration's name (the file's, without extension). */
async function migrationFiles(folder: string): Promise<{ file: string; name: string }[]> {
  return (await fs.readdir(folder))
    .filter((file) => MIGRATION_FILE.test(file))
    .map((file) => ({ file, name: file.replace(/\.[^.]+$/, '') }));
}

/** What a migration command did: the migrations applied or reverted, in order. */
export interface MigrationOutcome {
  applied: string[];
}

function migrator<DB>(db: Kysely<DB>): Migrator {
  return new Migrator({ db, provider: migrationProvider() });
}

function outcome(results: MigrationResult[] | undefined, error: unknown): MigrationOutcome {
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    const message = messageOf(error);
    // Kysely runs the pending migrations in one transaction on Postgres: a failure undoes them all.
    throw new Error(
      `${failed ? `migration ${failed.migrationName}` : 'migration'} failed: ${message}; ` +
        'none of the pending migrations was applied: fix the cause, then run propsync migrate again',
      { cause: error },
    );
  }
  return {
    applied: (results ?? [])
      .filter((result) => result.status === 'Success')
      .map((result) => result.migrationName),
  };
}

/**
 * Applies every pending migration; an up-to-date database is left untouched. Then, when given
 * the declared tables, (re)writes their comments from the declarations (idempotent).
 */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  tables: readonly Table[] = [],
): Promise<MigrationOutcome> {
  const { results, error } = await migrator(db).migrateToLatest();
  const migrated = outcome(results, error);
  if (tables.length) await applyComments(db, tables);
  return migrated;
}

/** SQLSTATE undefined_table. */
const UNDEFINED_TABLE = '42P01';

/**
 * The migrations that the database has not applied yet, by name: the folder's file names
 * against the migrator's table. Every command checks this at start-up, so nothing is imported
 * (the migrations and what they import) and nothing is created for it.
 */
export async function pendingMigrations<DB>(
  db: Kysely<DB>,
  folder: string = MIGRATIONS_FOLDER,
): Promise<string[]> {
  const names = new Set((await migrationFiles(folder)).map(({ name }) => name));
  let applied: Set<string>;
  try {
    const { rows } = await sql<{
      name: string;
    }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
    applied = new Set(rows.map((row) => row.name));
  } catch (error) {
    if ((error as { code?: string }).code !== UNDEFINED_TABLE) throw error;
    applied = new Set();
  }
  return [...names].sort().filter((name) => !applied.has(name));
}

/**
 * Reverts every migration, leaving the database as empty as before the first one: the
 * migrator's own bookkeeping tables (`kysely_migration`, `kysely_migration_lock`) go too.
 */
export async function migrateDownAll<DB>(db: Kysely<DB>): Promise<MigrationOutcome> {
  const { results, error } = await migrator(db).migrateTo(NO_MIGRATIONS);
  const reverted = outcome(results, error);
  await sql`drop table if exists ${sql.table(DEFAULT_MIGRATION_TABLE)},
                                ${sql.table(DEFAULT_MIGRATION_LOCK_TABLE)}`.execute(db);
  return reverted;
}
