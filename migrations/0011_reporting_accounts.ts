import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * The reporting layer learns accounts (issue 22). Every view and materialized view is recreated
 * with `account_id` (and the account's configured name, `account_name`) as its first columns,
 * every join and grouping also on account_id (two accounts may use the same property, lease and
 * invoice ids), and a view `portfolio` sums each account side by side. The SQL here is frozen.
 *
 * Readers may be limited to some accounts (`propsync grant-reader ROLE --account ID`):
 *
 * - The queries move to schema `reporting_private`, on which no reader has usage: the
 *   materialized views (which cannot carry row-level security) and the plain views.
 *   `reporting.X` becomes a security-barrier view `select * from reporting_private.X` that
 *   leaves out the rows of accounts the reader may not see. A view reads its relations with
 *   its owner's rights, but `current_user` in it is the reader's; the barrier keeps a reader's
 *   own functions from seeing rows before that filter does.
 * - `reporting_private.reader_accounts` maps a role to the accounts it may see, and
 *   `reporting_private.visible_accounts(role)` (security definer: readers cannot read the
 *   mapping) answers for a role: null (every account) for a role that has no role with
 *   accounts among the roles whose privileges it uses, for superusers, roles that bypass
 *   row-level security and the owner (propsync itself); else the accounts of those roles.
 *   Without any mapping every reader sees every account, as before.
 * - Every table of `public` with an account_id gets row-level security with one policy of the
 *   same filter, for readers given the base tables. The owner (propsync's own role, which
 *   loads the data) is not subject to it: its COPY and upserts are unchanged.
 *
 * The filter calls the function twice per relation and query (as init plans), and the planner
 * pushes it down to the scans of the base tables; a reader who sees every account pays a null test.
 *
 * `down` recreates the views as 0004 and 0009 made them: their definitions are saved as
 * Postgres prints them (pg_get_viewdef, pg_get_indexdef) before they are dropped.
 */

/** The reporting relations of 0004, in the order they were made (each after those it reads). */
const PREVIOUS = [
  'properties',
  'rent_roll',
  'occupancy_monthly',
  'lease_activity_monthly',
  'lease_expirations',
  'ar_aging',
  'ar_aging_by_property',
  'ar_activity_monthly',
  'vendor_spend_monthly',
  'ap_open_invoices',
  'voided_payments_log',
];

/** The reporting partial indexes of 0004 on base tables, before and after account_id leads them. */
const BASE_INDEXES: [name: string, before: string, after: string][] = [
  [
    'ar_transactions_open_idx',
    'on public.ar_transactions (lease_id, due_date) include (balance_due, property_id) where deleted_at is null and balance_due <> 0 and is_temporary is not true and is_reversed is not true',
    'on public.ar_transactions (account_id, lease_id, due_date) include (balance_due, property_id) where deleted_at is null and balance_due <> 0 and is_temporary is not true and is_reversed is not true',
  ],
  [
    'invoices_open_idx',
    'on public.invoices (due_date) include (amount_due) where deleted_at is null and amount_due <> 0',
    'on public.invoices (account_id, due_date) include (amount_due) where deleted_at is null and amount_due <> 0',
  ],
  [
    'invoices_post_month_idx',
    'on public.invoices (post_month)',
    'on public.invoices (account_id, post_month)',
  ],
  [
    'voided_payments_voided_on_idx',
    'on public.voided_payments (voided_on)',
    'on public.voided_payments (account_id, voided_on)',
  ],
];

/** The policy every table with an account_id carries. */
const POLICY = 'account_readers';

/** The rows of accounts the current user may see (both init plans: evaluated once per query). */
const visible = (column: string) =>
  sql.raw(
    `((select reporting_private.visible_accounts(current_user)) is null or ${column} = any((select reporting_private.visible_accounts(current_user))::text[]))`,
  );

/** Leases the source no longer lists, and other-income leases (parking, storage), are not homes. */
const RESIDENTIAL = sql.raw(`l.deleted_at is null and l.is_other_income is not true`);
/** The open part of the ledger: what the partial index `ar_transactions_open_idx` holds. */
const OPEN_AR = sql.raw(
  `t.deleted_at is null and t.balance_due <> 0 and t.is_temporary is not true and t.is_reversed is not true`,
);
/** The account's name (as a), for the row's account (alias.account_id). */
const ACCOUNT_NAME = (alias: string) =>
  sql.raw(`left join public.accounts a on a.account_id = ${alias}.account_id`);
/** A property's name (as p), for the row's account and property. */
const PROPERTY_NAME = (alias: string, property = `${alias}.property_id`) =>
  sql.raw(
    `left join reporting_private.properties p on p.account_id = ${alias}.account_id and p.property_id = ${property}`,
  );
/**
 * An invoice's property (as ip) when all its live lines are charged to one property, with its
 * name and how many properties the lines name; looked up per invoice, as in 0004.
 */
const INVOICE_PROPERTY = sql.raw(`
  left join lateral (
    select x.property_id, x.property_count,
           (select p.property_name from reporting_private.properties p where p.account_id = i.account_id and p.property_id = x.property_id) as property_name
      from (select case when count(distinct li.property_id) = 1 then min(li.property_id) end as property_id,
                   count(distinct li.property_id)::int as property_count
              from public.invoice_line_items li
             where li.account_id = i.account_id and li.invoice_id = i.invoice_id and li.deleted_at is null) x
  ) ip on true`);
/**
 * Which of a lease's customers is the primary one: customer type Primary first, then relationship Primary,
 * then the lowest id.
 */
const PRIMARY_FIRST = sql.raw(
  `(c.customer_type = 'Primary') desc nulls last, (c.relationship_name = 'Primary') desc nulls last, c.customer_id`,
);
/** A customer's full name, from its parts when the source sends no full name. */
const CUSTOMER_NAME = sql.raw(`coalesce(c.name_full, nullif(concat_ws(' ', c.first_name, c.last_name), ''))`);
/** The lease's primary customer, looked up for one lease (as r). */
const PRIMARY_RESIDENT = sql`
  left join lateral (
    select c.customer_id, ${CUSTOMER_NAME} as name
      from public.lease_customers c
     where c.account_id = l.account_id and c.lease_id = l.lease_id and c.deleted_at is null
     order by ${PRIMARY_FIRST}
     limit 1
  ) r on true`;

/**
 * Each relation of reporting_private, in the order it is made (each after those it reads),
 * materialized or not, with its unique index (exported for the migrations that replace one).
 */
export const VIEWS: { name: string; materialized?: { key: string }; query: RawBuilder<unknown> }[] = [
  {
    // As in 0004: every view joins it.
    name: 'properties',
    materialized: { key: '(account_id, property_id)' },
    query: sql`
      select named.account_id, a.name as account_name, named.property_id, max(named.property_name) as property_name
        from (select account_id, property_id, property_name from public.leases where deleted_at is null
              union all
              select account_id, property_id, property_name from public.invoice_line_items where deleted_at is null and property_id is not null) named
        ${ACCOUNT_NAME('named')}
       group by named.account_id, a.name, named.property_id`,
  },
  {
    name: 'rent_roll',
    query: sql`
      with d as (select reporting.today() as today)
      select l.account_id,
             a.name as account_name,
             l.property_id,
             p.property_name,
             l.lease_id,
             l.unit_id,
             l.unit_number,
             l.building_name,
             l.floor_plan_name,
             spaces.unit_spaces,
             r.customer_id as primary_customer_id,
             r.name as primary_resident,
             l.lease_status,
             l.is_month_to_month,
             coalesce(l.is_other_income, false) as is_other_income,
             l.move_in_date,
             l.move_out_date,
             ci.start_date as lease_start_date,
             ci.end_date as lease_end_date,
             coalesce(charges.amount, 0)::numeric(14,2) as monthly_charges,
             coalesce(ar.open_balance, 0)::numeric(14,2) as open_balance,
             coalesce(ar.past_due_balance, 0)::numeric(14,2) as past_due_balance,
             d.today as as_of_date
        from public.leases l
       cross join d
        ${ACCOUNT_NAME('l')}
        ${PROPERTY_NAME('l')}
        left join public.lease_intervals ci on ci.account_id = l.account_id and ci.lease_interval_id = l.current_lease_interval_id and ci.deleted_at is null
        left join (
          select distinct on (c.account_id, c.lease_id) c.account_id, c.lease_id, c.customer_id, ${CUSTOMER_NAME} as name
            from public.lease_customers c
           where c.deleted_at is null
           order by c.account_id, c.lease_id, ${PRIMARY_FIRST}
        ) r on r.account_id = l.account_id and r.lease_id = l.lease_id
        left join (
          select s.account_id, s.lease_id, string_agg(s.unit_space, ', ' order by s.unit_space) as unit_spaces
            from public.lease_unit_spaces s
           where s.deleted_at is null
           group by s.account_id, s.lease_id
        ) spaces on spaces.account_id = l.account_id and spaces.lease_id = l.lease_id
        left join (
          select sc.account_id, sc.lease_id, sc.lease_interval_id, sum(sc.amount) as amount
            from public.lease_scheduled_charges sc cross join d
           where sc.deleted_at is null and sc.frequency = 'Monthly'
             and (sc.start_date is null or sc.start_date <= d.today)
             and (sc.end_date is null or sc.end_date >= d.today)
           group by sc.account_id, sc.lease_id, sc.lease_interval_id
        ) charges on charges.account_id = l.account_id and charges.lease_id = l.lease_id and charges.lease_interval_id = l.current_lease_interval_id
        left join (
          select t.account_id, t.lease_id, sum(t.balance_due) as open_balance, sum(t.balance_due) filter (where t.due_date < d.today) as past_due_balance
            from public.ar_transactions t cross join d
           where ${OPEN_AR}
           group by t.account_id, t.lease_id
        ) ar on ar.account_id = l.account_id and ar.lease_id = l.lease_id
       where l.deleted_at is null and l.lease_status_type_id in (4, 5)`,
  },
  {
    // As in 0004: counting the units occupied at every month end took seconds; the current month is counted
    // as of the refresh day.
    name: 'occupancy_monthly',
    materialized: { key: '(account_id, property_id, month)' },
    query: sql`
      with d as (select reporting.today() as today),
      residential as (
        select l.account_id, l.property_id, l.unit_id, l.lease_status_type_id, l.move_in_date, l.move_out_date
          from public.leases l
         where ${RESIDENTIAL} and l.unit_id is not null
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
        select u.account_id, u.property_id, u.units_known, m::date as month, least((m + interval '1 month - 1 day')::date, d.today) as as_of_date
          from units u
         cross join d
         cross join generate_series(date_trunc('month', least(coalesce(u.first_move_in, d.today), d.today)), date_trunc('month', d.today), interval '1 month') m
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
        ${ACCOUNT_NAME('m')}
        ${PROPERTY_NAME('m')}`,
  },
  {
    name: 'lease_activity_monthly',
    query: sql`
      with d as (select reporting.today() as today),
      events as (
        select l.account_id, l.property_id, date_trunc('month', l.move_in_date)::date as month, 'move_in' as kind
          from public.leases l cross join d
         where ${RESIDENTIAL} and l.lease_status_type_id in (4, 5, 6) and l.move_in_date <= d.today
        union all
        select l.account_id, l.property_id, date_trunc('month', l.move_out_date)::date, 'move_out'
          from public.leases l cross join d
         where ${RESIDENTIAL} and l.lease_status_type_id in (4, 5, 6) and l.move_in_date <= l.move_out_date and l.move_out_date <= d.today
        union all
        select l.account_id, l.property_id, date_trunc('month', i.start_date)::date, 'renewal'
          from public.lease_intervals i join public.leases l on l.account_id = i.account_id and l.lease_id = i.lease_id cross join d
         where ${RESIDENTIAL} and i.deleted_at is null and i.lease_interval_type_id = 3 and i.start_date <= d.today
        union all
        select l.account_id, l.property_id, date_trunc('month', l.move_in_date)::date, 'cancellation'
          from public.leases l
         where ${RESIDENTIAL} and l.lease_status_type_id = 2 and l.move_in_date is not null
      )
      select e.account_id,
             a.name as account_name,
             e.property_id,
             p.property_name,
             e.month,
             count(*) filter (where e.kind = 'move_in')::int as move_ins,
             count(*) filter (where e.kind = 'move_out')::int as move_outs,
             count(*) filter (where e.kind = 'renewal')::int as renewals,
             count(*) filter (where e.kind = 'cancellation')::int as cancellations
        from events e
        ${ACCOUNT_NAME('e')}
        ${PROPERTY_NAME('e')}
       group by e.account_id, a.name, e.property_id, p.property_name, e.month`,
  },
  {
    name: 'lease_expirations',
    query: sql`
      select l.account_id,
             a.name as account_name,
             l.property_id,
             p.property_name,
             date_trunc('month', ci.end_date)::date as month,
             count(*)::int as expiring_leases,
             count(*) filter (where ren.latest_start > ci.start_date)::int as renewed,
             count(*) filter (where l.lease_status_type_id = 5)::int as on_notice,
             count(*) filter (where l.is_month_to_month)::int as month_to_month
        from public.leases l
        join public.lease_intervals ci on ci.account_id = l.account_id and ci.lease_interval_id = l.current_lease_interval_id and ci.deleted_at is null
        ${ACCOUNT_NAME('l')}
        ${PROPERTY_NAME('l')}
        left join (
          select ri.account_id, ri.lease_id, max(ri.start_date) as latest_start
            from public.lease_intervals ri
           where ri.deleted_at is null and ri.lease_interval_type_id = 3
           group by ri.account_id, ri.lease_id
        ) ren on ren.account_id = l.account_id and ren.lease_id = l.lease_id
       where ${RESIDENTIAL} and l.lease_status_type_id in (4, 5) and ci.end_date is not null
       group by l.account_id, a.name, l.property_id, p.property_name, date_trunc('month', ci.end_date)`,
  },
  {
    name: 'ar_aging',
    query: sql`
      with d as (select reporting.today() as today),
      open as (
        select t.account_id,
               t.lease_id,
               t.property_id,
               count(*)::int as open_items,
               sum(t.balance_due) as balance,
               sum(t.balance_due) filter (where t.due_date is null or t.due_date >= d.today) as not_yet_due,
               sum(t.balance_due) filter (where d.today - t.due_date between 1 and 30) as days_1_30,
               sum(t.balance_due) filter (where d.today - t.due_date between 31 and 60) as days_31_60,
               sum(t.balance_due) filter (where d.today - t.due_date between 61 and 90) as days_61_90,
               sum(t.balance_due) filter (where d.today - t.due_date > 90) as over_90
          from public.ar_transactions t cross join d
         where ${OPEN_AR}
         group by t.account_id, t.lease_id, t.property_id
      )
      select o.account_id,
             a.name as account_name,
             o.property_id,
             p.property_name,
             o.lease_id,
             l.unit_number,
             r.name as primary_resident,
             l.lease_status,
             d.today as as_of_date,
             o.open_items,
             o.balance::numeric(14,2) as balance,
             coalesce(o.not_yet_due, 0)::numeric(14,2) as not_yet_due,
             coalesce(o.days_1_30, 0)::numeric(14,2) as days_1_30,
             coalesce(o.days_31_60, 0)::numeric(14,2) as days_31_60,
             coalesce(o.days_61_90, 0)::numeric(14,2) as days_61_90,
             coalesce(o.over_90, 0)::numeric(14,2) as over_90
        from open o
       cross join d
        join public.leases l on l.account_id = o.account_id and l.lease_id = o.lease_id and l.deleted_at is null
        ${ACCOUNT_NAME('o')}
        ${PROPERTY_NAME('o')}
        ${PRIMARY_RESIDENT}`,
  },
  {
    name: 'ar_aging_by_property',
    query: sql`
      select account_id,
             account_name,
             property_id,
             property_name,
             as_of_date,
             count(*)::int as leases,
             sum(open_items)::int as open_items,
             sum(balance)::numeric(14,2) as balance,
             sum(not_yet_due)::numeric(14,2) as not_yet_due,
             sum(days_1_30)::numeric(14,2) as days_1_30,
             sum(days_31_60)::numeric(14,2) as days_31_60,
             sum(days_61_90)::numeric(14,2) as days_61_90,
             sum(over_90)::numeric(14,2) as over_90
        from reporting_private.ar_aging
       group by account_id, account_name, property_id, property_name, as_of_date`,
  },
  {
    // As in 0004: it sums the whole AR ledger. AR codes may be missing: one row of each (nulls not distinct).
    name: 'ar_activity_monthly',
    materialized: { key: '(account_id, post_month, property_id, ar_code_id) nulls not distinct' },
    query: sql`
      select t.account_id,
             a.name as account_name,
             t.property_id,
             p.property_name,
             t.post_month,
             t.ar_code_id,
             min(t.ar_code_name) as ar_code_name,
             count(*)::int as transactions,
             coalesce(sum(t.amount) filter (where t.transaction_type_id = 1), 0)::numeric(14,2) as charges,
             coalesce(sum(t.amount) filter (where t.transaction_type_id = 4), 0)::numeric(14,2) as deposits,
             coalesce(sum(t.amount) filter (where t.transaction_type_id = 2), 0)::numeric(14,2) as payments,
             coalesce(sum(t.amount) filter (where t.transaction_type_id = 3), 0)::numeric(14,2) as concessions,
             coalesce(sum(t.amount) filter (where t.transaction_type_id = 5), 0)::numeric(14,2) as deposit_applications,
             coalesce(sum(t.amount) filter (where t.transaction_type_id = 6), 0)::numeric(14,2) as refunds,
             coalesce(sum(t.amount) filter (where t.transaction_type_id = 7), 0)::numeric(14,2) as write_offs,
             coalesce(sum(t.amount), 0)::numeric(14,2) as net_amount
        from public.ar_transactions t
        join public.leases l on l.account_id = t.account_id and l.lease_id = t.lease_id and l.deleted_at is null
        ${ACCOUNT_NAME('t')}
        ${PROPERTY_NAME('t')}
       where t.deleted_at is null and t.is_temporary is not true and t.is_reversed is not true and t.post_month is not null
       group by t.account_id, a.name, t.property_id, p.property_name, t.post_month, t.ar_code_id`,
  },
  {
    // As in 0004: it sums every invoice line. Vendors and line properties may be missing (nulls not distinct).
    name: 'vendor_spend_monthly',
    materialized: { key: '(account_id, post_month, vendor_id, property_id) nulls not distinct' },
    query: sql`
      with spend as (
        select i.account_id, i.invoice_id, i.post_month, i.vendor_id, i.vendor_name, i.invoice_type_id
          from public.invoices i
         where i.deleted_at is null and i.post_month is not null
           and i.invoice_type_id is distinct from 20
           and i.reversal_invoice_id is null
           and not exists (select 1 from public.invoices r where r.account_id = i.account_id and r.reversal_invoice_id = i.invoice_id and r.deleted_at is null)
      )
      select s.account_id,
             a.name as account_name,
             s.post_month,
             s.vendor_id,
             max(s.vendor_name) as vendor_name,
             li.property_id,
             p.property_name,
             count(distinct s.invoice_id) filter (where s.invoice_type_id is distinct from 12)::int as invoices,
             count(distinct s.invoice_id) filter (where s.invoice_type_id = 12)::int as credit_memos,
             coalesce(sum(li.amount), 0)::numeric(14,2) as amount,
             coalesce(sum(li.amount) filter (where s.invoice_type_id = 12), 0)::numeric(14,2) as credit_memo_amount
        from spend s
        join public.invoice_line_items li on li.account_id = s.account_id and li.invoice_id = s.invoice_id and li.deleted_at is null
        ${ACCOUNT_NAME('s')}
        ${PROPERTY_NAME('s', 'li.property_id')}
       group by s.account_id, a.name, s.post_month, s.vendor_id, li.property_id, p.property_name`,
  },
  {
    name: 'ap_open_invoices',
    query: sql`
      select i.account_id,
             a.name as account_name,
             i.invoice_id,
             i.invoice_number,
             i.invoice_type_id,
             i.invoice_type,
             i.vendor_id,
             i.vendor_name,
             ip.property_id,
             ip.property_name,
             ip.property_count,
             i.invoice_date,
             i.post_date,
             i.post_month,
             i.due_date,
             i.post_status,
             i.is_on_hold,
             i.amount,
             i.amount_due,
             greatest(d.today - i.due_date, 0) as days_past_due,
             d.today as as_of_date
        from public.invoices i
       cross join (select reporting.today() as today) d
        ${ACCOUNT_NAME('i')}
        ${INVOICE_PROPERTY}
       where i.deleted_at is null and i.amount_due <> 0`,
  },
  {
    name: 'voided_payments_log',
    query: sql`
      select v.account_id,
             a.name as account_name,
             v.invoice_id,
             i.invoice_number,
             i.invoice_type,
             i.vendor_id,
             i.vendor_name,
             ip.property_id,
             ip.property_name,
             v.payment_id,
             v.payment_number,
             v.amount,
             v.payment_date,
             v.voided_on,
             v.voided_by,
             v.void_reason
        from public.voided_payments v
        join public.invoices i on i.account_id = v.account_id and i.invoice_id = v.invoice_id and i.deleted_at is null
        ${ACCOUNT_NAME('v')}
        ${INVOICE_PROPERTY}
       where v.deleted_at is null`,
  },
  {
    // Accounts side by side: from the materialized views and the partial indexes of open AR and AP, so that
    // it answers at once.
    name: 'portfolio',
    query: sql`
      with d as (select reporting.today() as today),
      known as (
        select account_id from public.accounts
        union
        select account_id from reporting_private.properties
      ),
      properties as (
        select account_id, count(*)::int as properties from reporting_private.properties group by account_id
      ),
      occupancy as (
        select latest.account_id, sum(latest.units_known)::int as units_known, sum(latest.units_occupied)::int as units_occupied
          from (select distinct on (o.account_id, o.property_id) o.account_id, o.units_known, o.units_occupied
                  from reporting_private.occupancy_monthly o
                 order by o.account_id, o.property_id, o.month desc) latest
         group by latest.account_id
      ),
      leases as (
        select l.account_id, count(*)::int as current_leases
          from public.leases l
         where ${RESIDENTIAL} and l.lease_status_type_id in (4, 5)
         group by l.account_id
      ),
      ar as (
        select t.account_id, sum(t.balance_due) as balance, sum(t.balance_due) filter (where t.due_date < d.today) as past_due
          from public.ar_transactions t cross join d
         where ${OPEN_AR}
           and exists (select 1 from public.leases l where l.account_id = t.account_id and l.lease_id = t.lease_id and l.deleted_at is null)
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
             d.today as as_of_date
        from known k
       cross join d
        ${ACCOUNT_NAME('k')}
        left join properties p on p.account_id = k.account_id
        left join occupancy o on o.account_id = k.account_id
        left join leases l on l.account_id = k.account_id
        left join ar on ar.account_id = k.account_id
        left join ap on ap.account_id = k.account_id`,
  },
];

/** Roles other than the owner that may select each relation of `schema`, by relation name. */
async function selectGrants(db: Kysely<unknown>, schema: string): Promise<Map<string, string[]>> {
  const { rows } = await sql<{ name: string; grantees: string[] }>`
    select c.relname as name,
           array_agg(distinct case when acl.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(acl.grantee)) end) as grantees
      from pg_class c
     cross join lateral aclexplode(c.relacl) acl
     where c.relnamespace = ${schema}::regnamespace and c.relkind in ('v', 'm') and acl.privilege_type = 'SELECT' and acl.grantee <> c.relowner
     group by c.relname`.execute(db);
  return new Map(rows.map((row) => [row.name, row.grantees]));
}

/** Grants select on reporting.`name` to the roles that could select the relation it replaces. */
async function regrant(db: Kysely<unknown>, name: string, grantees: string[] | undefined): Promise<void> {
  if (grantees?.length)
    await sql`grant select on ${sql.id('reporting', name)} to ${sql.raw(grantees.join(', '))}`.execute(db);
}

/** Tables of public with an account_id column. */
async function accountTables(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name
      from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attname = 'account_id' and not a.attisdropped
     where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
     order by c.relname`.execute(db);
  return rows.map((row) => row.name);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create schema reporting_private`.execute(db);
  await sql`comment on schema reporting_private is ${sql.lit("The queries behind schema reporting, the materialized views and the readers' accounts; no reader may use it: readers read reporting.")}`.execute(
    db,
  );

  // The definitions of 0004 and 0009, for down, as Postgres prints them with every name qualified.
  await sql`
    create table reporting_private.previous_views (
      position integer primary key,
      name text not null,
      materialized boolean not null,
      definition text not null,
      indexes text[] not null
    )`.execute(db);
  await sql`comment on table reporting_private.previous_views is ${sql.lit('The reporting views before accounts (migrations 0004 and 0009), which migration 0011 restores when it is reverted.')}`.execute(
    db,
  );
  const { rows: paths } = await sql<{ path: string }>`select current_setting('search_path') as path`.execute(
    db,
  );
  await sql`select set_config('search_path', '', true)`.execute(db);
  await sql`
    insert into reporting_private.previous_views (position, name, materialized, definition, indexes)
    select v.position, c.relname, c.relkind = 'm', pg_catalog.pg_get_viewdef(c.oid),
           coalesce((select pg_catalog.array_agg(pg_catalog.pg_get_indexdef(x.indexrelid) order by x.indexrelid) from pg_catalog.pg_index x where x.indrelid = c.oid), '{}')
      from pg_catalog.unnest(${PREVIOUS}::text[]) with ordinality as v(name, position)
      join pg_catalog.pg_class c on c.relname = v.name and c.relnamespace = 'reporting'::regnamespace`.execute(
    db,
  );
  await sql`select pg_catalog.set_config('search_path', ${paths[0].path}, true)`.execute(db);

  const grants = await selectGrants(db, 'reporting');
  for (const name of [...PREVIOUS].reverse()) {
    const { rows } = await sql<{
      kind: string;
    }>`select relkind::text as kind from pg_class where oid = ${`reporting.${name}`}::regclass`.execute(db);
    await sql`drop ${sql.raw(rows[0].kind === 'm' ? 'materialized view' : 'view')} ${sql.id('reporting', name)}`.execute(
      db,
    );
  }

  for (const [name, , after] of BASE_INDEXES) {
    await sql`drop index ${sql.id('public', name)}`.execute(db);
    await sql`create index ${sql.id(name)} ${sql.raw(after)}`.execute(db);
  }

  // The readers' accounts: a role (and every role that uses its privileges) sees only these.
  await sql`
    create table reporting_private.reader_accounts (
      role regrole not null,
      account_id text not null check (account_id ~ '^[a-z0-9_-]{1,40}$'),
      primary key (role, account_id)
    )`.execute(db);
  await sql`comment on table reporting_private.reader_accounts is ${sql.lit('The accounts a reader role may see (propsync grant-reader ROLE --account ID); a role without rows here sees every account.')}`.execute(
    db,
  );
  await sql`
    create function reporting_private.visible_accounts(reader name) returns text[]
    language sql stable security definer parallel safe
    set search_path = pg_catalog, pg_temp
    as $$
      select case
               when r.rolsuper or r.rolbypassrls or pg_has_role(r.oid, (select n.nspowner from pg_namespace n where n.nspname = 'reporting_private'), 'USAGE') then null
               else (select array_agg(distinct m.account_id order by m.account_id)
                       from reporting_private.reader_accounts m
                      where pg_has_role(r.oid, m.role, 'USAGE'))
             end
        from pg_roles r
       where r.rolname = reader
    $$`.execute(db);
  await sql`comment on function reporting_private.visible_accounts(name) is ${sql.lit('The accounts a role may see: those of reporting_private.reader_accounts for the roles whose privileges it uses, or null (every account) when none of them has any, and for superusers, roles that bypass row-level security and the owner of the reporting layer.')}`.execute(
    db,
  );

  for (const view of VIEWS) {
    const target = sql.id('reporting_private', view.name);
    if (view.materialized) {
      await sql`create materialized view ${target} as ${view.query}`.execute(db);
      await sql`create unique index ${sql.id(`${view.name}_grain_idx`)} on ${target} ${sql.raw(view.materialized.key)}`.execute(
        db,
      );
    } else {
      await sql`create view ${target} as ${view.query}`.execute(db);
    }
    await sql`
      create view ${sql.id('reporting', view.name)} with (security_barrier) as
      select * from ${target} v where ${visible('v.account_id')}`.execute(db);
    await regrant(db, view.name, grants.get(view.name) ?? grants.get('rent_roll'));
  }

  // Readers given the base tables see the same rows there: the owner (propsync loading the data) is not
  // subject to the policy.
  for (const table of await accountTables(db)) {
    await sql`alter table ${sql.id('public', table)} enable row level security`.execute(db);
    await sql`create policy ${sql.id(POLICY)} on ${sql.id('public', table)} for all using (${visible('account_id')}) with check (${visible('account_id')})`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const { rows: policies } = await sql<{
    name: string;
  }>`select tablename as name from pg_policies where schemaname = 'public' and policyname = ${POLICY}`.execute(
    db,
  );
  for (const { name } of policies) {
    await sql`drop policy ${sql.id(POLICY)} on ${sql.id('public', name)}`.execute(db);
    await sql`alter table ${sql.id('public', name)} disable row level security`.execute(db);
  }
  const { rows: previous } = await sql<{
    name: string;
    materialized: boolean;
    definition: string;
    indexes: string[];
  }>`
    select name, materialized, definition, indexes from reporting_private.previous_views order by position`.execute(
    db,
  );
  const grants = await selectGrants(db, 'reporting');
  for (const view of [...VIEWS].reverse()) await sql`drop view ${sql.id('reporting', view.name)}`.execute(db);
  await sql`drop schema reporting_private cascade`.execute(db);
  for (const [name, before] of BASE_INDEXES) {
    await sql`drop index ${sql.id('public', name)}`.execute(db);
    await sql`create index ${sql.id(name)} ${sql.raw(before)}`.execute(db);
  }
  for (const view of previous) {
    await sql`create ${sql.raw(view.materialized ? 'materialized view' : 'view')} ${sql.id('reporting', view.name)} as ${sql.raw(view.definition.replace(/;\s*$/, ''))}`.execute(
      db,
    );
    for (const index of view.indexes) await sql.raw(index).execute(db);
    await regrant(db, view.name, grants.get(view.name));
  }
}
