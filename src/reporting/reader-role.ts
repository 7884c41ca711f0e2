import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../catalog/tables.js';
import { SOURCE_TABLE_NAMES as SOURCE_TABLES } from '../catalog/tables.js';
import { REPORTING_SCHEMA } from './views.js';

/** Name of the environment variable that holds the password of a reader role made with --login. */
export const READER_PASSWORD_ENV = 'PROPSYNC_READER_PASSWORD';

/** The grant cannot be made as asked: the connecting user lacks a privilege it needs, or the warehouse is not migrated. */
export class ReaderRoleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReaderRoleError';
  }
}

export interface GrantReaderOptions {
  role: string;
  /** Let the role log in, with `password`. Without it a new role is NOLOGIN and an existing one keeps its login setting. */
  login?: boolean;
  password?: string;
  /** Also grant select on the synced source tables in `public`. */
  baseTables?: boolean;
}

/** What grantReader did. */
export interface GrantReaderOutcome {
  created: boolean;
  /** The role may log in and its password was set. */
  loginSet: boolean;
  /** Views (and materialized views) of `reporting` the role may now read. */
  views: number;
  /** Source tables of `public` the role may now read (0 without `baseTables`). */
  baseTables: number;
  /** The role whose future objects in `reporting` the default privileges cover. */
  defaultPrivilegesFor: string;
}

/** Why a role name cannot be used, or undefined when it can. */
export function readerRoleProblem(role: string): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_$]*$/.test(role)) return `role name '${role}' must be letters, digits, _ or $, starting with a letter or _`;
  if (Buffer.byteLength(role) > 63) return `role name '${role}' is longer than 63 bytes`;
  if (/^pg_/i.test(role) || ['public', 'none', 'current_user', 'session_user', 'current_role'].includes(role.toLowerCase())) return `role name '${role}' is reserved by Postgres`;
  return undefined;
}

/**
 * A SCRAM-SHA-256 verifier of a password, as Postgres stores it: the password is hashed here,
 * so its clear text never reaches the server (nor its statement log).
 */
export function scramVerifier(password: string, salt: Buffer = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * Makes `role` a reader of the reporting layer, idempotently: creates it when missing (NOLOGIN
 * unless `login`), grants usage on schema `reporting` and select on everything in it, sets
 * default privileges so that views created later (by migrations, as the schema's owner) are
 * readable too, and with `baseTables` grants select on the source tables of `public`.
 * Throws ReaderRoleError when the connecting user may not create or alter the role or grant.
 */
export async function grantReader(db: Db, options: GrantReaderOptions): Promise<GrantReaderOutcome> {
  const problem = readerRoleProblem(options.role);
  if (problem) throw new RangeError(problem);
  if (options.login && !options.password) throw new RangeError(`a login role needs a password (set ${READER_PASSWORD_ENV})`);
  const role = sql.id(options.role);
  const { rows: facts } = await sql<{ exists: boolean; user: string; may_create: boolean; owner: string | null }>`
    select exists (select 1 from pg_roles where rolname = ${options.role}) as exists,
           current_user as user,
           (select rolsuper or rolcreaterole from pg_roles where rolname = current_user) as may_create,
           (select pg_get_userbyid(nspowner) from pg_namespace where nspname = ${REPORTING_SCHEMA}) as owner`.execute(db);
  const { exists, user, may_create: mayCreate, owner } = facts[0];
  if (!owner) throw new ReaderRoleError(`schema ${REPORTING_SCHEMA} does not exist; run \`propsync migrate\` first`);
  if (!exists && !mayCreate) {
    throw new ReaderRoleError(
      `the connecting user "${user}" may not create roles (it needs CREATEROLE); connect as a user that has it, or have an administrator run \`create role ${options.role} nologin;\` and run this again`,
    );
  }
  const password = options.login ? sql.lit(scramVerifier(options.password!)) : undefined;
  const attempt = async (what: string, statement: ReturnType<typeof sql>) => {
    try {
      await statement.execute(db);
    } catch (error) {
      if ((error as { code?: string }).code === INSUFFICIENT_PRIVILEGE) throw new ReaderRoleError(`the connecting user "${user}" may not ${what}: ${(error as Error).message}`);
      throw error;
    }
  };
  if (!exists) {
    await attempt(`create role ${options.role}`, password ? sql`create role ${role} login password ${password}` : sql`create role ${role} nologin`);
  } else if (password) {
    await attempt(`alter role ${options.role}`, sql`alter role ${role} login password ${password}`);
  }
  const schema = sql.id(REPORTING_SCHEMA);
  await attempt(`grant on schema ${REPORTING_SCHEMA}`, sql`grant usage on schema ${schema} to ${role}`);
  await attempt(`grant on schema ${REPORTING_SCHEMA}`, sql`grant select on all tables in schema ${schema} to ${role}`);
  await attempt(
    `set default privileges for role ${owner} (be that role, a member of it, or a superuser)`,
    sql`alter default privileges for role ${sql.id(owner)} in schema ${schema} grant select on tables to ${role}`,
  );
  if (options.baseTables) {
    await attempt('grant on schema public', sql`grant usage on schema public to ${role}`);
    await attempt('grant on the source tables', sql`grant select on ${sql.join(SOURCE_TABLES.map((table) => sql.id('public', table)))} to ${role}`);
  }
  const { rows: counts } = await sql<{ views: number }>`
    select count(*)::int as views
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = ${REPORTING_SCHEMA} and c.relkind in ('v', 'm')`.execute(db);
  return { created: !exists, loginSet: Boolean(password), views: counts[0].views, baseTables: options.baseTables ? SOURCE_TABLES.length : 0, defaultPrivilegesFor: owner };
}

/** The two statements an operator runs to give a person a login in the reader role. */
export function personLoginSql(readerRole: string, person = 'alice'): string[] {
  return [`create role ${person} login password 'a-strong-password';`, `grant ${readerRole} to ${person};`];
}
