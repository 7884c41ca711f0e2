import { sql, type Kysely } from 'kysely';

/**
 * The reporting layer: schema `reporting` with views a BI dashboard can use without knowing the
 * source's conventions (statuses, soft deletes, refunds, reversals, primary customers, current
 * intervals, aging). The views' meanings, columns and examples are declared in
 * src/reporting/views.ts; their descriptions (COMMENT ON) are applied from there after the
 * migrations, so that changing a description needs no migration. The SQL here is frozen: a view
 * changes by a new migration (`create or replace view`).
 *
 * "Today" is the day in the warehouse's configured time zone, stored in `reporting.settings`
 * (written from the configuration's `timeZone` at the end of each sync) and read by
 * `reporting.today()`. Property names come from one view, `reporting.properties`, so that a
 * properties table can take over by replacing that view alone. Where a plain view could not
 * answer within a second on the large data set, the view is materialized and refreshed at the
 * end of each sync (src/reporting/refresh.ts).
 */

/** Leases the source no longer lists, and other-income leases (parking, storage), are not homes. */
const RESIDENTIAL = sql.raw(`l.deleted_at is null and l.is_other_income is not true`);
/** The open part of the ledger: what the partial index `ar_transactions_open_idx` holds. */
const OPEN_AR = sql.raw(
  `t.deleted_at is null and t.balance_due <> 0 and t.is_temporary is not true and t.is_reversed is not true`,
);
/**
 * An invoice's property (as ip) when all its live lines are charged to one property, with its
 * name and how many properties the lines name. The name is looked up per invoice (by the unique
 * index of reporting.properties): a join left to the planner rebuilt a hash of all properties per invoice.
 */
const INVOICE_PROPERTY = sql.raw(`
  left join lateral (
    select x.property_id, x.property_count,
           (select p.property_name from reporting.properties p where p.property_id = x.property_id) as property_name
      from (select case when count(distinct li.property_id) = 1 then min(li.property_id) end as property_id,
                   count(distinct li.property_id)::int as property_count
              from public.invoice_line_items li
             where li.invoice_id = i.invoice_id and li.deleted_at is null) x
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
     where c.lease_id = l.lease_id and c.deleted_at is null
     order by ${PRIMARY_FIRST}
     limit 1
  ) r on true`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create schema reporting`.execute(db);

  await sql`
    create table reporting.settings (
      singleton boolean primary key default true check (singleton),
      time_zone text not null default 'America/Denver',
      source_day_offset integer not null default 0,
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`insert into reporting.settings default values`.execute(db);

  // Today: the session's reporting.now when set (a timestamptz), else the server's clock moved by
  // the source's day offset (0 unless the source's clock runs ahead, as a simulator's does), in
  // the configured time zone.
  await sql`
    create function reporting.today() returns date
    language sql stable parallel safe as $$
      select coalesce((nullif(current_setting('reporting.now', true), '')::timestamptz at time zone s.time_zone)::date,
                      (now() at time zone s.time_zone)::date + s.source_day_offset)
        from (select coalesce(max(time_zone), 'America/Denver') as time_zone, coalesce(max(source_day_offset), 0) as source_day_offset
                from reporting.settings) s
    $$`.execute(db);

  // Indexes the views answer from: open AR items by lease, open invoices, reversal links, and
  // the lease_customers / lease_unit_spaces primary keys (lease_id first) already serve lookups by lease.
  await sql`
    create index ar_transactions_open_idx on public.ar_transactions (lease_id, due_date) include (balance_due, property_id)
     where deleted_at is null and balance_due <> 0 and is_temporary is not true and is_reversed is not true`.execute(
    db,
  );
  await sql`create index invoices_open_idx on public.invoices (due_date) include (amount_due) where deleted_at is null and amount_due <> 0`.execute(
    db,
  );
  await sql`create index invoices_reversal_idx on public.invoices (reversal_invoice_id) where reversal_invoice_id is not null`.execute(
    db,
  );
  await sql`create index invoices_post_month_idx on public.invoices (post_month)`.execute(db);
  await sql`create index lease_scheduled_charges_interval_idx on public.lease_scheduled_charges (lease_interval_id)`.execute(
    db,
  );
  await sql`create index voided_payments_voided_on_idx on public.voided_payments (voided_on)`.execute(db);

  // Materialized (refreshed at the end of each sync): every view joins it, and naming 200
  // properties from every lease and invoice line took 0.3 s on the large data set.
  await sql`
    create materialized view reporting.properties as
    select property_id, max(property_name) as property_name
      from (select property_id, property_name from public.leases where deleted_at is null
            union all
            select property_id, property_name from public.invoice_line_items where deleted_at is null and property_id is not null) named
     group by property_id`.execute(db);
  await sql`create unique index properties_property_id_idx on reporting.properties (property_id)`.execute(db);

  await sql`
    create view reporting.rent_roll as
    with d as (select reporting.today() as today)
    select l.property_id,
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
      left join reporting.properties p on p.property_id = l.property_id
      left join public.lease_intervals ci on ci.lease_interval_id = l.current_lease_interval_id and ci.deleted_at is null
      left join (
        select distinct on (c.lease_id) c.lease_id, c.customer_id, ${CUSTOMER_NAME} as name
          from public.lease_customers c
         where c.deleted_at is null
         order by c.lease_id, ${PRIMARY_FIRST}
      ) r on r.lease_id = l.lease_id
      left join (
        select s.lease_id, string_agg(s.unit_space, ', ' order by s.unit_space) as unit_spaces
          from public.lease_unit_spaces s
         where s.deleted_at is null
         group by s.lease_id
      ) spaces on spaces.lease_id = l.lease_id
      left join (
        select sc.lease_id, sc.lease_interval_id, sum(sc.amount) as amount
          from public.lease_scheduled_charges sc cross join d
         where sc.deleted_at is null and sc.frequency = 'Monthly'
           and (sc.start_date is null or sc.start_date <= d.today)
           and (sc.end_date is null or sc.end_date >= d.today)
         group by sc.lease_id, sc.lease_interval_id
      ) charges on charges.lease_id = l.lease_id and charges.lease_interval_id = l.current_lease_interval_id
      left join (
        select t.lease_id, sum(t.balance_due) as open_balance, sum(t.balance_due) filter (where t.due_date < d.today) as past_due_balance
          from public.ar_transactions t cross join d
         where ${OPEN_AR}
         group by t.lease_id
      ) ar on ar.lease_id = l.lease_id
     where l.deleted_at is null and l.lease_status_type_id in (4, 5)`.execute(db);

  // Materialized: counting the units occupied at every month end of every property took
  // seconds on the large data set. Its current month is counted as of the refresh day.
  await sql`
    create materialized view reporting.occupancy_monthly as
    with d as (select reporting.today() as today),
    residential as (
      select l.property_id, l.unit_id, l.lease_status_type_id, l.move_in_date, l.move_out_date
        from public.leases l
       where ${RESIDENTIAL} and l.unit_id is not null
    ),
    units as (
      select property_id,
             count(distinct unit_id)::int as units_known,
             min(move_in_date) filter (where lease_status_type_id in (4, 5, 6)) as first_move_in
        from residential
       group by property_id
    ),
    months as (
      select u.property_id, u.units_known, m::date as month, least((m + interval '1 month - 1 day')::date, d.today) as as_of_date
        from units u
       cross join d
       cross join generate_series(date_trunc('month', least(coalesce(u.first_move_in, d.today), d.today)), date_trunc('month', d.today), interval '1 month') m
    ),
    occupied as (
      select m.property_id, m.month, count(distinct r.unit_id)::int as units_occupied
        from months m
        join residential r on r.property_id = m.property_id
       where r.lease_status_type_id in (4, 5, 6)
         and r.move_in_date <= m.as_of_date
         and (r.move_out_date > m.as_of_date or (r.move_out_date is null and r.lease_status_type_id in (4, 5)))
       group by m.property_id, m.month
    )
    select m.property_id,
           p.property_name,
           m.month,
           (m.month + interval '1 month - 1 day')::date as month_end,
           m.as_of_date,
           m.units_known,
           coalesce(o.units_occupied, 0) as units_occupied,
           round(100.0 * coalesce(o.units_occupied, 0) / nullif(m.units_known, 0), 1) as occupancy_percent
      from months m
      left join occupied o on o.property_id = m.property_id and o.month = m.month
      left join reporting.properties p on p.property_id = m.property_id`.execute(db);
  await sql`create unique index occupancy_monthly_property_month_idx on reporting.occupancy_monthly (property_id, month)`.execute(
    db,
  );

  await sql`
    create view reporting.lease_activity_monthly as
    with d as (select reporting.today() as today),
    events as (
      select l.property_id, date_trunc('month', l.move_in_date)::date as month, 'move_in' as kind
        from public.leases l cross join d
       where ${RESIDENTIAL} and l.lease_status_type_id in (4, 5, 6) and l.move_in_date <= d.today
      union all
      select l.property_id, date_trunc('month', l.move_out_date)::date, 'move_out'
        from public.leases l cross join d
       where ${RESIDENTIAL} and l.lease_status_type_id in (4, 5, 6) and l.move_in_date <= l.move_out_date and l.move_out_date <= d.today
      union all
      select l.property_id, date_trunc('month', i.start_date)::date, 'renewal'
        from public.lease_intervals i join public.leases l on l.lease_id = i.lease_id cross join d
       where ${RESIDENTIAL} and i.deleted_at is null and i.lease_interval_type_id = 3 and i.start_date <= d.today
      union all
      select l.property_id, date_trunc('month', l.move_in_date)::date, 'cancellation'
        from public.leases l
       where ${RESIDENTIAL} and l.lease_status_type_id = 2 and l.move_in_date is not null
    )
    select e.property_id,
           p.property_name,
           e.month,
           count(*) filter (where e.kind = 'move_in')::int as move_ins,
           count(*) filter (where e.kind = 'move_out')::int as move_outs,
           count(*) filter (where e.kind = 'renewal')::int as renewals,
           count(*) filter (where e.kind = 'cancellation')::int as cancellations
      from events e
      left join reporting.properties p on p.property_id = e.property_id
     group by e.property_id, p.property_name, e.month`.execute(db);

  await sql`
    create view reporting.lease_expirations as
    select l.property_id,
           p.property_name,
           date_trunc('month', ci.end_date)::date as month,
           count(*)::int as expiring_leases,
           count(*) filter (where ren.latest_start > ci.start_date)::int as renewed,
           count(*) filter (where l.lease_status_type_id = 5)::int as on_notice,
           count(*) filter (where l.is_month_to_month)::int as month_to_month
      from public.leases l
      join public.lease_intervals ci on ci.lease_interval_id = l.current_lease_interval_id and ci.deleted_at is null
      left join reporting.properties p on p.property_id = l.property_id
      left join (
        select ri.lease_id, max(ri.start_date) as latest_start
          from public.lease_intervals ri
         where ri.deleted_at is null and ri.lease_interval_type_id = 3
         group by ri.lease_id
      ) ren on ren.lease_id = l.lease_id
     where ${RESIDENTIAL} and l.lease_status_type_id in (4, 5) and ci.end_date is not null
     group by l.property_id, p.property_name, date_trunc('month', ci.end_date)`.execute(db);

  await sql`
    create view reporting.ar_aging as
    with d as (select reporting.today() as today),
    open as (
      select t.lease_id,
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
       group by t.lease_id, t.property_id
    )
    select o.property_id,
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
      join public.leases l on l.lease_id = o.lease_id and l.deleted_at is null
      left join reporting.properties p on p.property_id = o.property_id
      ${PRIMARY_RESIDENT}`.execute(db);

  await sql`
    create view reporting.ar_aging_by_property as
    select property_id,
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
      from reporting.ar_aging
     group by property_id, property_name, as_of_date`.execute(db);

  // Materialized: it sums the whole AR ledger (seconds on the large data set).
  await sql`
    create materialized view reporting.ar_activity_monthly as
    select t.property_id,
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
      join public.leases l on l.lease_id = t.lease_id and l.deleted_at is null
      left join reporting.properties p on p.property_id = t.property_id
     where t.deleted_at is null and t.is_temporary is not true and t.is_reversed is not true and t.post_month is not null
     group by t.property_id, p.property_name, t.post_month, t.ar_code_id`.execute(db);
  await sql`create index ar_activity_monthly_month_idx on reporting.ar_activity_monthly (post_month, property_id)`.execute(
    db,
  );

  // Materialized: it sums every invoice line (seconds on the large data set).
  await sql`
    create materialized view reporting.vendor_spend_monthly as
    with spend as (
      select i.invoice_id, i.post_month, i.vendor_id, i.vendor_name, i.invoice_type_id
        from public.invoices i
       where i.deleted_at is null and i.post_month is not null
         and i.invoice_type_id is distinct from 20
         and i.reversal_invoice_id is null
         and not exists (select 1 from public.invoices r where r.reversal_invoice_id = i.invoice_id and r.deleted_at is null)
    )
    select s.post_month,
           s.vendor_id,
           max(s.vendor_name) as vendor_name,
           li.property_id,
           p.property_name,
           count(distinct s.invoice_id) filter (where s.invoice_type_id is distinct from 12)::int as invoices,
           count(distinct s.invoice_id) filter (where s.invoice_type_id = 12)::int as credit_memos,
           coalesce(sum(li.amount), 0)::numeric(14,2) as amount,
           coalesce(sum(li.amount) filter (where s.invoice_type_id = 12), 0)::numeric(14,2) as credit_memo_amount
      from spend s
      join public.invoice_line_items li on li.invoice_id = s.invoice_id and li.deleted_at is null
      left join reporting.properties p on p.property_id = li.property_id
     group by s.post_month, s.vendor_id, li.property_id, p.property_name`.execute(db);
  await sql`create index vendor_spend_monthly_month_idx on reporting.vendor_spend_monthly (post_month, vendor_id)`.execute(
    db,
  );

  await sql`
    create view reporting.ap_open_invoices as
    select i.invoice_id,
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
      ${INVOICE_PROPERTY}
     where i.deleted_at is null and i.amount_due <> 0`.execute(db);

  await sql`
    create view reporting.voided_payments_log as
    select v.invoice_id,
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
      join public.invoices i on i.invoice_id = v.invoice_id and i.deleted_at is null
      ${INVOICE_PROPERTY}
     where v.deleted_at is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop schema if exists reporting cascade`.execute(db);
  for (const index of [
    'ar_transactions_open_idx',
    'invoices_open_idx',
    'invoices_reversal_idx',
    'invoices_post_month_idx',
    'lease_scheduled_charges_interval_idx',
    'voided_payments_voided_on_idx',
  ]) {
    await sql`drop index if exists ${sql.id('public', index)}`.execute(db);
  }
}
