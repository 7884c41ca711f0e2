import { sql, type Kysely } from 'kysely';

/**
 * Advisory locks are propsync's alone in its warehouse (issue 35 item 3): every login of a
 * database may call `pg_advisory_lock` by default, and propsync's stream and lane locks have
 * public, predictable keys, so a reader could take another account's lock and stall its syncs.
 * Here the advisory-lock functions stop being executable by PUBLIC in this database and are
 * granted to the role that migrates it (propsync's own role, the owner of its tables) and to the
 * database's owner. The unlock functions stay public: a session can only release its own locks.
 *
 * Only a superuser (or the functions' owner) may change their rights. When the migrating role is
 * not one, the migration changes nothing and raises a warning: an administrator runs the same
 * statements (docs/operating.md, "Who may take propsync's locks"). `down` gives them back to PUBLIC.
 */
const LOCKS = [
  'pg_advisory_lock',
  'pg_advisory_lock_shared',
  'pg_try_advisory_lock',
  'pg_try_advisory_lock_shared',
  'pg_advisory_xact_lock',
  'pg_advisory_xact_lock_shared',
  'pg_try_advisory_xact_lock',
  'pg_try_advisory_xact_lock_shared',
];

/** Each lock function in both its forms: one bigint key, or two integer keys. */
const SIGNATURES = LOCKS.flatMap((name) => [
  `pg_catalog.${name}(bigint)`,
  `pg_catalog.${name}(integer, integer)`,
]);

/** Runs the plpgsql `steps` for each signature (`fn`) when the migrating role is a superuser; else warns. */
async function forEachLock(db: Kysely<unknown>, steps: string): Promise<void> {
  const list = SIGNATURES.map((fn) => `'${fn}'`).join(', ');
  await sql
    .raw(
      `do $$
declare
  fn text;
  owner text := (select pg_get_userbyid(datdba) from pg_database where datname = current_database());
begin
  if not (select rolsuper from pg_roles where rolname = current_user) then
    raise warning 'propsync: % is not a superuser, so the rights on the advisory-lock functions are unchanged: '
      'every login may take advisory locks in this database (see docs/operating.md)', current_user;
    return;
  end if;
  foreach fn in array array[${list}] loop
    ${steps}
  end loop;
end $$`,
    )
    .execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await forEachLock(
    db,
    `execute format('revoke execute on function %s from public', fn);
    execute format('grant execute on function %s to %I, %I', fn, current_user, owner);`,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await forEachLock(db, `execute format('grant execute on function %s to public', fn);`);
}
