import type { ReportingView } from '../definition.js';
import {
  ACCOUNT,
  accountNameJoin,
  AS_OF,
  BUCKETS,
  MONEY_NOTE,
  OPEN_AR,
  PRIMARY_RESIDENT,
  PROPERTY_ID,
  PROPERTY_NAME,
  propertyNameJoin,
  TODAY_NOTE,
  accountDay,
  TODAY,
} from './shared.js';

/** Open AR per lease by days past due. */
export const AR_AGING: ReportingView = {
  name: 'ar_aging',
  purpose:
    'Per lease with open AR: the open balance by days past due (not yet due, 1-30, 31-60, 61-90, over 90) as of today.',
  notes:
    'Open items are AR transactions with a balance due that are not temporary, not reversed and still listed ' +
    'by the source, on leases still listed. ' +
    'An item falls in the bucket of today minus its due date; credits (negative balances) age like charges. ' +
    `${TODAY_NOTE} To see the buckets at another moment, set reporting.now for the session ` +
    `(set reporting.now = '2024-07-01 05:30+00'). ${MONEY_NOTE}`,
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    PROPERTY_NAME,
    { name: 'lease_id', meaning: 'The lease.' },
    { name: 'unit_number', meaning: "The lease's unit number." },
    {
      name: 'primary_resident',
      meaning: "The primary resident's full name.",
      from: 'lease_customers.name_full',
    },
    { name: 'lease_status', meaning: "The lease's status (Current, Notice, Past ...)." },
    AS_OF,
    { name: 'open_items', meaning: 'Open AR transactions of the lease.' },
    { name: 'balance', meaning: 'Total open balance (the sum of the buckets).' },
    ...BUCKETS,
  ],
  example: `select property_name, unit_number, primary_resident, balance, over_90
  from reporting.ar_aging
 where over_90 > 0
 order by over_90 desc
 limit 20;`,
  query: `
    with open as (
      select t.account_id,
             t.lease_id,
             t.property_id,
             count(*)::int as open_items,
             sum(t.balance_due) as balance,
             sum(t.balance_due) filter (where t.due_date is null or t.due_date >= ${TODAY}) as not_yet_due,
             sum(t.balance_due) filter (where ${TODAY} - t.due_date between 1 and 30) as days_1_30,
             sum(t.balance_due) filter (where ${TODAY} - t.due_date between 31 and 60) as days_31_60,
             sum(t.balance_due) filter (where ${TODAY} - t.due_date between 61 and 90) as days_61_90,
             sum(t.balance_due) filter (where ${TODAY} - t.due_date > 90) as over_90
        from public.ar_transactions t${accountDay('t')}
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
           ${TODAY} as as_of_date,
           o.open_items,
           o.balance::numeric(14,2) as balance,
           coalesce(o.not_yet_due, 0)::numeric(14,2) as not_yet_due,
           coalesce(o.days_1_30, 0)::numeric(14,2) as days_1_30,
           coalesce(o.days_31_60, 0)::numeric(14,2) as days_31_60,
           coalesce(o.days_61_90, 0)::numeric(14,2) as days_61_90,
           coalesce(o.over_90, 0)::numeric(14,2) as over_90
      from open o
     ${accountDay('o')}
      join public.leases l on l.account_id = o.account_id and l.lease_id = o.lease_id and l.deleted_at is null
      ${accountNameJoin('o')}
      ${propertyNameJoin('o')}
      ${PRIMARY_RESIDENT}`,
};
