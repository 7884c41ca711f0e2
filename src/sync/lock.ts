import { hostname } from 'node:os';
import pg from 'pg';

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
  /** `propsync lock <stream> pid=<pid> host=<host>` for propsync processes. */
  applicationName: string;
  /** Since when the holding session has been connected. */
  since: Date | null;
}

/** What `withStreamLock` did: ran `fn` under the lock, or skipped it because someone else held it. */
export type LockOutcome<T> = { acquired: true; value: T } | { acquired: false; holder: LockHolder | null };

/** What `fn` receives while it holds the lock. */
export interface HeldLock {
  /**
   * Aborted when the lock's connection is lost: Postgres has then released the lock and
   * another process may start the same stream, so the holder must stop starting new work.
   */
  signal: AbortSignal;
}

/** A 32-bit key of a stream name (FNV-1a), stable across processes and versions. */
export function streamLockKey(stream: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(stream, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

/** The application name a lock connection announces, so the loser can say who holds the lock. */
export function lockApplicationName(stream: string): string {
  return `propsync lock ${stream} pid=${process.pid} host=${hostname()}`.slice(0, 63);
}

/**
 * Runs `fn` while holding the cross-process lock of one stream: a session-level Postgres
 * advisory lock (`pg_try_advisory_lock`) on a connection of its own, so it is held exactly as
 * long as `fn` runs, and released by Postgres if this process dies. Does not wait: when another
 * process holds the lock, `fn` is not called and the holder is returned. Advisory locks are
 * per database, so two processes sharing a warehouse exclude each other, wherever they run.
 */
export async function withStreamLock<T>(databaseUrl: string, stream: string, fn: (lock: HeldLock) => Promise<T>): Promise<LockOutcome<T>> {
  // TCP keepalive from 10 s of silence, so that a NAT or firewall never drops the idle lock connection
  // of a long run; the heartbeat query below notices a connection that died anyway.
  const client = new pg.Client({ connectionString: databaseUrl, application_name: lockApplicationName(stream), keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
  const lost = new AbortController();
  client.on('error', (error) => lost.abort(new Error(`lost the lock connection of stream ${stream}: ${error.message}`)));
  client.on('end', () => lost.abort(new Error(`the lock connection of stream ${stream} ended`)));
  await client.connect();
  let locked = false;
  let heartbeat: NodeJS.Timeout | undefined;
  try {
    const key = streamLockKey(stream);
    const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1::int, $2::int) as locked', [LOCK_NAMESPACE, key]);
    locked = rows[0]?.locked === true;
    if (!locked) return { acquired: false, holder: await findHolder(client, key) };
    heartbeat = setInterval(() => {
      client.query('select 1').catch((error: Error) => lost.abort(new Error(`lost the lock connection of stream ${stream}: ${error.message}`)));
    }, LOCK_HEARTBEAT_MS);
    heartbeat.unref();
    const value = await fn({ signal: lost.signal });
    return { acquired: true, value };
  } finally {
    clearInterval(heartbeat);
    if (locked && !lost.signal.aborted) {
      await client.query('select pg_advisory_unlock($1::int, $2::int)', [LOCK_NAMESPACE, streamLockKey(stream)]).catch(() => {});
    }
    client.removeAllListeners('end');
    await client.end().catch(() => {});
  }
}

/**
 * Runs `fn` while holding the locks of several streams (taken in name order, without waiting).
 * When any of them is held elsewhere, the ones taken are released and `fn` is not called.
 */
export async function withStreamLocks<T>(
  databaseUrl: string,
  streams: readonly string[],
  fn: (lock: HeldLock) => Promise<T>,
): Promise<{ acquired: true; value: T } | { acquired: false; stream: string; holder: LockHolder | null }> {
  const ordered = [...new Set(streams)].sort();
  const signals: AbortSignal[] = [];
  const step = async (index: number): Promise<{ acquired: true; value: T } | { acquired: false; stream: string; holder: LockHolder | null }> => {
    if (index === ordered.length) return { acquired: true, value: await fn({ signal: AbortSignal.any(signals) }) };
    const outcome = await withStreamLock(databaseUrl, ordered[index], (held) => {
      signals.push(held.signal);
      return step(index + 1);
    });
    if (!outcome.acquired) return { acquired: false, stream: ordered[index], holder: outcome.holder };
    return outcome.value;
  };
  return step(0);
}

async function findHolder(client: pg.Client, key: number): Promise<LockHolder | null> {
  const { rows } = await client.query<{ pid: number; application_name: string; backend_start: Date | null }>(
    `select a.pid, a.application_name, a.backend_start
       from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and l.database = (select oid from pg_database where datname = current_database())
        and l.classid = ($1::int)::oid and l.objid = ($2::int)::oid and l.objsubid = 2
      limit 1`,
    [LOCK_NAMESPACE, key],
  );
  const row = rows[0];
  return row ? { backendPid: row.pid, applicationName: row.application_name, since: row.backend_start } : null;
}

/** A sentence naming who holds a lock, for the loser's log line or error message. */
export function describeHolder(stream: string, holder: LockHolder | null): string {
  if (!holder) return `stream ${stream} is being synced by another propsync process`;
  const who = holder.applicationName.startsWith('propsync lock') ? holder.applicationName.replace(/^propsync lock \S+ /, '') : `backend ${holder.backendPid}`;
  return `stream ${stream} is being synced by another propsync process (${who})`;
}
