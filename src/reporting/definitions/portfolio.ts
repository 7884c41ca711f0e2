import type { ReportingView } from '../definition.js';
import { ACCOUNT, accountNameJoin, AS_OF, MONEY_NOTE, OPEN_AR, RESIDENTIAL, TODAY_NOTE } from './shared.js';

/** The accounts side by side. */
export const PORTFOLIO: ReportingView = {
  name: 'portfolio',
  purpose:
    'One row per account: its properties, units and occupancy, current leases, open AR and open AP, side by side.',
  notes:
    'Accounts are those the configuration has run (with their names) ' +
    'and any account the warehouse holds properties of. ' +
    'Properties, units and occupancy sum reporting.properties and the latest month of reporting.occupancy_monthly ' +
    '(as of the last sync). ' +
    'Current leases are Current and Notice leases of homes (other-income leases left out). ' +
    'Open AR is what reporting.ar_aging sums, past due AR its part due before today; ' +
    'open AP is what reporting.ap_open_invoices lists. ' +
    `${TODAY_NOTE} ${MONEY_NOTE}`,
  columns: [
    ...ACCOUNT,
    {
      name: 'properties',
      meaning:
        'Properties of the account: those the source lists, and any its leases and invoice lines name besides ' +
        '(see reporting.properties).',
    },
    {
      name: 'units_known',
      meaning: 'Units any lease of the account has named (summed over its properties).',
    },
    {
      name: 'units_occupied',
      meaning: 'Of those, units with a resident in the latest month of reporting.occupancy_monthly.',
    },
    { name: 'occupancy_percent', meaning: 'units_occupied / units_known in percent, one decimal.' },
    { name: 'current_leases', meaning: 'Current and Notice leases of homes (parking and storage left out).' },
    {
      name: 'open_ar_balance',
      meaning: "Open AR balance of the account's leases (positive: residents owe).",
    },
    { name: 'past_due_ar_balance', meaning: 'Part of the open AR balance whose due date is before today.' },
    { name: 'open_ap_invoices', meaning: 'Invoices with an amount still due.' },
    { name: 'open_ap_amount', meaning: 'What those invoices still have due.' },
    AS_OF,
  ],
  example: `select account_name, properties, occupancy_percent, current_leases, open_ar_balance, past_due_ar_balance,
       open_ap_amount
  from reporting.portfolio
 order by account_id;`,
  // From the materialized views and the partial indexes of open AR and AP, so that it answers at once.
  query: `
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
       where ${RESIDENTIAL} and l.lease_status_type_id in (4, 5)
       group by l.account_id
    ),
    ar as (
      select t.account_id, sum(t.balance_due) as balance,
             sum(t.balance_due) filter (where t.due_date < d.today) as past_due
        from public.ar_transactions t cross join d
       where ${OPEN_AR}
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
           d.today as as_of_date
      from known k
     cross join d
      ${accountNameJoin('k')}
      left join properties p on p.account_id = k.account_id
      left join occupancy o on o.account_id = k.account_id
      left join leases l on l.account_id = k.account_id
      left join ar on ar.account_id = k.account_id
      left join ap on ap.account_id = k.account_id`,
};
