import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../catalog/tables.js';
import { BASE_TABLE_NAMES as SOURCE_TABLES } from '../catalog/tables.js';
import { ACCOUNT_ID } from '../config/accounts.js';
import { REPORTING_PRIVATE_SCHEMA, REPORTING_SCHEMA, REPORTING_VIEWS } from './views.js';
import { personalColumnsOf, publicBaseColumns, publicColumnsOf } from './personal-columns.js';
import { messageOf } from '../log/errors.js';

/** Name of the environment variable that holds the password of a reader role made with --login. */
export const READER_PASSWORD_ENV = 'PROPSYNC_READER_PASSWORD';

/**
 * The grant cannot be made as asked: the connecting user lacks a privilege it needs, or the warehouse is not migrated.
 */
export class ReaderRoleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReaderRoleError';
  }
}

export interface GrantReaderOptions {
  role: string;
  /**
   * Let the role log in, with `password`. Without it a new role is NOLOGIN and an existing one keeps its login setting.
   */
  login?: boolean;
  password?: string;
  /** Also grant select on the synced source tables in `public`. */
  baseTables?: boolean;
  /**
   * The accounts the role may see (their rows only, in every view and base table); none or
   * absent: every account, and a limit set before is lifted.
   */
  accounts?: readonly string[];
  /**
   * The role may read the columns holding residents' personal data (docs/privacy.md); without
   * it, it may read every other column only, and a grant of them made before is taken back.
   */
  personal?: boolean;
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
  /** The accounts the role sees, or null for every account. */
  accounts: string[] | null;
  /** The role may read the personal columns. */
  personal: boolean;
  /** The personal columns kept from it (`view.column`, `table.column`), when it may not. */
  personalColumnsWithheld: string[];
  /** Of those, the accounts no run has synced yet (not in table accounts): a typo, or an account to come. */
  unknownAccounts: string[];
}

/** A role (or other) name as SQL writes it: quoted unless it is a lowercase identifier Postgres keeps as written. */
export function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) && !SQL_WORDS.has(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** Words a role name must be quoted as (the reserved keywords a role is likeliest to be named). */
const SQL_WORDS = new Set([
  'all',
  'user',
  'role',
  'select',
  'group',
  'grant',
  'table',
  'order',
  'public',
  'to',
]);

/** Why a role name cannot be used, or undefined when it can. */
export function readerRoleProblem(role: string): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_$]*$/.test(role))
    return `role name '${role}' must be letters, digits, _ or $, starting with a letter or _`;
  if (Buffer.byteLength(role) > 63) return `role name '${role}' is longer than 63 bytes`;
  if (
    /^pg_/i.test(role) ||
    ['public', 'none', 'current_user', 'session_user', 'current_role'].includes(role.toLowerCase())
  )
    return `role name '${role}' is reserved by Postgres`;
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
  const base64 = (bytes: Buffer) => bytes.toString('base64');
  return `SCRAM-SHA-256$${iterations}:${base64(salt)}$${base64(storedKey)}:${base64(serverKey)}`;
}

const INSUFFICIENT_PRIVILEGE = '42501';

/** Runs `statement`; a privilege the connecting `user` lacks becomes a ReaderRoleError that says what it may not do. */
async function attemptAs(db: Db, user: string, what: string, statement: RawBuilder<unknown>): Promise<void> {
  try {
    await statement.execute(db);
  } catch (error) {
    if ((error as { code?: string }).code === INSUFFICIENT_PRIVILEGE)
      throw new ReaderRoleError(`the connecting user "${user}" may not ${what}: ${messageOf(error)}`);
    throw error;
  }
}

/**
 * Why a role (`r`, beside `n`: schema reporting_private) would read every account whatever its limit says, or
 * null: it, or a role it may use (a membership, with or without INHERIT: SET ROLE reaches it), is a superuser,
 * bypasses row-level security, may create roles (and so grant itself pg_read_all_data), reads every table
 * (pg_read_all_data), reads the server's files, owns the reporting layer, or may use schema reporting_private,
 * whose queries and materialized views hold every account's rows unfiltered.
 */
const unlimitedReason = sql<string | null>`(
  select case when m.oid = r.oid then 'it ' else 'it is a member of ' || quote_ident(m.rolname) || ', which ' end || why
    from pg_roles m
    cross join lateral (
      select * from (values
        (1, case when m.rolsuper then 'is a superuser' end),
        (2, case when m.rolbypassrls then 'bypasses row-level security (BYPASSRLS)' end),
        (3, case when m.rolcreaterole
                 then 'has CREATEROLE (it may grant itself any role, pg_read_all_data included)' end),
        (4, case when m.rolname = 'pg_read_all_data' then 'reads every table of the database' end),
        (5, case when m.rolname = 'pg_read_server_files'
                 then 'reads the files of the server, the database''s included' end),
        (6, case when m.oid = n.nspowner then 'owns the reporting layer' end),
        (7, case when has_schema_privilege(m.oid, n.oid, 'USAGE')
                 then 'may use schema ' || quote_ident(n.nspname) || ', which holds every account''s rows' end)
      ) reasons (rank, why)
      where why is not null
    ) reason
   where pg_has_role(r.oid, m.oid, 'MEMBER')
   order by reason.rank, m.oid <> r.oid, m.rolname
   limit 1)`;

/** The table that maps a reader role to the accounts it may see (migrations/0011_reporting_accounts.ts). */
const READER_ACCOUNTS = sql.id(REPORTING_PRIVATE_SCHEMA, 'reader_accounts');

/**
 * Makes `role` a reader of the reporting layer, idempotently: creates it when missing (NOLOGIN
 * unless `login`), grants usage on schema `reporting` and select on everything in it, sets
 * default privileges so that views created later (by migrations, as the schema's owner) are
 * readable too, limits it to `accounts` (or to none: every account), and with `baseTables`
 * grants select on the source tables of `public`.
 * Throws ReaderRoleError when the connecting user may not create or alter the role or grant.
 */
export async function grantReader(db: Db, options: GrantReaderOptions): Promise<GrantReaderOutcome> {
  const problem = readerRoleProblem(options.role);
  if (problem) throw new RangeError(problem);
  const accounts = [...new Set(options.accounts ?? [])].sort();
  const badAccount = accounts.find((id) => !ACCOUNT_ID.test(id));
  if (badAccount !== undefined)
    throw new RangeError(
      `'${badAccount}' is not an account id; expected 1 to 40 lowercase letters, digits, - or _`,
    );
  if (options.login && !options.password)
    throw new RangeError(`a login role needs a password (set ${READER_PASSWORD_ENV})`);
  const role = sql.id(options.role);
  const { rows: facts } = await sql<{
    exists: boolean;
    user: string;
    may_create: boolean;
    owner: string | null;
  }>`
    select exists (select 1 from pg_roles where rolname = ${options.role}) as exists,
           current_user as user,
           (select rolsuper or rolcreaterole from pg_roles where rolname = current_user) as may_create,
           (select pg_get_userbyid(nspowner) from pg_namespace where nspname = ${REPORTING_SCHEMA}) as owner`.execute(
    db,
  );
  const { exists, user, may_create: mayCreate, owner } = facts[0];
  if (!owner)
    throw new ReaderRoleError(`schema ${REPORTING_SCHEMA} does not exist; run \`propsync migrate\` first`);
  if (!exists && !mayCreate) {
    throw new ReaderRoleError(
      `the connecting user "${user}" may not create roles (it needs CREATEROLE); ` +
        `connect as a user that has it, or have an administrator run \`create ` +
        `role ${quoteIdent(options.role)} nologin;\` and run this again`,
    );
  }
  const password = options.login ? sql.lit(scramVerifier(options.password!)) : undefined;
  const attempt = (what: string, statement: RawBuilder<unknown>) => attemptAs(db, user, what, statement);
  if (!exists) {
    await attempt(
      `create role ${quoteIdent(options.role)}`,
      password ? sql`create role ${role} login password ${password}` : sql`create role ${role} nologin`,
    );
  } else if (password) {
    await attempt(
      `alter role ${quoteIdent(options.role)}`,
      sql`alter role ${role} login password ${password}`,
    );
  }
  // The limit before any grant: the role never holds a grant the limit does not cover yet.
  const unknownAccounts = await limitToAccounts(db, user, options.role, accounts);
  const schema = sql.id(REPORTING_SCHEMA);
  await attempt(`grant on schema ${REPORTING_SCHEMA}`, sql`grant usage on schema ${schema} to ${role}`);
  await attempt(
    `grant on schema ${REPORTING_SCHEMA}`,
    sql`grant select on all tables in schema ${schema} to ${role}`,
  );
  await attempt(
    `set default privileges for role ${quoteIdent(owner)} (be that role, a member of it, or a superuser)`,
    sql`alter default privileges for role ${sql.id(owner)} in schema ${schema} grant select on tables to ${role}`,
  );
  if (options.baseTables) {
    await attempt('grant on schema public', sql`grant usage on schema public to ${role}`);
    await attempt(
      'grant on the source tables',
      sql`grant select on ${sql.join(SOURCE_TABLES.map((table) => sql.id('public', table)))} to ${role}`,
    );
  }
  const withheld = options.personal
    ? await grantPersonal(db, attempt, options.role, Boolean(options.baseTables))
    : await withholdPersonal(db, attempt, options.role, Boolean(options.baseTables));
  const { rows: counts } = await sql<{ views: number }>`
    select count(*)::int as views
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = ${REPORTING_SCHEMA} and c.relkind in ('v', 'm')`.execute(db);
  return {
    created: !exists,
    loginSet: Boolean(password),
    views: counts[0].views,
    baseTables: options.baseTables ? SOURCE_TABLES.length : 0,
    defaultPrivilegesFor: owner,
    accounts: accounts.length ? accounts : null,
    personal: Boolean(options.personal),
    personalColumnsWithheld: withheld,
    unknownAccounts,
  };
}

/**
 * Takes back from `role` the personal columns of the reporting views (and, with `baseTables`,
 * of the base tables): select on the relation is revoked and granted again on its other columns
 * only. Returns the columns withheld. apply-definitions.ts does the same to a view it makes again.
 */
async function withholdPersonal(
  db: Db,
  attempt: (what: string, statement: RawBuilder<unknown>) => Promise<void>,
  role: string,
  baseTables: boolean,
): Promise<string[]> {
  const withheld: string[] = [];
  for (const relation of personalRelations(baseTables)) {
    const { rows } = await sql<{ found: boolean }>`
      select to_regclass(${`${relation.schema}.${relation.name}`}) is not null as found`.execute(db);
    if (!rows[0].found) continue;
    // A warehouse migrated to an older release has older views: grant only the columns they hold.
    const { rows: columns } = await sql<{ name: string }>`
      select attname as name from pg_attribute
       where attrelid = to_regclass(${`${relation.schema}.${relation.name}`})
         and attnum > 0 and not attisdropped`.execute(db);
    const present = new Set(columns.map((column) => column.name));
    const others = relation.others.filter((column) => present.has(column));
    for (const statement of restrictToColumns(relation.schema, relation.name, role, others))
      await attempt(`grant on ${relation.schema}.${relation.name}`, statement);
    withheld.push(
      ...(relation.personal.length ? relation.personal : await columnsBesides(db, relation)).map(
        (column) => `${relation.name}.${column}`,
      ),
    );
  }
  return withheld;
}

/** The relations holding personal columns a reader may be given, with their other columns. */
function personalRelations(baseTables: boolean) {
  const relations = REPORTING_VIEWS.filter((view) => personalColumnsOf(view).length).map((view) => ({
    schema: REPORTING_SCHEMA,
    name: view.name,
    personal: personalColumnsOf(view),
    others: publicColumnsOf(view),
  }));
  if (baseTables)
    for (const [name, others] of publicBaseColumns())
      relations.push({ schema: 'public', name, personal: [], others });
  return relations;
}

/** Gives `role` the whole of the relations holding personal columns again (dropping any grant of some columns). */
async function grantPersonal(
  db: Db,
  attempt: (what: string, statement: RawBuilder<unknown>) => Promise<void>,
  role: string,
  baseTables: boolean,
): Promise<string[]> {
  for (const relation of personalRelations(baseTables)) {
    const { rows } = await sql<{ found: boolean }>`
      select to_regclass(${`${relation.schema}.${relation.name}`}) is not null as found`.execute(db);
    if (!rows[0].found) continue;
    const target = sql.id(relation.schema, relation.name);
    await attempt(
      `revoke on ${relation.schema}.${relation.name}`,
      sql`revoke select on ${target} from ${sql.id(role)}`,
    );
    await attempt(
      `grant on ${relation.schema}.${relation.name}`,
      sql`grant select on ${target} to ${sql.id(role)}`,
    );
  }
  return [];
}

/** The columns of a relation other than `others`. */
async function columnsBesides(
  db: Db,
  relation: { schema: string; name: string; others: string[] },
): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select column_name as name from information_schema.columns
     where table_schema = ${relation.schema} and table_name = ${relation.name}
       and not (column_name = any(${relation.others}::text[]))
     order by ordinal_position`.execute(db);
  return rows.map((row) => row.name);
}

/** Select on `columns` of a relation only: what a reader without the personal columns holds on it. */
export function restrictToColumns(
  schema: string,
  name: string,
  role: string,
  columns: readonly string[],
): RawBuilder<unknown>[] {
  const relation = sql.id(schema, name);
  const grantee = sql.id(role);
  return [
    sql`revoke select on ${relation} from ${grantee}`,
    sql`grant select (${sql.join(columns.map((column) => sql.id(column)))}) on ${relation} to ${grantee}`,
  ];
}

/**
 * Records the accounts `role` may see (none: every account) in reporting_private.reader_accounts,
 * which the views of `reporting` and the row-level security of the base tables read; forgets
 * the rows of roles dropped since. Refuses a role that would see every account whatever the
 * table says (superuser, BYPASSRLS, the owner or a role using the owner's privileges), and base
 * tables without row-level security. Returns the accounts no run has synced yet.
 */
async function limitToAccounts(
  db: Db,
  user: string,
  role: string,
  accounts: readonly string[],
): Promise<string[]> {
  const { rows: found } = await sql<{
    found: boolean;
  }>`select to_regclass(${`${REPORTING_PRIVATE_SCHEMA}.reader_accounts`}) is not null as found`.execute(db);
  if (!found[0].found) {
    if (accounts.length)
      throw new ReaderRoleError(
        `this warehouse's reporting layer knows no accounts yet; run \`propsync migrate\` first`,
      );
    return [];
  }
  if (accounts.length) {
    const { rows } = await sql<{ unlimited: string | null; unprotected: string[] }>`
      select ${unlimitedReason} as unlimited,
             array(select c.relname::text
                     from pg_class c
                    where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and not c.relrowsecurity
                      and exists (select 1 from pg_attribute a
                                   where a.attrelid = c.oid and a.attname = 'account_id' and not a.attisdropped)
                    order by 1) as unprotected
        from pg_roles r, pg_namespace n
       where r.rolname = ${role} and n.nspname = ${REPORTING_PRIVATE_SCHEMA}`.execute(db);
    if (rows[0].unlimited)
      throw new ReaderRoleError(`role ${role} cannot be limited to some accounts: ${rows[0].unlimited}`);
    if (rows[0].unprotected.length)
      throw new ReaderRoleError(
        `tables ${rows[0].unprotected.join(', ')} have no row-level security; run \`propsync migrate\` first`,
      );
  }
  // In one transaction: the role is never without its rows, which would mean every account.
  const what = `write ${REPORTING_PRIVATE_SCHEMA}.reader_accounts`;
  await db.transaction().execute(async (trx) => {
    await attemptAs(
      trx,
      user,
      what,
      sql`
      delete from ${READER_ACCOUNTS} m
       where m.role::oid = (select r.oid from pg_roles r where r.rolname = ${role})
          or not exists (select 1 from pg_roles r where r.oid = m.role::oid)`,
    );
    await attemptAs(
      trx,
      user,
      what,
      sql`
      insert into ${READER_ACCOUNTS} (role, account_id)
      select r.oid::regrole, id from pg_roles r, unnest(${accounts}::text[]) id where r.rolname = ${role}`,
    );
  });
  const { rows: unknown } = await sql<{ id: string }>`
    select id from unnest(${accounts}::text[]) id
     where not exists (select 1 from public.accounts a where a.account_id = id)
     order by id`.execute(db);
  return unknown.map((row) => row.id);
}

/** The two statements an operator runs to give a person a login in the reader role (identifiers quoted). */
export function personLoginSql(readerRole: string, person = 'alice'): string[] {
  const who = quoteIdent(person);
  return [
    `create role ${who} login password 'a-strong-password';`,
    `grant ${quoteIdent(readerRole)} to ${who};`,
  ];
}
