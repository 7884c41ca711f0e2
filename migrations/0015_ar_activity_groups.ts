import { sql, type Kysely, type RawBuilder } from 'kysely';
import { replaceReportingQuery } from './support/replace-reporting-query.js';

/**
 * `ar_activity_monthly` is kept group by group instead of summed again from the whole AR ledger
 * after every sync (the costliest view of the refresh, seconds on the large data set, for the few
 * dozen transactions a nightly sync changes):
 *
 * - `reporting_private.ar_activity_groups` holds the sums of 0014's query, one row per
 *   (account, property, post month, AR code), without the names; filled here from the ledger.
 * - `reporting_private.ar_activity_monthly` becomes a plain view over it with the same columns,
 *   which names the account and property when read (names are always current). The reader view
 *   `reporting.ar_activity_monthly` is made again over it with its options and grants.
 * - Statement triggers with transition tables note in `reporting_private.ar_activity_dirty` the
 *   (account, property, post month) of every ledger row written (old and new), and of every
 *   ledger row of a lease inserted, deleted, marked deleted or revived (the query joins the
 *   live leases). A statement of any size costs one `insert ... select distinct` of its rows;
 *   COPY and INSERT ... ON CONFLICT fire them as well. A truncate notes every group there is.
 * - src/reporting/ar-activity-groups.ts sums the noted groups again at the end of each sync.
 *
 * The ledger's index (account_id, property_id, post_month) (0001, led by the account since 0010)
 * serves the sums of a few groups.
 * `down` makes the materialized view of 0014 again. The SQL here is frozen.
 */

const MONEY = (type: number) =>
  sql.raw(`coalesce(sum(t.amount) filter (where t.transaction_type_id = ${type}), 0)::numeric(14,2)`);

/** 0014's sums of the ledger, one row per group (its inner query). */
const SUMS = sql`
  select t.account_id,
         t.property_id,
         t.post_month,
         t.ar_code_id,
         min(t.ar_code_name) as ar_code_name,
         count(*)::int as transactions,
         ${MONEY(1)} as charges,
         ${MONEY(4)} as deposits,
         ${MONEY(2)} as payments,
         ${MONEY(3)} as concessions,
         ${MONEY(5)} as deposit_applications,
         ${MONEY(6)} as refunds,
         ${MONEY(7)} as write_offs,
         coalesce(sum(t.amount), 0)::numeric(14,2) as net_amount
    from public.ar_transactions t
    join public.leases l on l.account_id = t.account_id and l.lease_id = t.lease_id and l.deleted_at is null
   where t.deleted_at is null and t.is_temporary is not true and t.is_reversed is not true and t.post_month is not null
   group by t.property_id, t.post_month, t.ar_code_id, t.account_id`;

/** The groups `g` named: 0014's outer query. */
const named = (groups: RawBuilder<unknown>) => sql`
  select g.account_id, a.name as account_name, g.property_id, p.property_name, g.post_month, g.ar_code_id, g.ar_code_name, g.transactions,
         g.charges, g.deposits, g.payments, g.concessions, g.deposit_applications, g.refunds, g.write_offs, g.net_amount
    from ${groups} g
    left join public.accounts a on a.account_id = g.account_id
    left join reporting_private.properties p on p.account_id = g.account_id and p.property_id = g.property_id`;

/** The columns of ar_activity_groups, in SUMS's order. */
const COLUMNS = sql.raw(
  'account_id, property_id, post_month, ar_code_id, ar_code_name, transactions, charges, deposits, payments, concessions, deposit_applications, refunds, write_offs, net_amount',
);

/** 0014's unique index of the materialized view, for down. */
const GRAIN_INDEX =
  'create unique index ar_activity_monthly_grain_idx on reporting_private.ar_activity_monthly (account_id, post_month, property_id, ar_code_id) nulls not distinct';

/** Notes the groups of the ledger rows a statement wrote. */
const LEDGER_FUNCTION = sql`
  create function reporting_private.note_ar_activity_ledger() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog, pg_temp
  as $$
  begin
    if tg_op = 'INSERT' then
      insert into reporting_private.ar_activity_dirty (account_id, property_id, post_month)
      select distinct account_id, property_id, post_month from new_rows where post_month is not null
      on conflict do nothing;
    elsif tg_op = 'UPDATE' then
      insert into reporting_private.ar_activity_dirty (account_id, property_id, post_month)
      select account_id, property_id, post_month from old_rows where post_month is not null
      union
      select account_id, property_id, post_month from new_rows where post_month is not null
      on conflict do nothing;
    else
      insert into reporting_private.ar_activity_dirty (account_id, property_id, post_month)
      select distinct account_id, property_id, post_month from old_rows where post_month is not null
      on conflict do nothing;
    end if;
    return null;
  end $$`;

/**
 * Notes the groups of the ledger rows of the leases a statement made live or not live. Each lease
 * looks up its own ledger rows (`offset 0` keeps the lookup per lease, through the ledger's index
 * on (account_id, lease_id, post_month)), planned anew each time (`execute`): during a full load
 * the ledger grows from nothing, and a plan kept from its first page scanned all of an account's
 * ledger once per lease.
 */
const LEASES_FUNCTION = sql`
  create function reporting_private.note_ar_activity_leases() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog, pg_temp
  as $$
  declare
    -- The leases whose ledger rows to note: made live or not live by the statement.
    leases text;
  begin
    if tg_op = 'INSERT' then
      leases := 'select n.account_id, n.lease_id from new_rows n where n.deleted_at is null';
    elsif tg_op = 'UPDATE' then
      -- Most updates keep a lease live (or deleted): only a change of that counts.
      leases := 'select coalesce(n.account_id, o.account_id) as account_id, coalesce(n.lease_id, o.lease_id) as lease_id
                   from old_rows o full join new_rows n on n.account_id = o.account_id and n.lease_id = o.lease_id
                  where (o.lease_id is not null and o.deleted_at is null) is distinct from (n.lease_id is not null and n.deleted_at is null)';
    else
      leases := 'select o.account_id, o.lease_id from old_rows o where o.deleted_at is null';
    end if;
    execute 'insert into reporting_private.ar_activity_dirty (account_id, property_id, post_month)
             select distinct c.account_id, t.property_id, t.post_month
               from (' || leases || ') c
               cross join lateral (select t.property_id, t.post_month from public.ar_transactions t
                                    where t.account_id = c.account_id and t.lease_id = c.lease_id and t.post_month is not null offset 0) t
             on conflict do nothing';
    return null;
  end $$`;

/** After a truncate of the ledger or the leases, every group there is. */
const TRUNCATE_FUNCTION = sql`
  create function reporting_private.note_ar_activity_truncate() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog, pg_temp
  as $$
  begin
    insert into reporting_private.ar_activity_dirty (account_id, property_id, post_month)
    select distinct account_id, property_id, post_month from reporting_private.ar_activity_groups
    on conflict do nothing;
    return null;
  end $$`;

/** The triggers: [name, table, event, transition tables, function]. */
const TRIGGERS: [string, string, string, string, string][] = [
  ['ar_activity_insert', 'ar_transactions', 'insert', 'new table as new_rows', 'note_ar_activity_ledger'],
  [
    'ar_activity_update',
    'ar_transactions',
    'update',
    'old table as old_rows new table as new_rows',
    'note_ar_activity_ledger',
  ],
  ['ar_activity_delete', 'ar_transactions', 'delete', 'old table as old_rows', 'note_ar_activity_ledger'],
  ['ar_activity_truncate', 'ar_transactions', 'truncate', '', 'note_ar_activity_truncate'],
  ['ar_activity_insert', 'leases', 'insert', 'new table as new_rows', 'note_ar_activity_leases'],
  [
    'ar_activity_update',
    'leases',
    'update',
    'old table as old_rows new table as new_rows',
    'note_ar_activity_leases',
  ],
  ['ar_activity_delete', 'leases', 'delete', 'old table as old_rows', 'note_ar_activity_leases'],
  ['ar_activity_truncate', 'leases', 'truncate', '', 'note_ar_activity_truncate'],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table reporting_private.ar_activity_groups (
      account_id text not null,
      property_id bigint not null,
      post_month date not null,
      ar_code_id bigint,
      ar_code_name text,
      transactions integer not null,
      charges numeric(14,2) not null,
      deposits numeric(14,2) not null,
      payments numeric(14,2) not null,
      concessions numeric(14,2) not null,
      deposit_applications numeric(14,2) not null,
      refunds numeric(14,2) not null,
      write_offs numeric(14,2) not null,
      net_amount numeric(14,2) not null,
      constraint ar_activity_groups_grain unique nulls not distinct (account_id, property_id, post_month, ar_code_id)
    )`.execute(db);
  await sql`comment on table reporting_private.ar_activity_groups is ${sql.lit('The sums behind reporting.ar_activity_monthly, one row per account, property, post month and AR code; kept group by group at the end of each sync (src/reporting/ar-activity-groups.ts).')}`.execute(
    db,
  );
  await sql`
    create table reporting_private.ar_activity_dirty (
      account_id text not null,
      property_id bigint not null,
      post_month date not null,
      primary key (account_id, property_id, post_month)
    )`.execute(db);
  await sql`comment on table reporting_private.ar_activity_dirty is ${sql.lit('The (account, property, post month) groups of reporting_private.ar_activity_groups written since they were last summed, noted by triggers on ar_transactions and leases.')}`.execute(
    db,
  );
  await LEDGER_FUNCTION.execute(db);
  await LEASES_FUNCTION.execute(db);
  await TRUNCATE_FUNCTION.execute(db);
  // The triggers first: they lock the tables against writes until the migration commits, so the sums below miss none.
  for (const [name, table, event, transitions, fn] of TRIGGERS) {
    const referencing = transitions ? sql.raw(` referencing ${transitions}`) : sql``;
    await sql`create trigger ${sql.id(name)} after ${sql.raw(event)} on ${sql.id('public', table)}${referencing} for each statement execute function ${sql.id('reporting_private', fn)}()`.execute(
      db,
    );
  }
  await sql`insert into reporting_private.ar_activity_groups (${COLUMNS}) ${SUMS} order by 1, 2, 3, 4`.execute(
    db,
  );
  await sql`analyze reporting_private.ar_activity_groups`.execute(db);
  await replaceReportingQuery(db, 'ar_activity_monthly', named(sql`reporting_private.ar_activity_groups`), {
    kind: 'view',
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await replaceReportingQuery(db, 'ar_activity_monthly', named(sql`(${SUMS})`), {
    kind: 'materialized view',
    indexes: [GRAIN_INDEX],
  });
  for (const [name, table] of TRIGGERS)
    await sql`drop trigger ${sql.id(name)} on ${sql.id('public', table)}`.execute(db);
  for (const fn of ['note_ar_activity_ledger', 'note_ar_activity_leases', 'note_ar_activity_truncate'])
    await sql`drop function ${sql.id('reporting_private', fn)}()`.execute(db);
  await sql`drop table reporting_private.ar_activity_dirty, reporting_private.ar_activity_groups`.execute(db);
}
