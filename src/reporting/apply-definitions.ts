import { createHash } from 'node:crypto';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { applyReportingComments } from './comments.js';
import type { ReportingView } from './definition.js';
import { REPORTING_PRIVATE_SCHEMA, REPORTING_SCHEMA, REPORTING_VIEWS } from './views.js';
import { publicColumnsOf, personalColumnsOf } from './personal-columns.js';
import { restrictToColumns } from './reader-role.js';

/**
 * Brings the reporting layer to its definitions (definitions/), as Flyway's repeatable
 * migrations do: run by `propsync migrate` after the versioned migrations. Why and how:
 * docs/reporting.md, "Adding or changing a view".
 */

/** The table of the checksums the layer was last brought to (migrations/0018_reporting_definitions.ts). */
const CHECKSUMS = sql.raw(`${REPORTING_PRIVATE_SCHEMA}.view_definitions`);

/** Two processes migrating at once take turns (an advisory lock of the transaction). */
const LOCK_KEY = sql.raw(`hashtext('propsync.reporting_definitions')`);

/** The rows of accounts the current user may see (both init plans: evaluated once per query). */
const VISIBLE = sql.raw(
  `((select reporting_private.visible_accounts(current_user)) is null or ` +
    `v.account_id = any((select reporting_private.visible_accounts(current_user))::text[]))`,
);

/** What bringing the layer to its definitions did, by view name. */
export interface DefinitionsOutcome {
  /** Views made that were not there (or not made from a definition before). */
  created: string[];
  /** Views made again: their definition changed, or that of a view they read. */
  replaced: string[];
  /** Views dropped: no definition names them any more. */
  dropped: string[];
  unchanged: string[];
}

/** What makes a view's relation: a change of any of it replaces the view. */
export function definitionChecksum(view: ReportingView): string {
  const made = {
    query: view.query,
    materialized: view.materialized
      ? { key: view.materialized.key, nulls: !!view.materialized.nullsNotDistinct }
      : null,
    sums: view.maintained ? [view.maintained.insertSums(true), view.maintained.insertSums(false)] : null,
  };
  return createHash('sha256').update(JSON.stringify(made)).digest('hex');
}

/** The views of reporting_private a query reads, by name. */
function reads(view: ReportingView, names: ReadonlySet<string>): string[] {
  const found = [...view.query.matchAll(/\breporting_private\.([a-z_][a-z0-9_]*)/g)].map((match) => match[1]);
  return [...new Set(found)].filter((name) => names.has(name) && name !== view.name);
}

/** The definitions in an order of creation: each after the views it reads. */
export function creationOrder(views: readonly ReportingView[]): ReportingView[] {
  const names = new Set(views.map((view) => view.name));
  const byName = new Map(views.map((view) => [view.name, view]));
  const order: ReportingView[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (view: ReportingView, path: string[]) => {
    if (state.get(view.name) === 'done') return;
    if (state.get(view.name) === 'visiting')
      throw new Error(`reporting views read each other in a circle: ${[...path, view.name].join(' -> ')}`);
    state.set(view.name, 'visiting');
    for (const name of reads(view, names)) visit(byName.get(name)!, [...path, view.name]);
    state.set(view.name, 'done');
    order.push(view);
  };
  for (const view of views) visit(view, []);
  return order;
}

/** A relation of the warehouse that reads a view to replace (or is one), saved to be made again. */
interface Relation {
  oid: number;
  schema: string;
  name: string;
  kind: 'v' | 'm';
  level: number;
  definition: string;
  options: string[] | null;
  /** Its indexes, as Postgres prints them, with their names. */
  indexes: { name: string; definition: string }[];
  /** Its privileges, other than its owner's. */
  grants: { grantee: string; privilege: string; grantable: boolean }[];
}

/** The relations `oids` and every view that reads them (directly or not), each at its greatest depth. */
async function withReaders(db: Kysely<unknown>, oids: number[]): Promise<Relation[]> {
  if (oids.length === 0) return [];
  // Every name qualified in the definitions printed: they are made again under any search_path.
  const { rows: paths } = await sql<{ path: string }>`select current_setting('search_path') as path`.execute(
    db,
  );
  await sql`select pg_catalog.set_config('search_path', '', true)`.execute(db);
  const { rows } = await sql<Relation>`
    with recursive readers(oid, level) as (
      select unnest(${oids}::oid[]), 0
      union
      select r.ev_class, x.level + 1
        from readers x
        join pg_catalog.pg_depend d on d.refobjid = x.oid and d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass
        join pg_catalog.pg_rewrite r on r.oid = d.objid
       where r.ev_class <> x.oid
    )
    select c.oid::int as oid, n.nspname as schema, c.relname as name, c.relkind::text as kind, x.level,
           pg_catalog.pg_get_viewdef(c.oid) as definition, c.reloptions::text[] as options,
           coalesce((select pg_catalog.json_agg(pg_catalog.json_build_object(
                              'name', i.relname, 'definition', pg_catalog.pg_get_indexdef(i.oid)) order by i.oid)
                       from pg_catalog.pg_index x join pg_catalog.pg_class i on i.oid = x.indexrelid
                      where x.indrelid = c.oid), '[]') as indexes,
           coalesce((select pg_catalog.json_agg(pg_catalog.json_build_object(
                              'grantee', case when acl.grantee = 0 then 'public'
                                              else pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(acl.grantee)) end,
                              'privilege', acl.privilege_type, 'grantable', acl.is_grantable))
                       from pg_catalog.aclexplode(c.relacl) acl
                      where acl.grantee <> c.relowner), '[]') as grants
      from (select oid, max(level) as level from readers group by oid) x
      join pg_catalog.pg_class c on c.oid = x.oid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('v', 'm')
     order by x.level, c.oid`.execute(db);
  await sql`select pg_catalog.set_config('search_path', ${paths[0].path}, true)`.execute(db);
  return rows;
}

const kindWord = (kind: 'v' | 'm') => sql.raw(kind === 'm' ? 'materialized view' : 'view');

/** Grants again what `relation` granted to others. */
async function regrant(db: Kysely<unknown>, target: RawBuilder<unknown>, relation: Relation | undefined) {
  for (const grant of relation?.grants ?? []) {
    const option = sql.raw(grant.grantable ? ' with grant option' : '');
    await sql`grant ${sql.raw(grant.privilege)} on ${target} to ${sql.raw(grant.grantee)}${option}`.execute(
      db,
    );
  }
}

/**
 * Brings the reporting layer to `views` in one transaction: a view whose checksum differs from
 * the one stored (or that is missing) is made again with every view that reads it, a view no
 * definition names any more is dropped, the others are left alone. A view made again keeps its
 * grants, the indexes made on it besides its grain's, and the relations of other schemas that
 * read it (made again as Postgres printed them). A maintained view made again has all its groups
 * summed again. Then the comments are written again (cheap, and a description needs no rebuild).
 */
export async function applyReportingDefinitions<DB>(
  db: Kysely<DB>,
  views: readonly ReportingView[] = REPORTING_VIEWS,
): Promise<DefinitionsOutcome> {
  const order = creationOrder(views);
  const names = new Set(views.map((view) => view.name));
  return (db as Kysely<unknown>).transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${LOCK_KEY})`.execute(trx);
    const { rows: stored } = await sql<{ name: string; checksum: string }>`
      select name, checksum from ${CHECKSUMS}`.execute(trx);
    const checksums = new Map(stored.map((row) => [row.name, row.checksum]));
    const { rows: present } = await sql<{ oid: number; schema: string; name: string }>`
      select c.oid::int as oid, n.nspname as schema, c.relname as name
        from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
       where n.nspname in (${REPORTING_SCHEMA}, ${REPORTING_PRIVATE_SCHEMA}) and c.relkind in ('v', 'm')`.execute(
      trx,
    );
    const oidOf = (schema: string, name: string) =>
      present.find((row) => row.schema === schema && row.name === name)?.oid;
    const managed = new Set([...names, ...checksums.keys()]);
    const isManaged = (relation: { schema: string; name: string }) =>
      (relation.schema === REPORTING_SCHEMA || relation.schema === REPORTING_PRIVATE_SCHEMA) &&
      managed.has(relation.name);

    const changed = new Set(
      order
        .filter(
          (view) =>
            checksums.get(view.name) !== definitionChecksum(view) ||
            oidOf(REPORTING_PRIVATE_SCHEMA, view.name) === undefined ||
            oidOf(REPORTING_SCHEMA, view.name) === undefined,
        )
        .map((view) => view.name),
    );
    const removed = [...checksums.keys()].filter((name) => !names.has(name));
    const starting = [...changed, ...removed].flatMap((name) =>
      [oidOf(REPORTING_SCHEMA, name), oidOf(REPORTING_PRIVATE_SCHEMA, name)].filter(
        (oid): oid is number => oid !== undefined,
      ),
    );
    const affected = await withReaders(trx, starting);
    // Readers granted some columns only (grant-reader without --personal), before their grants go with the views.
    const { rows: restricted } = await sql<{ role: string }>`
      select distinct pg_catalog.pg_get_userbyid(acl.grantee) as role
        from pg_catalog.pg_attribute a
        join pg_catalog.pg_class c on c.oid = a.attrelid
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
       cross join pg_catalog.aclexplode(a.attacl) acl
       where n.nspname = ${REPORTING_SCHEMA} and acl.privilege_type = 'SELECT' and acl.grantee <> 0
       order by 1`.execute(trx);
    // A view that reads one made again is made again too (Postgres keeps a view's query bound to
    // the relations it read when made).
    for (const relation of affected)
      if (isManaged(relation) && names.has(relation.name)) changed.add(relation.name);
    const others = affected.filter((relation) => !isManaged(relation));
    const saved = (schema: string, name: string) =>
      affected.find((relation) => relation.schema === schema && relation.name === name);

    for (const relation of [...others].reverse())
      await sql`drop ${kindWord(relation.kind)} ${sql.id(relation.schema, relation.name)}`.execute(trx);
    const leaving = [...order.filter((view) => changed.has(view.name)).map((view) => view.name), ...removed];
    for (const name of leaving.reverse()) {
      for (const schema of [REPORTING_SCHEMA, REPORTING_PRIVATE_SCHEMA]) {
        const relation = saved(schema, name);
        if (relation) await sql`drop ${kindWord(relation.kind)} ${sql.id(schema, name)}`.execute(trx);
      }
    }

    for (const view of order.filter((candidate) => changed.has(candidate.name))) {
      const target = sql.id(REPORTING_PRIVATE_SCHEMA, view.name);
      const before = saved(REPORTING_PRIVATE_SCHEMA, view.name);
      const grain = `${view.name}_grain_idx`;
      if (view.materialized) {
        await sql`create materialized view ${target} as ${sql.raw(view.query)}`.execute(trx);
        const nulls = sql.raw(view.materialized.nullsNotDistinct ? ' nulls not distinct' : '');
        const key = sql.join(view.materialized.key.map((column) => sql.id(column)));
        await sql`create unique index ${sql.id(grain)} on ${target} (${key})${nulls}`.execute(trx);
        for (const index of before?.kind === 'm' ? before.indexes : [])
          if (index.name !== grain) await sql.raw(index.definition).execute(trx);
      } else {
        await sql`create view ${target} as ${sql.raw(view.query)}`.execute(trx);
      }
      await regrant(trx, target, before);
      const reader = sql.id(REPORTING_SCHEMA, view.name);
      await sql`
        create view ${reader} with (security_barrier) as
        select * from ${target} v where ${VISIBLE}`.execute(trx);
      await regrant(trx, reader, saved(REPORTING_SCHEMA, view.name));
      // The default privileges gave them the whole view: its personal columns are taken back.
      if (personalColumnsOf(view).length)
        for (const { role } of restricted)
          for (const statement of restrictToColumns(REPORTING_SCHEMA, view.name, role, publicColumnsOf(view)))
            await statement.execute(trx);
      if (view.maintained) {
        const groups = sql.id(REPORTING_PRIVATE_SCHEMA, view.maintained.groups);
        const dirty = sql.id(REPORTING_PRIVATE_SCHEMA, view.maintained.dirty);
        await sql`lock table ${dirty} in share row exclusive mode`.execute(trx);
        await sql`delete from ${groups}`.execute(trx);
        await sql.raw(view.maintained.insertSums(true)).execute(trx);
        await sql`delete from ${dirty}`.execute(trx);
      }
    }
    for (const relation of others) {
      const target = sql.id(relation.schema, relation.name);
      const options = relation.options?.length ? sql` with (${sql.raw(relation.options.join(', '))})` : sql``;
      const definition = sql.raw(relation.definition.replace(/;\s*$/, ''));
      await sql`create ${kindWord(relation.kind)} ${target}${options} as ${definition}`.execute(trx);
      for (const index of relation.indexes) await sql.raw(index.definition).execute(trx);
      await regrant(trx, target, relation);
    }

    if (removed.length) await sql`delete from ${CHECKSUMS} where name = any(${removed}::text[])`.execute(trx);
    for (const view of order.filter((candidate) => changed.has(candidate.name)))
      await sql`
        insert into ${CHECKSUMS} (name, kind, checksum)
        values (${view.name}, ${view.materialized ? 'materialized view' : 'view'}, ${definitionChecksum(view)})
        on conflict (name) do update
          set kind = excluded.kind, checksum = excluded.checksum, applied_at = now()`.execute(trx);
    await applyReportingComments(trx);
    const made = order.filter((view) => changed.has(view.name)).map((view) => view.name);
    return {
      created: made.filter((name) => !checksums.has(name)),
      replaced: made.filter((name) => checksums.has(name)),
      dropped: removed,
      unchanged: order.filter((view) => !changed.has(view.name)).map((view) => view.name),
    };
  });
}
