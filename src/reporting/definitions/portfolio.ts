import type { ReportingView } from '../definition.js';
import {
  ACCOUNT,
  accountNameJoin,
  AS_OF,
  MONEY_NOTE,
  OPEN_AR,
  RESIDENTIAL,
  TODAY_NOTE,
  accountDay,
  APPLICATION_LEASE,
  APPLICATION_NOTE,
  TODAY,
} from './shared.js';

/** The accounts side by side. */
export const PORTFOLIO: ReportingView = {
  name: 'portfolio',
  purpose:
    'One row per account: its properties, units and occupancy, current leases, open AR and open AP, side by side.',
  notes:
    'Accounts are those the configuration has run (with their names) ' +
    'and any account the warehouse holds properties of. ' +
    'Properties, units and occupancy sum reporting.properties and the latest month of reporting.occupancy_monthly ' +
    '(as of the last sync), whose units come from the unit inventory where it covers the month (units_source). ' +
    "Vacant, on notice, pre-leased and leased % sum reporting.box_score (the unit inventory's homes, as of the " +
    "source's today of the last sync that read it). " +
    'Current leases are Current and Notice leases of homes (other-income leases left out). ' +
    'Open AR is what reporting.ar_aging sums, past due AR its part due before today (credits netted); ' +
    "residents' past due AR, AR credits and applications' AR are reporting.ar_aging_by_property's resident_ " +
    `and application_ columns summed. ${APPLICATION_NOTE} ` +
    'open AP is what reporting.ap_open_invoices lists. ' +
    'What it cannot know: what the views it sums cannot (see each), and accounts whose runs have not yet ' +
    'written a row. ' +
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
      meaning:
        "Units of homes of the account, summed over its properties' latest month of reporting.occupancy_monthly " +
        '(the unit inventory where it covers the month, else the units leases have named).',
    },
    {
      name: 'units_occupied',
      meaning: 'Of those, units with a resident in the latest month of reporting.occupancy_monthly.',
    },
    {
      name: 'units_source',
      meaning:
        "Where units_known comes from: inventory (every property's from the unit inventory), " +
        "leases (none's), or mixed.",
    },
    { name: 'occupancy_percent', meaning: 'units_occupied / units_known in percent, one decimal.' },
    {
      name: 'units_vacant',
      meaning: "Vacant homes' unit spaces of the unit inventory (reporting.box_score).",
    },
    {
      name: 'units_on_notice',
      meaning: "Homes' unit spaces whose resident is on notice (reporting.box_score).",
    },
    { name: 'units_preleased', meaning: "Vacant or on-notice homes' unit spaces a future lease holds." },
    {
      name: 'leased_percent',
      meaning:
        "Leased homes' unit spaces / all of them in percent, one decimal (reporting.box_score), " +
        'empty without an inventory.',
    },
    { name: 'current_leases', meaning: 'Current and Notice leases of homes (parking and storage left out).' },
    {
      name: 'open_ar_balance',
      meaning: "Open AR balance of the account's leases (positive: residents owe).",
    },
    { name: 'past_due_ar_balance', meaning: 'Part of the open AR balance whose due date is before today.' },
    { name: 'open_ap_invoices', meaning: 'Invoices with an amount still due.' },
    { name: 'open_ap_amount', meaning: 'What those invoices still have due.' },
    AS_OF,
    {
      name: 'resident_past_due_ar',
      meaning: "Residents' open AR charges past due: applications and credits left out.",
    },
    {
      name: 'resident_ar_credits',
      meaning:
        "Residents' open AR credits (negative balances), zero or negative, apart from what is past due.",
    },
    {
      name: 'application_ar_balance',
      meaning: 'Open AR balance of applications (Applicant, Cancelled or Future leases).',
    },
  ],
  example: `select account_name, properties, occupancy_percent, current_leases, open_ar_balance, past_due_ar_balance,
       open_ap_amount
  from reporting.portfolio
 order by account_id;`,
  // From the materialized views and the partial indexes of open AR and AP, so that it answers at once.
  query: `
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
             sum(latest.units_occupied)::int as units_occupied,
             case when bool_and(latest.units_source = 'inventory') then 'inventory'
                  when bool_and(latest.units_source = 'leases') then 'leases' else 'mixed' end as units_source
        from (select distinct on (o.account_id, o.property_id) o.account_id, o.units_known, o.units_occupied,
                     o.units_source
                from reporting_private.occupancy_monthly o
               order by o.account_id, o.property_id, o.month desc) latest
       group by latest.account_id
    ),
    box as (
      select b.account_id, sum(b.total_units)::int as total_units, sum(b.vacant)::int as vacant,
             sum(b.on_notice)::int as on_notice, sum(b.preleased)::int as preleased,
             sum(b.occupied_no_notice + b.preleased)::int as leased
        from reporting_private.box_score b
       group by b.account_id
    ),
    leases as (
      select l.account_id, count(*)::int as current_leases
        from public.leases l
       where ${RESIDENTIAL} and l.lease_status_type_id in (4, 5)
       group by l.account_id
    ),
    ar as (
      select t.account_id, sum(t.balance_due) as balance,
             sum(t.balance_due) filter (where t.due_date < ${TODAY}) as past_due,
             sum(t.balance_due) filter (where not ${APPLICATION_LEASE} and t.balance_due > 0
                                          and t.due_date < ${TODAY}) as resident_past_due,
             sum(t.balance_due) filter (where not ${APPLICATION_LEASE} and t.balance_due < 0) as resident_credits,
             sum(t.balance_due) filter (where ${APPLICATION_LEASE}) as application_balance
        from public.ar_transactions t${accountDay('t')}
        join public.leases l on l.account_id = t.account_id and l.lease_id = t.lease_id and l.deleted_at is null
       where ${OPEN_AR}
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
           coalesce(o.units_source, 'leases') as units_source,
           round(100.0 * coalesce(o.units_occupied, 0) / nullif(o.units_known, 0), 1) as occupancy_percent,
           coalesce(bx.vacant, 0) as units_vacant,
           coalesce(bx.on_notice, 0) as units_on_notice,
           coalesce(bx.preleased, 0) as units_preleased,
           round(100.0 * bx.leased / nullif(bx.total_units, 0), 1) as leased_percent,
           coalesce(l.current_leases, 0) as current_leases,
           coalesce(ar.balance, 0)::numeric(14,2) as open_ar_balance,
           coalesce(ar.past_due, 0)::numeric(14,2) as past_due_ar_balance,
           coalesce(ap.invoices, 0) as open_ap_invoices,
           coalesce(ap.amount_due, 0)::numeric(14,2) as open_ap_amount,
           ${TODAY} as as_of_date,
           coalesce(ar.resident_past_due, 0)::numeric(14,2) as resident_past_due_ar,
           coalesce(ar.resident_credits, 0)::numeric(14,2) as resident_ar_credits,
           coalesce(ar.application_balance, 0)::numeric(14,2) as application_ar_balance
      from known k
     ${accountDay('k')}
      ${accountNameJoin('k')}
      left join properties p on p.account_id = k.account_id
      left join occupancy o on o.account_id = k.account_id
      left join box bx on bx.account_id = k.account_id
      left join leases l on l.account_id = k.account_id
      left join ar on ar.account_id = k.account_id
      left join ap on ap.account_id = k.account_id`,
};
