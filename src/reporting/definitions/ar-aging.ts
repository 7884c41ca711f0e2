import type { ReportingView } from '../definition.js';
import {
  ACCOUNT,
  accountNameJoin,
  AS_OF,
  BUCKETS,
  bucketColumns,
  MONEY_NOTE,
  OPEN_AR,
  PRIMARY_RESIDENT,
  PROPERTY_ID,
  PROPERTY_NAME,
  propertyNameJoin,
  TODAY_NOTE,
  accountDay,
  APPLICATION_LEASE,
  APPLICATION_NOTE,
  TODAY,
} from './shared.js';

/** A charge (positive open balance) the given days past due, as SQL over the open items t. */
const pastDue = (days: string) =>
  `sum(t.balance_due) filter (where t.balance_due > 0 and ${TODAY} - t.due_date ${days})`;

/** Open AR per lease by days past due. */
export const AR_AGING: ReportingView = {
  name: 'ar_aging',
  purpose:
    'Per lease with open AR: the open balance by days past due (not yet due, 1-30, 31-60, 61-90, over 90) as of today.',
  notes:
    'Open items are AR transactions with a balance due that are not temporary, not reversed and still listed ' +
    'by the source, on leases still listed. ' +
    'An item falls in the bucket of today minus its due date; credits (negative balances) age like charges in the ' +
    'buckets, which sum to the balance. The delinquency columns at the end keep them apart: past_due and its ' +
    'buckets hold open charges only, open_credits the credits (unapplied payments and concessions, negative ' +
    'balances), so balance = charges not yet due + past_due + open_credits. ' +
    `${APPLICATION_NOTE} is_application marks their leases. ` +
    `${TODAY_NOTE} Setting reporting.now for the session only moves the buckets: the balances stay today's ` +
    '(payments since the day counted, charges posted after it included), so it is not the position at that ' +
    'day; for a month-end aging read reporting.ar_aging_as_of. ' +
    "What it cannot know: the source sends each item's balance today, not when it was paid. " +
    MONEY_NOTE,
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
    {
      name: 'is_application',
      meaning:
        "The lease is an application (status Applicant, Cancelled or Future), not a resident's: its balance is " +
        'not resident delinquency.',
    },
    {
      name: 'past_due',
      meaning: 'Open charges (positive balances) past due, credits not netted against them.',
    },
    { name: 'past_due_1_30', meaning: 'Of past_due, charges 1 to 30 days past due.' },
    { name: 'past_due_31_60', meaning: 'Of past_due, charges 31 to 60 days past due.' },
    { name: 'past_due_61_90', meaning: 'Of past_due, charges 61 to 90 days past due.' },
    { name: 'past_due_over_90', meaning: 'Of past_due, charges more than 90 days past due.' },
    {
      name: 'open_credits',
      meaning:
        'Open credits of the lease (negative balances: unapplied payments, concessions), zero or negative, ' +
        'whatever their due date.',
    },
    {
      name: 'oldest_days_past_due',
      meaning: 'Days past due of the oldest open charge past due (0 when none is past due).',
    },
    {
      name: 'last_payment_date',
      meaning: "The post date of the lease's last payment (reversed payments left out); empty when none.",
    },
    {
      name: 'last_payment_amount',
      meaning: "The amount of that payment, with the ledger's sign (negative); empty when none.",
    },
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
             sum(t.balance_due) filter (where ${TODAY} - t.due_date > 90) as over_90,
             ${pastDue('>= 1')} as past_due,
             ${pastDue('between 1 and 30')} as past_due_1_30,
             ${pastDue('between 31 and 60')} as past_due_31_60,
             ${pastDue('between 61 and 90')} as past_due_61_90,
             ${pastDue('> 90')} as past_due_over_90,
             sum(t.balance_due) filter (where t.balance_due < 0) as open_credits,
             max(${TODAY} - t.due_date) filter (where t.balance_due > 0) as oldest_days
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
           ${bucketColumns('o')},
           ${APPLICATION_LEASE} as is_application,
           coalesce(o.past_due, 0)::numeric(14,2) as past_due,
           coalesce(o.past_due_1_30, 0)::numeric(14,2) as past_due_1_30,
           coalesce(o.past_due_31_60, 0)::numeric(14,2) as past_due_31_60,
           coalesce(o.past_due_61_90, 0)::numeric(14,2) as past_due_61_90,
           coalesce(o.past_due_over_90, 0)::numeric(14,2) as past_due_over_90,
           coalesce(o.open_credits, 0)::numeric(14,2) as open_credits,
           greatest(coalesce(o.oldest_days, 0), 0) as oldest_days_past_due,
           lp.post_date as last_payment_date,
           lp.amount as last_payment_amount
      from open o
     ${accountDay('o')}
      join public.leases l on l.account_id = o.account_id and l.lease_id = o.lease_id and l.deleted_at is null
      ${accountNameJoin('o')}
      ${propertyNameJoin('o')}
      ${PRIMARY_RESIDENT}
      left join lateral (
        select pay.post_date, pay.amount
          from public.ar_transactions pay
         where pay.account_id = o.account_id and pay.lease_id = o.lease_id and pay.transaction_type_id = 2
           and pay.amount < 0 and pay.deleted_at is null and pay.is_reversed is not true
           and pay.is_temporary is not true
         order by pay.post_date desc, pay.ar_transaction_id desc
         limit 1
      ) lp on true`,
};
