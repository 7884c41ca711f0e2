import type { ColumnType, Kysely } from 'kysely';

/**
 * The declaration of a warehouse table, written once: its columns (Postgres type, nullability,
 * default, one-line meaning), its key, and for a child table the column naming its parent.
 * Kysely's row types, the bulk-load columns, the COMMENT ON statements and the column
 * reference in the docs are all derived from it; a test compares it with the migrated schema.
 */

/** Postgres types that columns are declared with (as `information_schema` and `format_type` spell them, short form). */
export type PgType =
  | 'bigint'
  | 'smallint'
  | 'integer'
  | 'text'
  | 'date'
  | 'boolean'
  | 'timestamptz'
  | 'jsonb'
  | 'numeric'
  | `numeric(${number},${number})`
  | 'bigint[]'
  | 'text[]';

/** The kinds of residents' personal data a column or a source field can hold (`privacy.classes`). */
export const PERSONAL_CLASSES = ['name', 'email', 'phone', 'address', 'birth_date', 'free_text'] as const;
export type PersonalClass = (typeof PERSONAL_CLASSES)[number];

/** One declared column. `D` says whether Postgres fills it when an insert leaves it out. */
export interface Column<T extends PgType = PgType, N extends boolean = boolean, D extends boolean = boolean> {
  readonly type: T;
  readonly nullable: N;
  readonly hasDefault: D;
  readonly meaning: string;
  /** The personal data it holds, if any: the privacy policy keeps, hashes or drops it. */
  readonly personal?: PersonalClass;
}

/** A column being declared: nullable and without default unless told otherwise. */
export class ColumnBuilder<T extends PgType, N extends boolean, D extends boolean> implements Column<
  T,
  N,
  D
> {
  constructor(
    readonly type: T,
    readonly meaning: string,
    readonly nullable: N,
    readonly hasDefault: D,
    readonly personal?: PersonalClass,
  ) {}

  /** `not null`. */
  notNull(): ColumnBuilder<T, false, D> {
    return new ColumnBuilder(this.type, this.meaning, false, this.hasDefault, this.personal);
  }

  /** Has a default (or is a serial): inserts may leave it out. */
  defaulted(): ColumnBuilder<T, N, true> {
    return new ColumnBuilder(this.type, this.meaning, this.nullable, true, this.personal);
  }

  /** Holds residents' personal data of this class. */
  personalData(kind: PersonalClass): ColumnBuilder<T, N, D> {
    return new ColumnBuilder(this.type, this.meaning, this.nullable, this.hasDefault, kind);
  }
}

const columnOf =
  <T extends PgType>(type: T) =>
  (meaning: string): ColumnBuilder<T, true, false> =>
    new ColumnBuilder(type, meaning, true, false);

export const bigint = columnOf('bigint');
export const smallint = columnOf('smallint');
export const integer = columnOf('integer');
export const text = columnOf('text');
export const date = columnOf('date');
export const boolean = columnOf('boolean');
export const timestamptz = columnOf('timestamptz');
export const jsonb = columnOf('jsonb');
export const bigintArray = columnOf('bigint[]');
export const textArray = columnOf('text[]');
/** An exact decimal; `numeric(14, 2)` for money, `numeric()` without precision for quantities and rates. */
export function numeric(meaning: string): ColumnBuilder<'numeric', true, false>;
export function numeric<P extends number, S extends number>(
  precision: P,
  scale: S,
  meaning: string,
): ColumnBuilder<`numeric(${P},${S})`, true, false>;
export function numeric(...args: [string] | [number, number, string]): ColumnBuilder<PgType, true, false> {
  return args.length === 1
    ? new ColumnBuilder('numeric', args[0], true, false)
    : new ColumnBuilder(`numeric(${args[0]},${args[1]})`, args[2], true, false);
}
/** A money amount: `numeric(14,2)`, exact. */
export const money = (meaning: string) => numeric(14, 2, meaning);

export type Columns = Readonly<Record<string, Column>>;

/** A declared table. */
export interface Table<Name extends string = string, C extends Columns = Columns> {
  readonly name: Name;
  /** What one row is, in one or two sentences (the table's comment and its docs paragraph). */
  readonly meaning: string;
  readonly columns: C;
  /** Key columns within an account, in order; the primary key is `account_id` and these (`primaryKey`). */
  readonly key: readonly string[];
  /** For child tables of a stream: the parent's key column (e.g. `lease_id`). */
  readonly parentColumn?: string;
  /** Secondary indexes (columns in order), for the docs; the migrations create them. */
  readonly indexes?: readonly (readonly string[])[];
}

/** A table as written in its declaration: key, parent and index columns must be its own columns. */
type TableDeclaration<Name extends string, C extends Columns> = Table<Name, C> & {
  readonly key: readonly (keyof C & string)[];
  readonly parentColumn?: keyof C & string;
  /** Secondary indexes within an account: each is declared without `account_id`, which leads it. */
  readonly indexes?: readonly (readonly (keyof C & string)[])[];
  /** Secondary indexes across accounts, as declared: a globally unique id looked up alone (`run_id`). */
  readonly crossAccountIndexes?: readonly (readonly (keyof C & string)[])[];
};

/** The column every table starts with: the source account a row belongs to. */
export const ACCOUNT_COLUMN = 'account_id';

const ACCOUNT = {
  [ACCOUNT_COLUMN]: text(
    'The source account the row belongs to (`accounts:` of the configuration; `default` for the one-account form).',
  ).notNull(),
};
type AccountColumn = typeof ACCOUNT;

/** The primary key of a table: the account, then the table's own key. */
export function primaryKey(table: Table): string[] {
  return [ACCOUNT_COLUMN, ...table.key];
}

/** Declares a table: `account_id` comes first, and leads its primary key and its indexes. */
export function defineTable<const Name extends string, const C extends Columns>(
  table: TableDeclaration<Name, C>,
): Table<Name, AccountColumn & C> {
  const { crossAccountIndexes, ...declared } = table;
  const indexes = [
    ...(table.indexes ?? []).map((index) => [ACCOUNT_COLUMN, ...index]),
    ...(crossAccountIndexes ?? []),
  ];
  return { ...declared, columns: { ...ACCOUNT, ...table.columns }, ...(indexes.length ? { indexes } : {}) };
}

/** The column of a stream's parent table holding the digest of the whole source record. */
export const SOURCE_HASH_COLUMN = 'source_hash';

/** The column of a stream's parent table holding the digest of the record's text as it came (XML), indexed. */
export const SOURCE_TEXT_HASH_COLUMN = 'source_text_hash';

const SOURCE_HASH = {
  [SOURCE_HASH_COLUMN]: text(
    'Digest of the whole source record (children included) as last loaded: a record that comes ' +
      'back identical is skipped without touching any row.',
  ),
};

/** The last column of a parent table (added after the sync columns). */
const SOURCE_TEXT_HASH = {
  [SOURCE_TEXT_HASH_COLUMN]: text(
    "Digest of the record's text as last loaded from an XML reply (null after JSON): " +
      'a record whose text comes back the same is passed over without being decoded.',
  ),
};

/** The column of a child table holding the digest of the row as last written (`rowHash` tables). */
export const ROW_HASH_COLUMN = 'row_hash';

/** The last column of a `rowHash` table (a migration appended it). */
const ROW_HASH = {
  [ROW_HASH_COLUMN]: text(
    'Digest of the row as last written: a row that comes back the same is neither sent nor ' +
      'compared again (null: the next run that reads it writes it).',
  ),
};

/** The columns the loader writes as digests, not as data: told apart from the data when deciding what to write. */
export const DIGEST_COLUMNS: readonly string[] = [
  SOURCE_HASH_COLUMN,
  SOURCE_TEXT_HASH_COLUMN,
  ROW_HASH_COLUMN,
];

/** The digest columns a table has (`DIGEST_COLUMNS`). */
export function digestColumnsOf(table: Table): string[] {
  return DIGEST_COLUMNS.filter((column) => column in table.columns);
}

/** A child table whose rows carry their own digest: a page's unchanged rows are not sent (`rowHash`). */
export function hasRowHash(table: Table): boolean {
  return ROW_HASH_COLUMN in table.columns;
}

/** The columns every source table ends with, filled by the sync rather than by a record's fields. */
export const SYNC_COLUMNS = {
  deleted_at: timestamptz('Set when the source stops listing the row; rows are never hard-deleted.'),
  raw: jsonb('The source record this row came from, so nothing the source sends is lost.').notNull(),
  first_synced_at: timestamptz('When a sync first wrote the row.').notNull().defaulted(),
  last_synced_at: timestamptz('When a sync last changed the row (an unchanged row is not rewritten).')
    .notNull()
    .defaulted(),
  last_run_id: bigint('The run (sync_runs.run_id) that last changed the row.'),
};
type SyncColumns = typeof SYNC_COLUMNS;
type SourceHash = typeof SOURCE_HASH & typeof SOURCE_TEXT_HASH;
type RowHash = typeof ROW_HASH;

/**
 * A table holding a stream's records: its own columns, then `source_hash` (parents), then the sync columns,
 * then `source_text_hash` (parents).
 */
export type SourceTable<Name extends string = string, C extends Columns = Columns> = Table<Name, C> & {
  readonly sourceHash: boolean;
};

/**
 * Declares a table of a stream. The stream's parent table sets `sourceHash` (a record that
 * comes back identical is skipped); its children set `parentColumn`.
 */
export function defineSourceTable<
  const Name extends string,
  const C extends Columns,
  const H extends boolean = false,
  const A extends Columns = {},
  const R extends boolean = false,
>(
  table: TableDeclaration<Name, C> & {
    sourceHash?: H;
    /**
     * A child table whose rows carry their digest (`row_hash`, added last): on an incremental, the
     * rows of a page that match their stored digest are not sent. For children of records that
     * change every run while most of their rows do not (a property's unit inventory).
     */
    rowHash?: R;
    /**
     * Columns a later migration appended (Postgres adds a column last): they follow every other column, in
     * the order added.
     */
    addedColumns?: A;
  },
): SourceTable<
  Name,
  AccountColumn & C & (H extends true ? SourceHash : {}) & SyncColumns & A & (R extends true ? RowHash : {})
> {
  const { addedColumns, rowHash, ...rest } = table;
  const columns = {
    ...table.columns,
    ...(table.sourceHash ? SOURCE_HASH : {}),
    ...SYNC_COLUMNS,
    ...(table.sourceHash ? SOURCE_TEXT_HASH : {}),
    ...addedColumns,
    ...(rowHash ? ROW_HASH : {}),
  };
  const indexes = table.sourceHash ? [...(table.indexes ?? []), [SOURCE_TEXT_HASH_COLUMN]] : table.indexes;
  const declared = defineTable({ ...rest, columns, ...(indexes ? { indexes } : {}) } as TableDeclaration<
    Name,
    Columns
  >);
  return { ...declared, sourceHash: table.sourceHash === true } as unknown as SourceTable<
    Name,
    AccountColumn & C & (H extends true ? SourceHash : {}) & SyncColumns & A & (R extends true ? RowHash : {})
  >;
}

/**
 * The TypeScript value of a Postgres type as read (see db.ts for the parsers); `timestamptz` is written as
 * Date or ISO text.
 */
type SelectValue<T extends PgType> = T extends 'bigint' | 'smallint' | 'integer'
  ? number
  : T extends 'text' | 'date' | 'numeric' | `numeric(${string})`
    ? string
    : T extends 'boolean'
      ? boolean
      : T extends 'timestamptz'
        ? Date
        : T extends 'bigint[]'
          ? number[]
          : T extends 'text[]'
            ? string[]
            : unknown;
type InsertValue<T extends PgType> = T extends 'timestamptz' ? Date | string : SelectValue<T>;
type OrNull<C extends Column, V> = C['nullable'] extends true ? V | null : V;

/** Kysely's view of one column: select, insert (optional when defaulted) and update types. */
export type ColumnTypeOf<C extends Column> = ColumnType<
  OrNull<C, SelectValue<C['type']>>,
  C['hasDefault'] extends true
    ? OrNull<C, InsertValue<C['type']>> | undefined
    : OrNull<C, InsertValue<C['type']>>,
  OrNull<C, InsertValue<C['type']>>
>;

/** Kysely's table interface of a declared table. */
export type RowTypeOf<T extends Table> = {
  -readonly [K in keyof T['columns']]: ColumnTypeOf<T['columns'][K]>;
};

/**
 * The warehouse typed by none of its tables: for code generic over every declared table (the
 * table is chosen at run time, its statements built from its declaration), and for the streams,
 * each of which types it by its own tables.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- code shared by every stream's table set
export type AnyDatabase = Kysely<any>;

/** Kysely's database type of a list of declared tables. */
export type DatabaseOf<Ts extends readonly Table[]> = { [T in Ts[number] as T['name']]: RowTypeOf<T> };

/** Columns of a source table that normalization does not fill (the sync does). */
type SyncFilled =
  | Exclude<keyof SyncColumns, 'raw'>
  | typeof SOURCE_HASH_COLUMN
  | typeof SOURCE_TEXT_HASH_COLUMN
  | typeof ROW_HASH_COLUMN
  | typeof ACCOUNT_COLUMN;

/**
 * A row as normalization produces it for bulk loading: every column of the declaration except
 * those the sync fills, with the value it inserts; `raw` is the source record.
 */
export type LoadRowOf<T extends Table> = {
  -readonly [K in Exclude<keyof T['columns'], SyncFilled>]: OrNull<
    T['columns'][K],
    InsertValue<T['columns'][K]['type']>
  >;
} & {
  [SOURCE_HASH_COLUMN]?: string | null;
  [SOURCE_TEXT_HASH_COLUMN]?: string | null;
  [ROW_HASH_COLUMN]?: string | null;
};

/** The rows of one record, by table name, for a stream's tables. */
export type RowsOf<Ts extends readonly Table[]> = { [T in Ts[number] as T['name']]?: LoadRowOf<T>[] };

/** The Postgres type without precision (`numeric(14,2)` → `numeric`): what bulk loading casts to. */
function baseType(type: PgType): string {
  return type.replace(/\(.*\)$/, '');
}

/**
 * The columns a bulk load writes for a source table from its rows (all but the sync's own), with
 * the type it casts to; not `account_id`, which the load writes from its account for every row.
 */
export function loadColumns(table: SourceTable): [column: string, castType: string][] {
  return Object.entries(table.columns)
    .filter(([name]) => name !== ACCOUNT_COLUMN && (!(name in SYNC_COLUMNS) || name === 'raw'))
    .map(([name, column]) => [name, baseType(column.type)]);
}
