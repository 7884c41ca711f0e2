import { sql, type Kysely, type RawBuilder } from 'kysely';
import { replaceReportingQuery } from './support/replace-reporting-query.js';

/**
 * `vendor_spend_monthly` is kept group by group, as `ar_activity_monthly` is since 0015, instead of
 * summed again from every invoice line after every sync (the longest view of the refresh after
 * `properties`, a second on the large data set, for the dozen invoices a nightly sync changes):
 *
 * - `reporting_private.vendor_spend_groups` holds the sums of 0014's query, one row per
 *   (account, post month, vendor, property) with the vendor's name, without the account's and
 *   the property's; filled here from the invoices.
 * - `reporting_private.vendor_spend_monthly` becomes a plain view over it with the same columns,
 *   which names the account and property when read. The reader view
 *   `reporting.vendor_spend_monthly` is made again over it with its options and grants.
 * - A group, in `reporting_private.vendor_spend_dirty`, is an account and an invoice post month:
 *   everything the view sums of an invoice is in its month's rows. Statement triggers with
 *   transition tables note the month of every invoice written whose columns the view reads
 *   (post month, vendor, vendor name, type, reversed invoice, deleted or not) changed, old and
 *   new, and the month of the invoice it reverses (or reversed): a reversal takes both out. A line
 *   written (invoice, property, amount, deleted or not) notes its invoice's month. Rows deleted
 *   both before and after count for nothing, and an update of other columns only (what is due,
 *   payments) notes nothing and takes no lock on the dirty table. COPY and INSERT ... ON
 *   CONFLICT fire them as well. A truncate notes every group there is.
 * - src/reporting/vendor-spend-groups.ts sums the noted groups again at the end of each sync.
 *
 * The index on invoices (account_id, post_month) (0004, led by the account since 0011) finds a
 * month's invoices, (account_id, reversal_invoice_id) their reversals and invoice_line_items
 * (account_id, invoice_id) their lines (0001 and 0004, led by the account since 0010).
 * `down` makes the materialized view of 0014 again. The SQL here is frozen.
 */

/** 0014's sums of the invoice lines, one row per (account, post month, vendor, property) (its query `totals`). */
const SUMS = sql`
  with spend as (
    select i.account_id, i.invoice_id, i.post_month, i.vendor_id, i.vendor_name, i.invoice_type_id
      from public.invoices i
     where i.deleted_at is null and i.post_month is not null
       and i.invoice_type_id is distinct from 20
       and i.reversal_invoice_id is null
       and not exists (select 1 from public.invoices r where r.account_id = i.account_id and r.reversal_invoice_id = i.invoice_id and r.deleted_at is null)
  )
  select s.account_id,
         s.post_month,
         s.vendor_id,
         max(s.vendor_name) as vendor_name,
         li.property_id,
         count(distinct s.invoice_id) filter (where s.invoice_type_id is distinct from 12)::int as invoices,
         count(distinct s.invoice_id) filter (where s.invoice_type_id = 12)::int as credit_memos,
         coalesce(sum(li.amount), 0)::numeric(14,2) as amount,
         coalesce(sum(li.amount) filter (where s.invoice_type_id = 12), 0)::numeric(14,2) as credit_memo_amount
    from spend s
    join public.invoice_line_items li on li.account_id = s.account_id and li.invoice_id = s.invoice_id and li.deleted_at is null
   group by s.post_month, s.vendor_id, li.property_id, s.account_id`;

/** The groups `g` named: 0014's outer query. */
const named = (groups: RawBuilder<unknown>) => sql`
  select g.account_id, a.name as account_name, g.post_month, g.vendor_id, g.vendor_name, g.property_id, p.property_name,
         g.invoices, g.credit_memos, g.amount, g.credit_memo_amount
    from ${groups} g
    left join public.accounts a on a.account_id = g.account_id
    left join reporting_private.properties p on p.account_id = g.account_id and p.property_id = g.property_id`;

/** The columns of vendor_spend_groups, in SUMS's order. */
const COLUMNS = sql.raw(
  'account_id, post_month, vendor_id, vendor_name, property_id, invoices, credit_memos, amount, credit_memo_amount',
);

/** 0011's unique index of the materialized view (kept by 0014), for down. */
const GRAIN_INDEX =
  'create unique index vendor_spend_monthly_grain_idx on reporting_private.vendor_spend_monthly (account_id, post_month, vendor_id, property_id) nulls not distinct';

/**
 * Notes the months of the invoices a statement wrote, and of the invoices they reverse. The
 * invoices first, as arrays: a statement that changed none the view reads inserts nothing, and so
 * holds no lock on the dirty table that an update of the groups would wait for. One that did
 * inserts (even no group: the invoice it reverses may not be committed yet), and holds it. A
 * reversed invoice is looked up by its key, as the lines' function looks up theirs.
 */
const INVOICES_FUNCTION = sql`
  create function reporting_private.note_vendor_spend_invoices() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog, pg_temp
  as $$
  declare
    accounts text[];
    months date[];
    reversed bigint[];
  begin
    if tg_op = 'INSERT' then
      select array_agg(n.account_id), array_agg(n.post_month), array_agg(n.reversal_invoice_id) into accounts, months, reversed
        from new_rows n where n.deleted_at is null;
    elsif tg_op = 'UPDATE' then
      -- Most updates change what is due and paid only: only a change of what the view reads counts,
      -- and of an invoice not deleted before or after (a deleted one adds nothing to any month).
      select array_agg(w.account_id), array_agg(w.post_month), array_agg(w.reversal_invoice_id) into accounts, months, reversed
        from old_rows o
        full join new_rows n on n.account_id = o.account_id and n.invoice_id = o.invoice_id
        cross join lateral (values (o.invoice_id is not null and o.deleted_at is null, o.account_id, o.post_month, o.reversal_invoice_id),
                                   (n.invoice_id is not null and n.deleted_at is null, n.account_id, n.post_month, n.reversal_invoice_id)) w(live, account_id, post_month, reversal_invoice_id)
       where w.live
         and (o.invoice_id is null or n.invoice_id is null
              or (o.deleted_at is null, o.post_month, o.vendor_id, o.vendor_name, o.invoice_type_id, o.reversal_invoice_id)
                 is distinct from (n.deleted_at is null, n.post_month, n.vendor_id, n.vendor_name, n.invoice_type_id, n.reversal_invoice_id));
    else
      select array_agg(o.account_id), array_agg(o.post_month), array_agg(o.reversal_invoice_id) into accounts, months, reversed
        from old_rows o where o.deleted_at is null;
    end if;
    if accounts is null then
      return null;
    end if;
    execute 'insert into reporting_private.vendor_spend_dirty (account_id, post_month)
             select c.account_id, c.post_month from unnest($1, $2) c(account_id, post_month) where c.post_month is not null
             union
             select i.account_id, i.post_month
               from (select distinct c.account_id, c.invoice_id from unnest($1, $3) c(account_id, invoice_id) where c.invoice_id is not null) c
               cross join lateral (select i.account_id, i.post_month from public.invoices i where i.account_id = c.account_id and i.invoice_id = c.invoice_id offset 0) i
              where i.post_month is not null
             on conflict do nothing'
      using accounts, months, reversed;
    return null;
  end $$`;

/**
 * Notes the months of the invoices of the lines a statement wrote; as the invoices' function,
 * nothing for lines the view does not read, and a lock even when their invoices are not
 * committed yet (the update waits for the lines, then sums them with their invoices). Each
 * invoice is looked up by its key, one at a time: OFFSET 0 keeps the planner from hashing the
 * whole table instead (5.2 against 1.5 ms for a COPY of 1,000 lines after the medium data set's
 * 9,470 invoices). The lookup is planned anew each time (`execute`), as the leases' of 0015 is:
 * during a full load the invoices grow from nothing, and a plan is not kept from the first page.
 */
const LINES_FUNCTION = sql`
  create function reporting_private.note_vendor_spend_lines() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog, pg_temp
  as $$
  declare
    accounts text[];
    invoices bigint[];
  begin
    if tg_op = 'INSERT' then
      select array_agg(c.account_id), array_agg(c.invoice_id) into accounts, invoices
        from (select distinct n.account_id, n.invoice_id from new_rows n where n.deleted_at is null) c;
    elsif tg_op = 'UPDATE' then
      select array_agg(c.account_id), array_agg(c.invoice_id) into accounts, invoices
        from (select distinct w.account_id, w.invoice_id
                from old_rows o
                full join new_rows n on n.account_id = o.account_id and n.line_item_id = o.line_item_id
                cross join lateral (values (o.line_item_id is not null and o.deleted_at is null, o.account_id, o.invoice_id),
                                           (n.line_item_id is not null and n.deleted_at is null, n.account_id, n.invoice_id)) w(live, account_id, invoice_id)
               where w.live
                 and (o.line_item_id is null or n.line_item_id is null
                      or (o.deleted_at is null, o.invoice_id, o.property_id, o.amount) is distinct from (n.deleted_at is null, n.invoice_id, n.property_id, n.amount))) c;
    else
      select array_agg(c.account_id), array_agg(c.invoice_id) into accounts, invoices
        from (select distinct o.account_id, o.invoice_id from old_rows o where o.deleted_at is null) c;
    end if;
    if accounts is null then
      return null;
    end if;
    execute 'insert into reporting_private.vendor_spend_dirty (account_id, post_month)
             select distinct i.account_id, i.post_month
               from unnest($1, $2) c(account_id, invoice_id)
               cross join lateral (select i.account_id, i.post_month from public.invoices i where i.account_id = c.account_id and i.invoice_id = c.invoice_id offset 0) i
              where i.post_month is not null
             on conflict do nothing'
      using accounts, invoices;
    return null;
  end $$`;

/** After a truncate of the invoices or their lines, every group there is. */
const TRUNCATE_FUNCTION = sql`
  create function reporting_private.note_vendor_spend_truncate() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog, pg_temp
  as $$
  begin
    insert into reporting_private.vendor_spend_dirty (account_id, post_month)
    select distinct account_id, post_month from reporting_private.vendor_spend_groups
    on conflict do nothing;
    return null;
  end $$`;

/** The triggers: [name, table, event, transition tables, function]. */
const TRIGGERS: [string, string, string, string, string][] = [
  ['vendor_spend_insert', 'invoices', 'insert', 'new table as new_rows', 'note_vendor_spend_invoices'],
  [
    'vendor_spend_update',
    'invoices',
    'update',
    'old table as old_rows new table as new_rows',
    'note_vendor_spend_invoices',
  ],
  ['vendor_spend_delete', 'invoices', 'delete', 'old table as old_rows', 'note_vendor_spend_invoices'],
  ['vendor_spend_truncate', 'invoices', 'truncate', '', 'note_vendor_spend_truncate'],
  ['vendor_spend_insert', 'invoice_line_items', 'insert', 'new table as new_rows', 'note_vendor_spend_lines'],
  [
    'vendor_spend_update',
    'invoice_line_items',
    'update',
    'old table as old_rows new table as new_rows',
    'note_vendor_spend_lines',
  ],
  ['vendor_spend_delete', 'invoice_line_items', 'delete', 'old table as old_rows', 'note_vendor_spend_lines'],
  ['vendor_spend_truncate', 'invoice_line_items', 'truncate', '', 'note_vendor_spend_truncate'],
];

const FUNCTIONS = ['note_vendor_spend_invoices', 'note_vendor_spend_lines', 'note_vendor_spend_truncate'];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table reporting_private.vendor_spend_groups (
      account_id text not null,
      post_month date not null,
      vendor_id bigint,
      vendor_name text,
      property_id bigint,
      invoices integer not null,
      credit_memos integer not null,
      amount numeric(14,2) not null,
      credit_memo_amount numeric(14,2) not null,
      constraint vendor_spend_groups_grain unique nulls not distinct (account_id, post_month, vendor_id, property_id)
    )`.execute(db);
  await sql`comment on table reporting_private.vendor_spend_groups is ${sql.lit('The sums behind reporting.vendor_spend_monthly, one row per account, post month, vendor and property; kept group by group (account and post month) at the end of each sync (src/reporting/vendor-spend-groups.ts).')}`.execute(
    db,
  );
  await sql`
    create table reporting_private.vendor_spend_dirty (
      account_id text not null,
      post_month date not null,
      primary key (account_id, post_month)
    )`.execute(db);
  await sql`comment on table reporting_private.vendor_spend_dirty is ${sql.lit('The (account, post month) groups of reporting_private.vendor_spend_groups written since they were last summed, noted by triggers on invoices and invoice_line_items.')}`.execute(
    db,
  );
  await INVOICES_FUNCTION.execute(db);
  await LINES_FUNCTION.execute(db);
  await TRUNCATE_FUNCTION.execute(db);
  // The triggers first: they lock the tables against writes until the migration commits, so the sums below miss none.
  for (const [name, table, event, transitions, fn] of TRIGGERS) {
    const referencing = transitions ? sql.raw(` referencing ${transitions}`) : sql``;
    await sql`create trigger ${sql.id(name)} after ${sql.raw(event)} on ${sql.id('public', table)}${referencing} for each statement execute function ${sql.id('reporting_private', fn)}()`.execute(
      db,
    );
  }
  await sql`insert into reporting_private.vendor_spend_groups (${COLUMNS}) ${SUMS} order by 1, 2, 3, 5`.execute(
    db,
  );
  await sql`analyze reporting_private.vendor_spend_groups`.execute(db);
  await replaceReportingQuery(db, 'vendor_spend_monthly', named(sql`reporting_private.vendor_spend_groups`), {
    kind: 'view',
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await replaceReportingQuery(db, 'vendor_spend_monthly', named(sql`(${SUMS})`), {
    kind: 'materialized view',
    indexes: [GRAIN_INDEX],
  });
  for (const [name, table] of TRIGGERS)
    await sql`drop trigger ${sql.id(name)} on ${sql.id('public', table)}`.execute(db);
  for (const fn of FUNCTIONS) await sql`drop function ${sql.id('reporting_private', fn)}()`.execute(db);
  await sql`drop table reporting_private.vendor_spend_dirty, reporting_private.vendor_spend_groups`.execute(
    db,
  );
}
