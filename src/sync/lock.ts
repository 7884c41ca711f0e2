import { hostname } from 'node:os';
import { sql } from 'kysely';
import pg from 'pg';
import type { Logger } from '../log/logger.js';
import { escapeControls } from '../log/redact.js';
import type { Db } from '../catalog/tables.js';
import { sessionConfig, type SessionTimeouts } from '../warehouse/db.js';
import { prepared } from '../warehouse/prepared.js';
import { createReconnect, type ReconnectSettings } from '../warehouse/reconnect.js';
import { messageOf } from '../log/errors.js';

/**
 * The first half of every propsync advisory lock key ("psyn"), so that propsync's locks never
 * collide with another application's advisory locks on the same database.
 */
export const LOCK_NAMESPACE = 0x7073796e;

/** How often the lock connection is used while a run holds it (a query that fails means the lock is lost). */
export const LOCK_HEARTBEAT_MS = 30_000;

/** Who holds a stream's lock, as Postgres reports it (`pg_locks` joined to `pg_stat_activity`). */
export interface LockHolder {
  /** Backend pid of the holding session on the Postgres server. */
  backendPid: number;
  /** `propsync lock <key> pid=<pid> host=<host>` for propsync processes. */
  applicationName: string;
  /** The role the holding session logged in as. */
  role: string | null;
  /** The session is a propsync process's: propsync's application name, logged in as the same role as the loser. */
  propsync: boolean;
  /** Since when the holding session has been connected. */
  since: Date | null;
}

/** What `withStreamLock` did: ran `fn` under the lock, or skipped it because someone else held it. */
export type LockOutcome<T> = { acquired: true; value: T } | { acquired: false; holder: LockHolder | null };

/** What `fn` receives while it holds the lock. */
export interface HeldLock {
  /**
   * Aborted when the lock is lost for good: another process took it while its connection was
   * down, or it could not be taken again within the outage allowed. The holder must stop.
   */
  signal: AbortSignal;
  /**
   * Inside a transaction on `db`: throws `LockNotHeldError` unless the lock's session holds the
   * lock of `stream` at this moment, so that a page never commits without it (a stream the
   * lock does not cover is not checked).
   */
  verify(db: Db, stream: string): Promise<void>;
}

/** How a lock is held. */
export interface LockOptions {
  /** Limits of the lock's session. */
  timeouts?: SessionTimeouts;
  /** Take the lock again, on a new connection, when its connection is lost; without it, the loss aborts at once. */
  reconnect?: ReconnectSettings;
  logger?: Pick<Logger, 'info' | 'warn'>;
  /**
   * Take the lock in share mode: any number of shared holders at once, none beside the one
   * exclusive holder. Workers share a stream's lock (each lane has its own lock besides), so a
   * `sync` of the same stream waits for them and they wait for it.
   */
  shared?: boolean;
}

/** A page's transaction found its stream's lock not held (its connection was lost and it is being taken again). */
export class LockNotHeldError extends Error {
  override name = 'LockNotHeldError';
}

/** A 32-bit key of a lock's name (FNV-1a: an account's stream, an account), stable across processes and versions. */
export function lockKey(name: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(name, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

/** The first half of the key of the lock an account's pages take to run again after a deadlock ("psyr"). */
const PAGE_RETRY_NAMESPACE = 0x70737972;

/**
 * The transaction-scoped lock that an account's page loads take when they run again after a
 * deadlock: the pages that met run again one at a time (`inTransaction`), per account.
 */
export function pageRetryLockKey(account: string): [number, number] {
  return [PAGE_RETRY_NAMESPACE, lockKey(account)];
}

/** The name of an account's stream lock: accounts never wait for each other. */
export function lockName(account: string, stream: string): string {
  return `${account}/${stream}`;
}

/**
 * The application name a lock connection announces, so the loser can say who holds the lock. Any login sees it
 * (pg_stat_activity), so it names the lock by its key (already public in pg_locks), never the account or lane.
 */
export function lockApplicationName(stream: string): string {
  return `propsync lock ${lockTag(stream)} pid=${process.pid} host=${hostname()}`.slice(0, 63);
}

/** The key of a lock's name as its application name shows it (8 hex digits). */
export function lockTag(name: string): string {
  return (lockKey(name) >>> 0).toString(16).padStart(8, '0');
}

/**
 * Runs `fn` while holding the cross-process lock of one stream: a session-level Postgres
 * advisory lock (`pg_try_advisory_lock`) on a connection of its own, so it is held exactly as
 * long as `fn` runs, and released by Postgres if this process dies. Does not wait: when another
 * process holds the lock, `fn` is not called and the holder is returned. Advisory locks are
 * per database, so two processes sharing a warehouse exclude each other, wherever they run.
 * With `options.reconnect`, a lost lock connection is opened again and the lock taken again.
 */
export async function withStreamLock<T>(
  databaseUrl: string,
  stream: string,
  fn: (lock: HeldLock) => Promise<T>,
  options: LockOptions = {},
): Promise<LockOutcome<T>> {
  const session = new LockSession(databaseUrl, stream, options);
  try {
    const taken = await session.take();
    if (!taken.taken) return { acquired: false, holder: taken.holder };
    const value = await fn({
      signal: session.lost.signal,
      verify: (db, name) => (name === stream ? session.verify(db) : Promise.resolve()),
    });
    return { acquired: true, value };
  } finally {
    await session.release();
  }
}

/**
 * Runs `fn` while holding the locks of several streams, without waiting: the first in name order
 * first, then the others side by side, each on a connection of its own (a connection's start-up
 * is most of a lock's cost: opened one after the other, they delayed a run's first call). Two
 * processes after the same streams meet on the first: the loser takes no other. When any of them
 * is held elsewhere, the ones taken are released and `fn` is not called.
 */
export async function withStreamLocks<T>(
  databaseUrl: string,
  streams: readonly string[],
  fn: (lock: HeldLock) => Promise<T>,
  options: LockOptions = {},
): Promise<{ acquired: true; value: T } | { acquired: false; stream: string; holder: LockHolder | null }> {
  const ordered = [...new Set(streams)].sort();
  const sessions = ordered.map((stream) => new LockSession(databaseUrl, stream, options));
  try {
    const first = await Promise.allSettled(sessions.slice(0, 1).map((session) => session.take()));
    const rest = await Promise.allSettled(
      first.every((outcome) => outcome.status === 'fulfilled' && outcome.value.taken)
        ? sessions.slice(1).map((session) => session.take())
        : [],
    );
    const outcomes = [...first, ...rest];
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    for (const [index, outcome] of outcomes.entries())
      if (outcome.status === 'fulfilled' && !outcome.value.taken)
        return { acquired: false, stream: ordered[index], holder: outcome.value.holder };
    const signal = AbortSignal.any(sessions.map((session) => session.lost.signal));
    const value = await fn({
      signal,
      verify: (db, stream) => sessions[ordered.indexOf(stream)]?.verify(db) ?? Promise.resolve(),
    });
    return { acquired: true, value };
  } finally {
    await Promise.all(sessions.map((session) => session.release()));
  }
}

/** The connection that holds one stream's lock, taken again when the connection is lost. */
class LockSession {
  /** Aborted when the lock is lost for good. */
  readonly lost = new AbortController();
  private readonly key: number;
  private client: pg.Client | undefined;
  /** Backend pid of the session holding the lock; undefined while it is being taken again. */
  private pid: number | undefined;
  private released = false;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly url: string,
    private readonly stream: string,
    private readonly options: LockOptions,
  ) {
    this.key = lockKey(stream);
    // The heartbeat query notices a connection that died without a word.
    this.heartbeat = setInterval(() => {
      const client = this.client;
      client?.query('select 1').catch((error: Error) => this.onLost(client, error));
    }, LOCK_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Opens a connection and tries the lock on it; when another session holds it, says which. */
  async take(): Promise<{ taken: true } | { taken: false; holder: LockHolder | null }> {
    const client = new pg.Client(
      sessionConfig(this.url, lockApplicationName(this.stream), this.options.timeouts),
    );
    client.on('error', (error) => this.onLost(client, error));
    client.on('end', () => this.onLost(client, new Error('the connection ended')));
    try {
      await client.connect();
      const tryLock = this.options.shared ? 'pg_try_advisory_lock_shared' : 'pg_try_advisory_lock';
      const { rows } = await client.query<{ locked: boolean; pid: number }>(
        `select ${tryLock}($1::int, $2::int) as locked, pg_backend_pid() as pid`,
        [LOCK_NAMESPACE, this.key],
      );
      if (rows[0]?.locked !== true) {
        const holder = await findHolder(client, this.key);
        await closeQuietly(client);
        return { taken: false, holder };
      }
      this.client = client;
      this.pid = rows[0].pid;
      return { taken: true };
    } catch (error) {
      await closeQuietly(client);
      throw error;
    }
  }

  /** Inside a transaction on `db`: throws unless this session holds the lock now. */
  async verify(db: Db): Promise<void> {
    const { pid, client } = this;
    const notHeld =
      `the lock of stream ${this.stream} is not held at the moment (its connection was lost; ` +
      `it is being taken again)`;
    if (pid === undefined) throw new LockNotHeldError(notHeld);
    const { rows } = await prepared(sql<{ held: boolean }>`
      select exists (
        select 1 from pg_locks
         where locktype = 'advisory' and granted and pid = ${pid}
           and database = (select oid from pg_database where datname = current_database())
           and classid = (${LOCK_NAMESPACE}::int)::oid and objid = (${this.key}::int)::oid
           and objsubid = 2) as held`).execute(db);
    if (rows[0]?.held === true) return;
    if (client) this.onLost(client, new Error('its session no longer holds the lock'));
    throw new LockNotHeldError(notHeld);
  }

  /** Unlocks (ending the session releases the lock anyway) and closes the connection. */
  async release(): Promise<void> {
    this.released = true;
    clearInterval(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    this.pid = undefined;
    if (!client) return;
    const unlock = this.options.shared ? 'pg_advisory_unlock_shared' : 'pg_advisory_unlock';
    await client.query(`select ${unlock}($1::int, $2::int)`, [LOCK_NAMESPACE, this.key]).catch(() => {});
    await closeQuietly(client);
  }

  /** The lock's connection `client` was lost: Postgres has released the lock; take it again, or give up. */
  private onLost(client: pg.Client, error: Error): void {
    if (client !== this.client || this.released) return;
    this.client = undefined;
    this.pid = undefined;
    void closeQuietly(client);
    const lost = `lost the lock connection of stream ${this.stream}: ${error.message}`;
    if (!this.options.reconnect) {
      this.lost.abort(new Error(lost));
      return;
    }
    this.options.logger?.warn(
      { event: 'stream_lock_lost', stream: this.stream, err: error.message },
      `${lost}; taking the lock again`,
    );
    void this.retake(this.options.reconnect);
  }

  private async retake(settings: ReconnectSettings): Promise<void> {
    const reconnect = createReconnect(settings, { unref: true });
    try {
      const outcome = await reconnect.execute(() =>
        this.released ? Promise.resolve({ taken: false as const, holder: null }) : this.take(),
      );
      if (this.released) return void (await this.release());
      if (!outcome.taken) {
        this.lost.abort(
          new Error(
            `lost the lock of stream ${this.stream} while its connection was ` +
              `down: ${describeHolder(this.stream, outcome.holder)} now`,
          ),
        );
        return;
      }
      this.options.logger?.info(
        { event: 'stream_lock_retaken', stream: this.stream },
        `took the lock of stream ${this.stream} again`,
      );
    } catch (error) {
      this.lost.abort(
        new Error(
          `lost the lock connection of stream ${this.stream} and could not take the lock again ` +
            `within ${settings.maxOutageMs / 1000} s: ${messageOf(error)}`,
        ),
      );
    }
  }
}

/** Ends a client that is no longer wanted; its later errors are ignored. */
async function closeQuietly(client: pg.Client): Promise<void> {
  client.removeAllListeners('end');
  client.removeAllListeners('error');
  client.on('error', () => {});
  await client.end().catch(() => {});
}

async function findHolder(client: pg.Client, key: number): Promise<LockHolder | null> {
  const { rows } = await client.query<{
    pid: number;
    application_name: string;
    backend_start: Date | null;
    usename: string | null;
    same_role: boolean;
  }>(
    `select a.pid, a.application_name, a.backend_start, a.usename::text, a.usename = current_user as same_role
       from pg_locks l join pg_stat_activity a on a.pid = l.pid
 ` +
      `     where l.locktype = 'advisory' and l.granted and l.database = (select oid from ` +
      `pg_database where datname = current_database())
        and l.classid = ($1::int)::oid and l.objid = ($2::int)::oid and l.objsubid = 2
      limit 1`,
    [LOCK_NAMESPACE, key],
  );
  const row = rows[0];
  return row
    ? {
        backendPid: row.pid,
        applicationName: row.application_name,
        since: row.backend_start,
        role: row.usename,
        propsync: row.same_role && row.application_name.startsWith('propsync lock '),
      }
    : null;
}

/**
 * A sentence naming who holds a lock, for the loser's log line or error message: another propsync process, or a
 * session that is not propsync's (by its role, application and backend), which an administrator may end.
 */
export function describeHolder(stream: string, holder: LockHolder | null): string {
  if (!holder) return `stream ${stream} is being synced by another propsync process`;
  if (holder.propsync)
    return (
      `stream ${stream} is being synced by another propsync process ` +
      `(${holder.applicationName.replace(/^propsync lock \S+ /, '')})`
    );
  const application = holder.applicationName
    ? `, application '${escapeControls(holder.applicationName)}'`
    : '';
  return (
    `the lock of stream ${stream} is held by a session that is not propsync (role ${holder.role ?? 'unknown'}` +
    `${application}, backend ${holder.backendPid}); an administrator may end it with ` +
    `select pg_terminate_backend(${holder.backendPid}), and should revoke that role's rights on pg_advisory_lock ` +
    '(see docs/operating.md)'
  );
}
