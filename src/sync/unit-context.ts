import type { Db } from '../catalog/tables.js';
import type { Logger } from '../log/logger.js';
import type { MethodVersion } from '../source/settings.js';
import type { SourceClient } from '../source/types.js';
import type { StreamName } from '../streams/registry.js';
import type { StreamDefinition } from '../streams/types.js';
import type { Reconnect } from '../warehouse/reconnect.js';
import type { LoadStatistics } from '../warehouse/statistics.js';
import type { FirstLoads } from './first-load.js';
import type { HeldLock } from './lock.js';
import type { PrivacyPolicy } from './privacy/policy.js';
import type { SyncObserver } from './types.js';

/** Everything a unit needs to run. */
export interface UnitContext {
  db: Db;
  /** The source account of the run. */
  account: string;
  client: SourceClient;
  stream: StreamDefinition<StreamName>;
  /** The version the stream's method is called in. */
  version: MethodVersion;
  runId: number;
  logger: Logger;
  signal?: AbortSignal;
  observer?: SyncObserver;
  /** The client's page size (`per_page`), which checkpoints count in. */
  perPage: number;
  /** The latest day a cursor may be written at: the local today + 1 (see `latestCursorDay`). */
  latestDay: string;
  /** Runs the unit's database work again, on a new connection, when the connection is lost. */
  reconnect: Reconnect;
  /** The locks of the run's streams: each page's transaction checks its stream's. */
  lock?: HeldLock;
  /** Statistics taken as pages insert rows, where Postgres's would take the account's rows for none. */
  statistics: LoadStatistics;
  /** The streams the account had no rows of when the run began, whose pages are copied in without lookups. */
  firstLoads: FirstLoads;
  /** The personal-data policy each page applies before writing (none: everything kept). */
  privacy?: PrivacyPolicy;
}
