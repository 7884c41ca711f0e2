import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * Frozen copy (for migrations 0013 to 0016) of what src/reporting/replace-materialized-view.ts
 * did when they were written, so that their effect never changes with src/. The reporting
 * comments it also wrote are current state: `propsync migrate` writes them after the migrations.
 */

/** The rows of accounts the current user may see, as every reader view of migration 0011 filters them. */
const VISIBLE = sql.raw(
  `((select reporting_private.visible_accounts(current_user)) is null or ` +
    `v.account_id = any((select reporting_private.visible_accounts(current_user))::text[]))`,
);

/** A relation saved to be made again: the view itself, or one that reads it. */
interface Saved {
  schema: string;
  name: string;
  kind: string;
  definition: string;
  options: string[] | null;
  indexes: string[];
  grantees: string[];
}

/**
 * What reporting_private.NAME is made again as: a plain view, or a materialized view with these index
 * definitions (default: those it has).
 */
export type ReportingRelationKind = { kind: 'view' } | { kind: 'materialized view'; indexes?: string[] };

/**
 * Replaces the query of the materialized view reporting_private.NAME: Postgres cannot replace a
 * materialized view's query in place. Saves its indexes and every relation that reads it
 * (directly or not) as Postgres prints them, drops it with them, makes it again from `query`
 * with its indexes, then the saved relations in their order, with their indexes, options and
 * grants (reporting.NAME as `select *` of the new one, so that it takes any new column).
 */
export async function replaceMaterializedView(
  db: Kysely<unknown>,
  name: string,
  query: RawBuilder<unknown>,
): Promise<void> {
  await replaceReportingQuery(db, name, query, { kind: 'materialized view' });
}

/**
 * replaceMaterializedView for a relation of either kind, made again as `as` says: a materialized
 * view becomes a plain view (its indexes dropped with it), or a plain view a materialized one.
 */
export async function replaceReportingQuery(
  db: Kysely<unknown>,
  name: string,
  query: RawBuilder<unknown>,
  as: ReportingRelationKind,
): Promise<void> {
  const view = `reporting_private.${name}`;
  const { rows: paths } = await sql<{ path: string }>`select current_setting('search_path') as path`.execute(
    db,
  );
  await sql`select set_config('search_path', '', true)`.execute(db);
  const { rows: saved } = await sql<Saved>`
    with recursive readers(oid) as (
      select ${view}::pg_catalog.regclass::pg_catalog.oid
      union
      select r.ev_class
        from readers x
        join pg_catalog.pg_depend d on d.refobjid = x.oid
        join pg_catalog.pg_rewrite r on r.oid = d.objid
       where r.ev_class <> d.refobjid
    )
    select n.nspname as schema, c.relname as name, c.relkind::text as kind,
           pg_catalog.pg_get_viewdef(c.oid) as definition, c.reloptions::text[] as options,
           coalesce((select pg_catalog.array_agg(pg_catalog.pg_get_indexdef(x.indexrelid) order by x.indexrelid)
                       from pg_catalog.pg_index x where x.indrelid = c.oid), '{}') as indexes,
           coalesce((select pg_catalog.array_agg(distinct
                              case when acl.grantee = 0 then 'public'
                                   else pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(acl.grantee)) end)
                       from pg_catalog.aclexplode(c.relacl) acl
                      where acl.privilege_type = 'SELECT' and acl.grantee <> c.relowner), '{}') as grantees
      from (select distinct oid from readers) x
      join pg_catalog.pg_class c on c.oid = x.oid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     order by c.oid <> ${view}::pg_catalog.regclass::pg_catalog.oid, c.oid`.execute(db);
  await sql`select pg_catalog.set_config('search_path', ${paths[0].path}, true)`.execute(db);
  const kind = sql.raw(saved[0].kind === 'm' ? 'materialized view' : 'view');
  await sql`drop ${kind} ${sql.id('reporting_private', name)} cascade`.execute(db);
  for (const relation of saved) {
    const target = sql.id(relation.schema, relation.name);
    const itself = relation.schema === 'reporting_private' && relation.name === name;
    const reader = relation.schema === 'reporting' && relation.name === name;
    const definition = itself
      ? query
      : reader
        ? sql`select * from ${sql.id('reporting_private', name)} v where ${VISIBLE}`
        : sql.raw(relation.definition.replace(/;\s*$/, ''));
    const materialized = itself ? as.kind === 'materialized view' : relation.kind === 'm';
    // A relation's options are those of its kind: kept only while it stays of that kind.
    const options =
      relation.options?.length && materialized === (relation.kind === 'm')
        ? sql` with (${sql.raw(relation.options.join(', '))})`
        : sql``;
    const made = sql.raw(materialized ? 'materialized view' : 'view');
    await sql`create ${made} ${target}${options} as ${definition}`.execute(db);
    const indexes = !itself ? relation.indexes : as.kind === 'view' ? [] : (as.indexes ?? relation.indexes);
    for (const index of indexes) await sql.raw(index).execute(db);
    if (relation.grantees.length)
      await sql`grant select on ${target} to ${sql.raw(relation.grantees.join(', '))}`.execute(db);
  }
}
