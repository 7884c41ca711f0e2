import type { Kysely } from 'kysely';
import { STREAM_MANIFESTS } from '../streams/registry.js';
import { SYNC_TABLES } from '../warehouse/bookkeeping.js';
import type { DatabaseOf, SourceTable } from '../warehouse/schema.js';

type Manifest = (typeof STREAM_MANIFESTS)[number];

/**
 * The warehouse's tables, assembled from their declarations: each registered stream's (in its
 * folder, parent table first, carried by its manifest) and the sync's bookkeeping.
 */
export const STREAM_TABLES = Object.fromEntries(
  STREAM_MANIFESTS.map((manifest) => [manifest.name, manifest.tables]),
) as {
  readonly [M in Manifest as M['name']]: M['tables'];
};

export const SOURCE_TABLES = STREAM_MANIFESTS.flatMap(
  (manifest): readonly SourceTable[] => manifest.tables,
) as Manifest['tables'][number][];

/** Tables the warehouse keeps from the streams' own (`derivedTables` of a manifest). */
export const DERIVED_TABLES = STREAM_MANIFESTS.flatMap((manifest) =>
  'derivedTables' in manifest ? manifest.derivedTables : [],
) as DerivedTable[];
type DerivedTable = Extract<Manifest, { derivedTables: unknown }>['derivedTables'][number];

export const WAREHOUSE_TABLES = [...SOURCE_TABLES, ...DERIVED_TABLES, ...SYNC_TABLES];

/** Names of the tables that hold source data (as opposed to the sync's bookkeeping). */
export const SOURCE_TABLE_NAMES = SOURCE_TABLES.map((table) => table.name);

/** The source tables and what the warehouse keeps from them: what a reader given the base tables may read. */
export const BASE_TABLE_NAMES = [...SOURCE_TABLES, ...DERIVED_TABLES].map((table) => table.name);

/** The warehouse as Kysely sees it, derived from the declarations. */
export type Warehouse = DatabaseOf<typeof WAREHOUSE_TABLES>;
export type Db = Kysely<Warehouse>;
