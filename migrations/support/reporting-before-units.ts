import { sql, type Kysely } from 'kysely';

/**
 * The reporting layer as it was before migration 0021 (the unit inventory), frozen for its `down`:
 * occupancy_monthly and portfolio as src/reporting/definitions/ made them at commit fb490ea, with
 * the reader views of migration 0011 over them. Dropping 0021's tables drops every view that reads
 * them; `restoreReportingBeforeUnits` makes these two again as they were, with what read them.
 */

/** reporting_private.occupancy_monthly before 0021: a materialized view keyed by account, property, month. */
const OCCUPANCY_MONTHLY = `
    with residential as (
      select l.account_id, l.property_id, l.unit_id, l.lease_status_type_id, l.move_in_date, l.move_out_date
        from public.leases l
       where l.deleted_at is null and l.is_other_income is not true and l.unit_id is not null
    ),
    units as (
      select account_id,
             property_id,
             count(distinct unit_id)::int as units_known,
             min(move_in_date) filter (where lease_status_type_id in (4, 5, 6)) as first_move_in
        from residential
       group by account_id, property_id
    ),
    months as (
      select u.account_id, u.property_id, u.units_known, m::date as month,
             least((m + interval '1 month - 1 day')::date, coalesce(z.today, z0.today)) as as_of_date
        from units u

  left join reporting_private.account_today z on z.account_id = u.account_id
  cross join (select reporting.today() as today) z0
       cross join generate_series(date_trunc('month', least(coalesce(u.first_move_in, coalesce(z.today, z0.today)), coalesce(z.today, z0.today))),
                                  date_trunc('month', coalesce(z.today, z0.today)), interval '1 month') m
    ),
    occupied as (
      select m.account_id, m.property_id, m.month, count(distinct r.unit_id)::int as units_occupied
        from months m
        join residential r on r.account_id = m.account_id and r.property_id = m.property_id
       where r.lease_status_type_id in (4, 5, 6)
         and r.move_in_date <= m.as_of_date
         and (r.move_out_date > m.as_of_date or (r.move_out_date is null and r.lease_status_type_id in (4, 5)))
       group by m.account_id, m.property_id, m.month
    )
    select m.account_id,
           a.name as account_name,
           m.property_id,
           p.property_name,
           m.month,
           (m.month + interval '1 month - 1 day')::date as month_end,
           m.as_of_date,
           m.units_known,
           coalesce(o.units_occupied, 0) as units_occupied,
           round(100.0 * coalesce(o.units_occupied, 0) / nullif(m.units_known, 0), 1) as occupancy_percent
      from months m
      left join occupied o on o.account_id = m.account_id and o.property_id = m.property_id and o.month = m.month
      left join public.accounts a on a.account_id = m.account_id
      left join reporting_private.properties p on p.account_id = m.account_id and p.property_id = m.property_id`;

/** reporting_private.portfolio before 0021: a plain view. */
const PORTFOLIO = `
    with known as (
      select account_id from public.accounts
      union
      select account_id from reporting_private.properties
    ),
    properties as (
      select account_id, count(*)::int as properties from reporting_private.properties group by account_id
    ),
    occupancy as (
      select latest.account_id, sum(latest.units_known)::int as units_known,
             sum(latest.units_occupied)::int as units_occupied
        from (select distinct on (o.account_id, o.property_id) o.account_id, o.units_known, o.units_occupied
                from reporting_private.occupancy_monthly o
               order by o.account_id, o.property_id, o.month desc) latest
       group by latest.account_id
    ),
    leases as (
      select l.account_id, count(*)::int as current_leases
        from public.leases l
       where l.deleted_at is null and l.is_other_income is not true and l.lease_status_type_id in (4, 5)
       group by l.account_id
    ),
    ar as (
      select t.account_id, sum(t.balance_due) as balance,
             sum(t.balance_due) filter (where t.due_date < coalesce(z.today, z0.today)) as past_due
        from public.ar_transactions t
  left join reporting_private.account_today z on z.account_id = t.account_id
  cross join (select reporting.today() as today) z0
       where t.deleted_at is null and t.balance_due <> 0 and t.is_temporary is not true and t.is_reversed is not true
         and exists (select 1 from public.leases l
                      where l.account_id = t.account_id and l.lease_id = t.lease_id and l.deleted_at is null)
       group by t.account_id
    ),
    ap as (
      select i.account_id, count(*)::int as invoices, sum(i.amount_due) as amount_due
        from public.invoices i
       where i.deleted_at is null and i.amount_due <> 0
       group by i.account_id
    )
    select k.account_id,
           a.name as account_name,
           coalesce(p.properties, 0) as properties,
           coalesce(o.units_known, 0) as units_known,
           coalesce(o.units_occupied, 0) as units_occupied,
           round(100.0 * coalesce(o.units_occupied, 0) / nullif(o.units_known, 0), 1) as occupancy_percent,
           coalesce(l.current_leases, 0) as current_leases,
           coalesce(ar.balance, 0)::numeric(14,2) as open_ar_balance,
           coalesce(ar.past_due, 0)::numeric(14,2) as past_due_ar_balance,
           coalesce(ap.invoices, 0) as open_ap_invoices,
           coalesce(ap.amount_due, 0)::numeric(14,2) as open_ap_amount,
           coalesce(z.today, z0.today) as as_of_date
      from known k

  left join reporting_private.account_today z on z.account_id = k.account_id
  cross join (select reporting.today() as today) z0
      left join public.accounts a on a.account_id = k.account_id
      left join properties p on p.account_id = k.account_id
      left join occupancy o on o.account_id = k.account_id
      left join leases l on l.account_id = k.account_id
      left join ar on ar.account_id = k.account_id
      left join ap on ap.account_id = k.account_id`;

/** The views made again, in their order of creation (portfolio reads occupancy_monthly). */
const BEFORE: { name: string; query: string; grain?: string[] }[] = [
  { name: 'occupancy_monthly', query: OCCUPANCY_MONTHLY, grain: ['account_id', 'property_id', 'month'] },
  { name: 'portfolio', query: PORTFOLIO },
];

/** The views 0021's definitions added: they go with its tables. */
const ADDED = ['units', 'box_score'];

const SCHEMAS = ['reporting', 'reporting_private'];

/** The rows of accounts the current user may see, as every reader view filters them. */
const VISIBLE = sql.raw(
  `((select reporting_private.visible_accounts(current_user)) is null or ` +
    `v.account_id = any((select reporting_private.visible_accounts(current_user))::text[]))`,
);

/** A view that reads a table of 0021 (directly or not), as Postgres prints it. */
interface Relation {
  oid: number;
  schema: string;
  name: string;
  kind: 'v' | 'm';
  definition: string;
  options: string[] | null;
  /** The relations (views or tables) it reads. */
  reads: number[];
  indexes: { name: string; definition: string }[];
  grants: { grantee: string; privilege: string; grantable: boolean }[];
}

/** Every view that reads `tables` (directly or not), each after those it reads. */
async function readersOf(db: Kysely<unknown>, tables: string[]): Promise<Relation[]> {
  const { rows: paths } = await sql<{ path: string }>`select current_setting('search_path') as path`.execute(
    db,
  );
  // Every name qualified in the definitions printed.
  await sql`select pg_catalog.set_config('search_path', '', true)`.execute(db);
  const { rows } = await sql<Relation & { level: number }>`
    with recursive readers(oid, level) as (
      select c.oid, 0
        from pg_catalog.pg_class c
       where c.relnamespace = 'public'::pg_catalog.regnamespace and c.relname = any(${tables}::text[])
      union
      select r.ev_class, x.level + 1
        from readers x
        join pg_catalog.pg_depend d on d.refobjid = x.oid and d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass
        join pg_catalog.pg_rewrite r on r.oid = d.objid
       where r.ev_class <> x.oid
    ),
    deepest as (select oid, max(level) as level from readers group by oid)
    select c.oid::int as oid, n.nspname as schema, c.relname as name, c.relkind::text as kind, x.level,
           pg_catalog.pg_get_viewdef(c.oid) as definition, c.reloptions::text[] as options,
           coalesce((select pg_catalog.array_agg(distinct d.refobjid::int)
                       from pg_catalog.pg_rewrite r
                       join pg_catalog.pg_depend d on d.objid = r.oid
                        and d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass
                        and d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
                      where r.ev_class = c.oid and d.refobjid <> c.oid), '{}') as reads,
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
      from deepest x
      join pg_catalog.pg_class c on c.oid = x.oid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('v', 'm')
     order by x.level, c.oid`.execute(db);
  await sql`select pg_catalog.set_config('search_path', ${paths[0].path}, true)`.execute(db);
  return rows;
}

async function regrant(db: Kysely<unknown>, schema: string, name: string, relation: Relation | undefined) {
  for (const grant of relation?.grants ?? []) {
    const option = sql.raw(grant.grantable ? ' with grant option' : '');
    await sql`grant ${sql.raw(grant.privilege)} on ${sql.id(schema, name)} to ${sql.raw(grant.grantee)}${option}`.execute(
      db,
    );
  }
}

const kindWord = (kind: 'v' | 'm') => sql.raw(kind === 'm' ? 'materialized view' : 'view');

/**
 * Drops `tables` (with every view that reads them) and makes occupancy_monthly and portfolio
 * again as they were before 0021, if they read the tables (else they are left as they are): with
 * their grants, the indexes made on occupancy_monthly, their reader views of reporting (filtered
 * to the accounts a reader may see) and the views of other schemas that read them, as Postgres
 * printed them. A view that reads units or box_score (0021's views) goes with them. Their rows
 * of reporting_private.view_definitions go too, so that `propsync migrate` makes them again.
 */
export async function dropUnitTablesRestoringReporting(db: Kysely<unknown>, tables: string[]): Promise<void> {
  const readers = await readersOf(db, tables);
  const find = (schema: string, name: string) =>
    readers.find((relation) => relation.schema === schema && relation.name === name);
  const restored = BEFORE.filter((view) => find('reporting_private', view.name));
  const managed = (relation: Relation) =>
    SCHEMAS.includes(relation.schema) &&
    [...ADDED, ...BEFORE.map((view) => view.name)].includes(relation.name);
  // 0021's views go; a view of another schema goes when it reads one that goes (readers come after
  // what they read), and is made again otherwise.
  const gone = new Set<number>();
  for (const relation of readers) {
    const goes = managed(relation)
      ? !restored.some((view) => view.name === relation.name)
      : relation.reads.some((oid) => gone.has(oid));
    if (goes) gone.add(relation.oid);
  }
  const others = readers.filter((relation) => !managed(relation) && !gone.has(relation.oid));

  for (const relation of [...readers].reverse())
    await sql`drop ${kindWord(relation.kind)} if exists ${sql.id(relation.schema, relation.name)}`.execute(
      db,
    );
  for (const table of [...tables].reverse())
    await sql`drop table if exists ${sql.table(table)} cascade`.execute(db);

  for (const view of restored) {
    const target = sql.id('reporting_private', view.name);
    const before = find('reporting_private', view.name);
    if (view.grain) {
      const grain = `${view.name}_grain_idx`;
      await sql`create materialized view ${target} as ${sql.raw(view.query)}`.execute(db);
      const key = sql.join(view.grain.map((column) => sql.id(column)));
      await sql`create unique index ${sql.id(grain)} on ${target} (${key})`.execute(db);
      for (const index of before?.kind === 'm' ? before.indexes : [])
        if (index.name !== grain) await sql.raw(index.definition).execute(db);
    } else {
      await sql`create view ${target} as ${sql.raw(view.query)}`.execute(db);
    }
    await regrant(db, 'reporting_private', view.name, before);
    await sql`
      create view ${sql.id('reporting', view.name)} with (security_barrier) as
      select * from ${target} v where ${VISIBLE}`.execute(db);
    await regrant(db, 'reporting', view.name, find('reporting', view.name));
  }
  for (const relation of others) {
    const target = sql.id(relation.schema, relation.name);
    const options = relation.options?.length ? sql` with (${sql.raw(relation.options.join(', '))})` : sql``;
    const definition = sql.raw(relation.definition.replace(/;\s*$/, ''));
    await sql`create ${kindWord(relation.kind)} ${target}${options} as ${definition}`.execute(db);
    for (const index of relation.indexes) await sql.raw(index.definition).execute(db);
    await regrant(db, relation.schema, relation.name, relation);
  }

  await sql`
    delete from reporting_private.view_definitions d
     where d.name = any(${[...ADDED, ...restored.map((view) => view.name)]}::text[])
        or to_regclass('reporting_private.' || quote_ident(d.name)) is null`.execute(db);
}
