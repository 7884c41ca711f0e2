/**
 * `propsync check`, the "test connection" step: the warehouse (reachable, TLS, migrations, the
 * role's rights) and each account's credentials with one call, one line each saying what to fix.
 */
import { sql } from 'kysely';
import type { Account, Config } from '../config/schema.js';
import { redactUrl, scrubSecrets } from '../log/redact.js';
import { createSourceClient } from '../source/client.js';
import { isPermanentSourceError } from '../sync/errors.js';
import { TransportError } from '../source/errors.js';
import { DISCOVERY } from '../streams/load-stream.js';
import { WAREHOUSE_TABLES, type Db, type Warehouse } from '../catalog/tables.js';
import { QUEUE_SCHEMA } from '../queue/jobs.js';
import { connect } from '../warehouse/db.js';
import { pendingMigrations } from '../warehouse/migrate.js';
import { describeTls, sessionTls, tlsSettingsOf } from '../warehouse/tls.js';
import { sessionTimeouts, unreachable } from './warehouse.js';
import { messageOf } from '../log/errors.js';

/** One line of the check: what was checked, whether it is fine, and what to fix when not. */
export interface CheckLine {
  what: string;
  ok: boolean;
  text: string;
}

/** The privileges a sync needs on every warehouse table. */
const TABLE_PRIVILEGES = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'] as const;

/** The warehouse's lines: connection and TLS, migrations, the role's rights. */
export async function checkWarehouse(config: Pick<Config, 'database'>): Promise<CheckLine[]> {
  const { url } = config.database;
  const shown = redactUrl(url);
  const db: Db = connect<Warehouse>(url, {
    maxConnections: 1,
    applicationName: 'propsync check',
    timeouts: sessionTimeouts(config.database),
  });
  try {
    let tls;
    try {
      tls = await sessionTls(db);
    } catch (error) {
      return [{ what: 'database', ok: false, text: unreachable(url, error) }];
    }
    const lines: CheckLine[] = [
      { what: 'database', ok: true, text: `reachable at ${shown}; ${describeTls(tlsSettingsOf(url), tls)}` },
    ];
    let pending: string[] = [];
    try {
      pending = await pendingMigrations(db);
      lines.push(
        pending.length
          ? {
              what: 'migrations',
              ok: false,
              text: `${pending.length} pending (${pending.join(', ')}); run \`propsync migrate\``,
            }
          : { what: 'migrations', ok: true, text: 'current' },
      );
    } catch (error) {
      lines.push({
        what: 'migrations',
        ok: false,
        text: `cannot be read (${messageOf(error)}); connect as the role that ran \`propsync migrate\``,
      });
    }
    lines.push(await roleRights(db, pending.length > 0));
    return lines;
  } finally {
    await db.destroy();
  }
}

/**
 * Whether the role may do what propsync does: before the first migration, create schemas and
 * tables; after it, read and write every warehouse table and use the queue's schema.
 */
async function roleRights(db: Db, migrating: boolean): Promise<CheckLine> {
  const { rows } = await sql<{ role: string; database: string; create_db: boolean; create_public: boolean }>`
    select current_user as role, current_database() as database,
           has_database_privilege(current_database(), 'CREATE') as create_db,
           has_schema_privilege('public', 'CREATE') as create_public`.execute(db);
  const { role, database, create_db: createDb, create_public: createPublic } = rows[0];
  const missing: string[] = [];
  if (migrating) {
    if (!createDb) missing.push(`CREATE on database ${database} (migrate makes schemas)`);
    if (!createPublic) missing.push('CREATE on schema public (migrate makes tables)');
  } else {
    const tables = WAREHOUSE_TABLES.map((table) => table.name);
    const { rows: lacking } = await sql<{ name: string; privilege: string }>`
      select t.name, p.privilege
        from unnest(${tables}::text[]) as t(name)
        cross join unnest(${[...TABLE_PRIVILEGES]}::text[]) as p(privilege)
       where to_regclass(format('public.%I', t.name)) is not null
         and not has_table_privilege(format('public.%I', t.name), p.privilege)
       order by 1, 2`.execute(db);
    const byPrivilege = new Map<string, string[]>();
    for (const { name, privilege } of lacking)
      byPrivilege.set(privilege, [...(byPrivilege.get(privilege) ?? []), name]);
    for (const [privilege, names] of byPrivilege)
      missing.push(
        `${privilege} on ${names.length > 3 ? `${names.length} tables (${names[0]}, ...)` : names.join(', ')}`,
      );
    const { rows: queue } = await sql<{ usable: boolean | null }>`
      select case when to_regnamespace(${QUEUE_SCHEMA}) is null then null
                  else has_schema_privilege(${QUEUE_SCHEMA}, 'USAGE') end as usable`.execute(db);
    if (queue[0].usable === false) missing.push(`USAGE on schema ${QUEUE_SCHEMA} (the queue)`);
  }
  if (!missing.length)
    return {
      what: 'role',
      ok: true,
      text: `${role} has the rights propsync needs${migrating ? ' to migrate' : ''}`,
    };
  return {
    what: 'role',
    ok: false,
    text:
      `${role} lacks ${missing.join('; ')}: grant them, or set DATABASE_URL to the role that ran ` +
      '`propsync migrate` (the owner of the tables)',
  };
}

/**
 * One account's line: one call of the source's listing (its first page), with no retry, so that
 * a wrong URL, password or key says so at once. The call is not recorded in the run history.
 */
export async function checkAccount(account: Account, index: number): Promise<CheckLine> {
  const what = `account ${account.id}`;
  const settings = { ...account.source, retry: { ...account.source.retry, maxAttempts: 1 } };
  const client = createSourceClient({ settings, timeZone: account.timeZone });
  const secrets = secretsOf(account);
  try {
    const pages = client.pages({ method: DISCOVERY.method, params: {}, context: { stream: 'check' } });
    const first = await pages.next();
    await pages.return(undefined);
    const records = first.done ? 0 : first.value.records.length;
    const total = first.done ? 0 : (first.value.totalCount ?? records);
    return {
      what,
      ok: true,
      text: `${account.source.url}: credentials accepted (${account.source.auth.type}); ${total} properties listed`,
    };
  } catch (error) {
    const message = scrubSecrets(messageOf(error), secrets);
    return {
      what,
      ok: false,
      text: `${account.source.url}: ${message}${accountAdvice(error, account, index)}`,
    };
  } finally {
    await client.close();
  }
}

/** The secrets of an account's auth, never printed. */
function secretsOf(account: Account): string[] {
  const { auth } = account.source;
  return auth.type === 'basic' ? [auth.password] : [auth.apiKey];
}

/** What to look at when the account's call failed, in the account's own keys. */
function accountAdvice(error: unknown, account: Account, index: number): string {
  const key = account.id === 'default' ? 'source' : `accounts[${index}].source`;
  if (isPermanentSourceError(error)) {
    const { auth } = account.source;
    if (auth.type === 'apikey')
      return `; check ${key}.auth.org and the API key (${key}.auth.apiKeyEnv names its variable)`;
    return account.id === 'default'
      ? '; check PROPSYNC_API_USERNAME and PROPSYNC_API_PASSWORD (or source.username, source.password)'
      : `; check ${key}.auth.username and the password (${key}.auth.passwordEnv names its variable)`;
  }
  if (error instanceof TransportError)
    return (
      `; check ${account.id === 'default' ? 'PROPSYNC_API_URL (or source.url)' : `${key}.url`} ` +
      `and that the API answers`
    );
  return '';
}
