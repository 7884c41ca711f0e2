import pg from 'pg';
import { isLockTimeout } from './connection-errors.js';

/** Relation locks that make a plain insert, update or delete wait. */
const BLOCKING_MODES = ['ShareLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock'];

/** A session holding a lock, as `pg_locks` and `pg_stat_activity` show it. */
interface Holder {
  pid: number;
  application_name: string;
  state: string | null;
  xact_start: Date | null;
  relname: string;
  mode: string;
}

/** A lock wait that ran out of `lock_timeout`, said with the table and who holds it. */
export class LockWaitError extends Error {
  override name = 'LockWaitError';
  /** Still SQLSTATE 55P03 (lock_not_available), as the error it explains. */
  readonly code = '55P03';
}

/** The session setting the explanation names. */
export interface WaitLimits {
  lockTimeoutMs?: number;
}

/**
 * The error to report for `error`: a lock wait that timed out becomes a `LockWaitError` naming
 * the table (from the error's context, else the tables other sessions hold strong locks on) and
 * the sessions holding it (pid, application name, state: never a user or a password), read on
 * a connection of its own to `url`. Other errors pass as they are.
 */
export async function explainWait(url: string, error: unknown, limits: WaitLimits): Promise<unknown> {
  if (!isLockTimeout(error) || error instanceof LockWaitError) return error;
  const table = /relation "([^"]+)"/.exec(String((error as { where?: unknown }).where ?? ''))?.[1];
  const holders = await findHolders(url, table).catch(() => []);
  const waited =
    limits.lockTimeoutMs === undefined
      ? 'too long'
      : `${limits.lockTimeoutMs / 1000} s (database.lockTimeoutMs)`;
  const what = table ?? holders[0]?.relname;
  const lock = what ? `a lock on table ${what}` : 'a lock';
  const held = holders.length
    ? `held by ${holders.map(describe).join('; ')}`
    : 'the session that held it has let go since';
  return new LockWaitError(
    `waited ${waited} for ${lock} and gave up: ${held}; end that session or let it finish, then run again`,
    { cause: error },
  );
}

function describe(holder: Holder): string {
  const since = holder.xact_start ? ` since ${holder.xact_start.toISOString()}` : '';
  const state = holder.state ? `, ${holder.state}${since}` : '';
  return (
    `pid ${holder.pid} (application_name "${holder.application_name}", ${holder.mode} ` +
    `on ${holder.relname}${state})`
  );
}

/**
 * Other sessions holding locks on `table` (any mode), or strong locks on any table when it is
 * unknown; the oldest transactions first, without the sessions that wait for a lock themselves.
 */
async function findHolders(url: string, table: string | undefined): Promise<Holder[]> {
  const client = new pg.Client({
    connectionString: url,
    application_name: 'propsync wait check',
    statement_timeout: 5_000,
    connectionTimeoutMillis: 5_000,
  });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<Holder>(
      `select a.pid, a.application_name, a.state, a.xact_start, c.relname::text as relname, l.mode
         from pg_locks l
         join pg_class c on c.oid = l.relation
         join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'relation' and l.granted and l.pid <> pg_backend_pid()
          and l.database = (select oid from pg_database where datname = current_database())
          -- not the sessions waiting in line (they hold the table too, to write it)
          and a.wait_event_type is distinct from 'Lock'
          and c.relnamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
          and case when $1::text is null then l.mode = any($2::text[]) else c.relname = $1 end
        order by a.xact_start nulls last, a.pid
        limit 3`,
      [table ?? null, BLOCKING_MODES],
    );
    return rows;
  } finally {
    await client.end().catch(() => {});
  }
}
