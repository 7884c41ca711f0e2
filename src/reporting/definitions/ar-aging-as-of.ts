import type { ReportingView } from '../definition.js';
import {
  ACCOUNT,
  accountNameJoin,
  APPLICATION_LEASE,
  APPLICATION_NOTE,
  BUCKETS,
  bucketColumns,
  MONEY_NOTE,
  PROPERTY_ID,
  PROPERTY_NAME,
  propertyNameJoin,
  accountDay,
  TODAY,
} from './shared.js';

/** A sum of the items' open amounts (o) where the condition holds, over the day o.day. */
const open = (where: string) => `sum(o.open_amount) filter (where ${where})`;

/**
 * The day each reversed transaction was reversed: when the other of its pair (same payment,
 * opposite amount) was posted, over the reversed transactions alone. Looked up per row instead,
 * the planner costed the view high enough to compile it (JIT) for seconds; joined to itself, it
 * took the pairs for one row and looped over them.
 */
const REVERSED_ON = `
    reversed as (
      select account_id, ar_transaction_id,
             case when amount > 0 then min(post_date) filter (where amount < 0) over pair
                  else min(post_date) filter (where amount > 0) over pair end as reversed_on
        from public.ar_transactions
       where is_reversed and deleted_at is null and ar_payment_id is not null
      window pair as (partition by account_id, lease_id, ar_payment_id, abs(amount))
    ),`;

/**
 * A reversed transaction (t) counts on the day when the transaction that reverses it was posted
 * after it (rv, from REVERSED_ON); a pair both posted by then cancels.
 */
const LIVE_ON_DAY = `(t.is_reversed is not true or rv.reversed_on > ${TODAY})`;

/** Open AR per lease as it stood at the end of a day: month-end aging. */
export const AR_AGING_AS_OF: ReportingView = {
  name: 'ar_aging_as_of',
  purpose:
    "Per lease: the open AR as it stood at the end of a day (today, or the day of the session's reporting.now: " +
    'a month end), by days past due on that day.',
  notes:
    'Set the day for the session, at noon of it in the time zone of the account, then read the view: ' +
    "set reporting.now = '2025-10-31 12:00-06'. Unlike reporting.ar_aging, whose balances are today's whatever " +
    'reporting.now says, this is the position on the day: every AR transaction posted on or before it counts, ' +
    'those posted after it do not, and a charge paid after it is still open. A payment reversed after the day ' +
    'still counts; a reversed pair both posted by then cancels. Temporary transactions are left out. ' +
    "What it cannot know: the source sends today's balances only, never which credit paid which charge nor " +
    'when, so the open items on the day are replayed: credits (payments, concessions, deposits applied) pay ' +
    "the oldest charges first, in order of post date then id, as the source allocates them. Each lease's " +
    'balance on the day is exact whatever the allocation; its split into items and buckets assumes that order ' +
    '(a payment the property applied to a chosen charge would age otherwise). Lease status and is_application ' +
    "are today's, not the day's; transactions the source no longer lists (deleted_at set) and leases it no " +
    'longer lists are left out, though they may have been open on the day. ' +
    `${APPLICATION_NOTE} ${MONEY_NOTE} ` +
    'It reads every transaction of the account up to the day, so it is slower than ar_aging.',
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    PROPERTY_NAME,
    { name: 'lease_id', meaning: 'The lease.' },
    { name: 'unit_number', meaning: "The lease's unit number." },
    { name: 'lease_status', meaning: "The lease's status today (not on as_of_date)." },
    {
      name: 'as_of_date',
      meaning: "The day of the position: the account's today, or the day of the session's reporting.now.",
    },
    { name: 'open_items', meaning: 'AR transactions of the lease open at the end of the day.' },
    { name: 'balance', meaning: 'The open balance at the end of the day (the sum of the buckets).' },
    ...BUCKETS.map((bucket) => ({ ...bucket, meaning: `${bucket.meaning.replace(/\.$/, '')}, on the day.` })),
    {
      name: 'is_application',
      meaning: 'The lease is an application today (status Applicant, Cancelled or Future).',
    },
    {
      name: 'past_due',
      meaning: 'Open charges (positive balances) past due on the day, credits not netted.',
    },
    { name: 'open_credits', meaning: 'Open credits (negative balances) on the day, zero or negative.' },
  ],
  example: `set reporting.now = '2025-10-31 12:00-06';  -- noon of the month end, Mountain Time
select property_name, sum(balance) as balance, sum(days_1_30) as days_1_30, sum(days_31_60) as days_31_60,
       sum(days_61_90) as days_61_90, sum(over_90) as over_90
  from reporting.ar_aging_as_of
 where not is_application
 group by property_name
 order by property_name;
reset reporting.now;`,
  query: `
    with ${REVERSED_ON}
    items as (
      select t.account_id, t.lease_id, t.property_id, t.ar_transaction_id, t.post_date, t.due_date, t.amount,
             ${TODAY} as day
        from public.ar_transactions t${accountDay('t')}
        left join reversed rv on rv.account_id = t.account_id and rv.ar_transaction_id = t.ar_transaction_id
       where t.deleted_at is null and t.is_temporary is not true and t.amount <> 0
         and t.post_date <= ${TODAY} and ${LIVE_ON_DAY}
    ),
    running as (
      select i.*,
             coalesce(sum(i.amount) filter (where i.amount > 0) over upto, 0) as charged_through,
             coalesce(sum(-i.amount) filter (where i.amount < 0) over upto, 0) as credited_through,
             coalesce(sum(i.amount) filter (where i.amount > 0) over ledger, 0) as charged,
             coalesce(sum(-i.amount) filter (where i.amount < 0) over ledger, 0) as credited
        from items i
      window ledger as (partition by i.account_id, i.lease_id),
             upto as (ledger order by i.post_date, i.ar_transaction_id rows unbounded preceding)
    ),
    opened as (
      select r.account_id, r.lease_id, r.property_id, r.due_date, r.day, r.amount,
             case when r.amount > 0 then least(r.amount, greatest(r.charged_through - r.credited, 0))
                  else -least(-r.amount, greatest(r.credited_through - r.charged, 0)) end as open_amount
        from running r
    ),
    per_lease as (
      select o.account_id, o.lease_id, o.property_id, o.day,
             count(*)::int as open_items,
             sum(o.open_amount) as balance,
             ${open('o.due_date is null or o.due_date >= o.day')} as not_yet_due,
             ${open('o.day - o.due_date between 1 and 30')} as days_1_30,
             ${open('o.day - o.due_date between 31 and 60')} as days_31_60,
             ${open('o.day - o.due_date between 61 and 90')} as days_61_90,
             ${open('o.day - o.due_date > 90')} as over_90,
             ${open('o.open_amount > 0 and o.day - o.due_date >= 1')} as past_due,
             ${open('o.open_amount < 0')} as open_credits
        from opened o
       where o.open_amount <> 0
       group by o.account_id, o.lease_id, o.property_id, o.day
    )
    select o.account_id,
           a.name as account_name,
           o.property_id,
           p.property_name,
           o.lease_id,
           l.unit_number,
           l.lease_status,
           o.day as as_of_date,
           o.open_items,
           o.balance::numeric(14,2) as balance,
           ${bucketColumns('o')},
           ${APPLICATION_LEASE} as is_application,
           coalesce(o.past_due, 0)::numeric(14,2) as past_due,
           coalesce(o.open_credits, 0)::numeric(14,2) as open_credits
      from per_lease o
      join public.leases l on l.account_id = o.account_id and l.lease_id = o.lease_id and l.deleted_at is null
      ${accountNameJoin('o')}
      ${propertyNameJoin('o')}`,
};
