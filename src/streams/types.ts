import type { Kysely } from 'kysely';
import type { z, ZodType } from 'zod';
import type { MethodVersion } from '../source/settings.js';
import type { SourceMethod, SourceRequest } from '../source/types.js';
import type { LoadRow } from '../warehouse/bulk-load/index.js';
import type { AnyDatabase, DatabaseOf, SourceTable, Table } from '../warehouse/schema.js';
import type { PersonalDeclaration } from './personal.js';
import type { SettingsBuilders } from './settings.js';

/**
 * A stream, declared in its folder's `manifest.ts`: everything it says of itself before its
 * code is loaded, enough for the configuration (its settings, its method's versions), the CLI
 * (its name) and the warehouse (its tables). Its code is in the folder's `stream.ts`
 * (`defineStream` joins the two), loaded by `loadStream`. A manifest loads neither zod nor its
 * stream's code: the CLI reads every manifest at start.
 */
export interface StreamManifest {
  name: string;
  /** Name of one record in logs and quarantine (`lease`). */
  entity: string;
  /** The source method it reads. */
  method: SourceMethod;
  /** What a backfill's range is read by (`move-in date`), for the CLI's help. */
  backfillBy: string;
  /**
   * Its settings schema (`streams.<name>`), each setting with its description, built from the
   * builders it is handed (`streamSettings` and its parts; `settingsSchemaOf` calls it).
   */
  settings(builders: SettingsBuilders): ZodType;
  /** Its tables, parent first (the warehouse's schema is assembled from these). */
  tables: readonly SourceTable[];
  /**
   * Tables the warehouse keeps from the stream's own by itself (a status history, by a trigger of
   * the stream's migration): in the catalog, the docs and the readers' grants; the engine never writes them.
   */
  derivedTables?: readonly Table[];
  /**
   * How one property's whole scope is read again and compared (`propsync verify`); absent: the stream is not verified.
   */
  verify?: VerifyDeclaration;
  /**
   * Where its records hold residents' personal data (the privacy policy keeps, hashes or drops it
   * there), and which personal-looking fields do not; the conformance suite checks it against
   * the recorded replies.
   */
  personal: PersonalDeclaration;
}

/**
 * What `propsync verify` needs of a stream, as data: the call that lists one property's whole
 * scope (every record, with every child the tables hold), and which parent rows of the
 * warehouse that listing covers. See docs/verify.md.
 */
export interface VerifyDeclaration {
  /** Parameters of the call besides the property (children, history and every status included). */
  params: SourceRequest['params'];
  /** The parameter naming the property, and whether it takes a list (`propertyIds`) or one id. */
  propertyParam: { name: string; list: boolean };
  /**
   * The warehouse rows the listing covers: the parents whose `column` of `table` (the parent
   * table, or a child table whose `parentColumn` names the parent) is the property.
   */
  covers: { table: string; column: string };
}

/** The values of a stream's settings (`streams.<name>` of the configuration), from its manifest's schema. */
export type StreamSettings<M extends Pick<StreamManifest, 'settings'>> = z.output<ReturnType<M['settings']>>;

/** The warehouse as a stream sees it: its own tables (`const db: TablesDb<typeof TABLES> = context.db`). */
export type TablesDb<Tables extends readonly Table[]> = Kysely<DatabaseOf<Tables>>;

/** A property as discovery lists it. */
export interface DiscoveredProperty {
  id: string;
  name: string;
  disabled: boolean;
}

/** How a run finds the properties the source lists: a method read whole, and one record read as a property. */
export interface Discovery {
  method: SourceMethod;
  /** The property of one record, or null for a record without an id. */
  property(record: unknown): DiscoveredProperty | null;
}

/**
 * A stream's code: how its cursors and the source's today become work units, and how one
 * source record becomes typed rows. `Settings` are the stream's own, `Rows` its tables' rows.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds streams of every settings type
export interface StreamCode<Settings = any, Rows = RowsByTable> {
  /** The incremental (or `full`) plan: one lane per property or property group. */
  plan(context: PlanContext<Settings>): Promise<Lane[]>;
  /** A backfill of an operator's range, cut into chunks. */
  planBackfill(context: PlanContext<Settings>, range: { from: string; to: string; chunk: string }): Lane[];
  /**
   * One source record → rows per table, or a `RecordError` (thrown) for the quarantine. The
   * parent row's `raw` is the record without the children that have tables of their own.
   */
  normalize(record: unknown, context: NormalizeContext): NormalizedRecord<Rows>;
  /** The record's key (as text) even when the record is otherwise invalid, if it has one. */
  recordKey(record: unknown): string | undefined;
}

/**
 * A stream, loaded: its manifest's declarations (which method it calls, its record's name, its
 * tables) with its code. The engine (src/sync/) runs the work units and knows no stream by name.
 */
export interface StreamDefinition<Name extends string = string>
  extends StreamCode, Pick<StreamManifest, 'method' | 'entity' | 'tables' | 'verify' | 'personal'> {
  name: Name;
}

/** What planning may look at. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds streams of every settings type
export interface PlanContext<Settings = any> {
  /**
   * The warehouse. A stream types it by its own tables (`const db: TablesDb<typeof TABLES> =
   * context.db`), never by the assembled warehouse.
   */
  db: AnyDatabase;
  /** The stream's own settings (`streams.<name>` of the configuration). */
  settings: Settings;
  /** Records per page the source is asked for. */
  pageSize: number;
  /** The source account planned for: a query of the warehouse reads this account's rows only (`account_id`). */
  accountId: string;
  /** The source's today, `YYYY-MM-DD` in the configured time zone. */
  today: string;
  propertyIds: string[];
  full: boolean;
  /** The current value and state of a cursor, if set. */
  cursor(
    scope: string,
    cursor: string,
  ): Promise<{ value: string | null; state: Record<string, unknown> } | undefined>;
}

export interface NormalizeContext {
  /** The version the method was called in. */
  version: MethodVersion;
}

/** Rows by table name. */
export type RowsByTable = { [table: string]: LoadRow[] | undefined };

/**
 * The rows of one record, by table name, and the parent's key. A stream's normalize returns
 * `NormalizedRecord<StreamRows>` with rows typed from its table declarations.
 */
export interface NormalizedRecord<Rows = RowsByTable> {
  key: number;
  rows: Rows;
  /**
   * Parts of the record that load or fail on their own (the units of a property's inventory): the
   * rows of each are the record's too, unless the part failed. Why: docs/sync.md#a-bad-part-of-a-record
   */
  parts?: NormalizedPart<Rows>[];
  /** What the run's log should tell of the record though it loads (a status kept as `other`, say). */
  notes?: string[];
}

/**
 * One part of a record: its rows (checked against their tables like the record's), or the error
 * (a `RecordError`, say) that keeps it out; `label` names it in the quarantine (`unit 5501`).
 */
export type NormalizedPart<Rows = RowsByTable> =
  { label: string; rows: Partial<Rows>; notes?: string[] } | { label: string; error: unknown };

/**
 * A sequence of steps that must run in order (e.g. one scope's listing, then what it no
 * longer lists); lanes run in parallel. A step is a work unit, or a function that decides
 * the next work units from what earlier steps of the lane loaded.
 */
export interface Lane {
  key: string;
  propertyIds: string[];
  steps: (WorkUnitPlan | ((context: StepContext) => Promise<WorkUnitPlan[]>))[];
}

/** What a dynamic step may look at: the warehouse and the work units already done in its lane. */
export interface StepContext {
  /** The warehouse, typed by the stream as in `PlanContext`. */
  db: AnyDatabase;
  /** The source account of the run: a query reads this account's rows only. */
  accountId: string;
  runId: number;
  /** Work unit ids of the lane's earlier steps in this run, by unit kind. */
  doneUnits: Map<string, number[]>;
}

/** One work unit: a request paged to its end, loaded page by page with its checkpoint. */
export interface WorkUnitPlan {
  stream: string;
  /** Kind of unit (`full`, `backfill`, or a stream's own kinds). */
  kind: string;
  /** Stable identity: the same work planned again (after a crash, or a rerun backfill) resumes. */
  unitKey: string;
  propertyIds: string[];
  window?: { from?: string; to?: string };
  request: SourceRequest;
  /** Record the keys of every record seen, for completion actions that find what is missing. */
  trackSeen: boolean;
  /** Done once the last page is loaded, in that page's transaction. */
  onComplete: CompletionAction[];
}

/** Declarative work done in the transaction of a work unit's last page. */
export type CompletionAction =
  | { type: 'cursor'; scope: string; cursor: string; value: string; state?: Record<string, unknown> }
  /**
   * Parent rows in scope that this unit did not see are marked deleted, with their children: the source no
   * longer lists them.
   */
  | { type: 'mark-unseen-deleted'; scope: { column: string; values: number[] } };
