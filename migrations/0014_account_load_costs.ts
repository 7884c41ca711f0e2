import { sql, type Kysely } from 'kysely';
import { replaceMaterializedView } from './support/replace-reporting-query.js';
import { VIEWS } from './0011_reporting_accounts.js';

/**
 * What accounts (0010, 0011) cost every full load, taken back (issue 22: full-load throughput
 * within 5% of before):
 *
 * - The check of the account id's form (`account_id ~ '^[a-z0-9_-]{1,40}$'`) ran a regular
 *   expression for every row written to the source tables and the seen keys: 10% of a COPY of
 *   them. The form is checked where an id enters the warehouse (the accounts table, whose row
 *   every run writes, and the runs, units and cursors, one row each per unit), so the tables of
 *   many rows per unit keep only `not null`.
 * - The monthly aggregates named every row's account and property before grouping, through a
 *   join per ledger row and a sort on the names: twice the refresh of before. They now group
 *   first, on the account last (its text compares slower than the numbers before it, and
 *   decides only between equal ones), and name the groups. Same columns, same rows. The SQL
 *   here is frozen.
 */
const MANY_ROWS = [
  'leases',
  'lease_intervals',
  'lease_activities',
  'lease_customers',
  'lease_unit_spaces',
  'lease_scheduled_charges',
  'ar_transactions',
  'invoices',
  'invoice_line_items',
  'invoice_payments',
  'voided_payments',
  'sync_work_unit_seen',
];

const MONEY = (type: number) =>
  sql.raw(`coalesce(sum(t.amount) filter (where t.transaction_type_id = ${type}), 0)::numeric(14,2)`);

const AR_ACTIVITY_MONTHLY = sql`
  select g.account_id, a.name as account_name, g.property_id, p.property_name, g.post_month, g.ar_code_id, g.ar_code_name, g.transactions,
         g.charges, g.deposits, g.payments, g.concessions, g.deposit_applications, g.refunds, g.write_offs, g.net_amount
    from (select t.account_id,
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
           group by t.property_id, t.post_month, t.ar_code_id, t.account_id) g
    left join public.accounts a on a.account_id = g.account_id
    left join reporting_private.properties p on p.account_id = g.account_id and p.property_id = g.property_id`;

const VENDOR_SPEND_MONTHLY = sql`
  with spend as (
    select i.account_id, i.invoice_id, i.post_month, i.vendor_id, i.vendor_name, i.invoice_type_id
      from public.invoices i
     where i.deleted_at is null and i.post_month is not null
       and i.invoice_type_id is distinct from 20
       and i.reversal_invoice_id is null
       and not exists (select 1 from public.invoices r where r.account_id = i.account_id and r.reversal_invoice_id = i.invoice_id and r.deleted_at is null)
  ),
  totals as (
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
     group by s.post_month, s.vendor_id, li.property_id, s.account_id
  )
  select g.account_id, a.name as account_name, g.post_month, g.vendor_id, g.vendor_name, g.property_id, p.property_name,
         g.invoices, g.credit_memos, g.amount, g.credit_memo_amount
    from totals g
    left join public.accounts a on a.account_id = g.account_id
    left join reporting_private.properties p on p.account_id = g.account_id and p.property_id = g.property_id`;

/** 0011's query of a view. */
function previous(name: string) {
  const view = VIEWS.find((candidate) => candidate.name === name);
  if (!view) throw new Error(`migration 0011 has no view ${name}`);
  return view.query;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of MANY_ROWS)
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(`${table}_account_id_check`)}`.execute(
      db,
    );
  await replaceMaterializedView(db, 'ar_activity_monthly', AR_ACTIVITY_MONTHLY);
  await replaceMaterializedView(db, 'vendor_spend_monthly', VENDOR_SPEND_MONTHLY);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await replaceMaterializedView(db, 'vendor_spend_monthly', previous('vendor_spend_monthly'));
  await replaceMaterializedView(db, 'ar_activity_monthly', previous('ar_activity_monthly'));
  for (const table of MANY_ROWS) {
    await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_account_id_check`)} check (account_id ~ '^[a-z0-9_-]{1,40}$')`.execute(
      db,
    );
  }
}
