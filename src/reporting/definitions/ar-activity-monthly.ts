import type { ReportingView } from '../definition.js';
import { ACCOUNT, MONEY_NOTE, PROPERTY_ID, PROPERTY_NAME } from './shared.js';

/** The sum of one transaction type's amounts. */
const money = (type: number) =>
  `coalesce(sum(t.amount) filter (where t.transaction_type_id = ${type}), 0)::numeric(14,2)`;

/**
 * The sums behind the view, kept group by group in reporting_private.ar_activity_groups (one row
 * per account, property, post month and AR code), whose (account, property, post month) groups
 * the triggers on the ledger and the leases (migrations/0015_ar_activity_groups.ts) note in
 * ar_activity_dirty.
 */
export const AR_ACTIVITY: NonNullable<ReportingView['maintained']> = {
  view: 'ar_activity_monthly',
  groups: 'ar_activity_groups',
  dirty: 'ar_activity_dirty',
  key: ['account_id', 'property_id', 'post_month'],
  wholeMinGroups: 200,
  noted: '(account, property and post month) whose AR transactions or leases',
  reason:
    'summing the whole AR ledger again took seconds on the large data set, ' +
    'for the few dozen transactions a nightly sync changes',
  insertSums(whole) {
    // The dirty groups only unless the whole ledger. Their ledger rows come first, through the
    // ledger's index on (account_id, property_id, post_month), then their leases: left to the
    // planner on a warehouse not analyzed yet, it took the leases first and probed the ledger
    // once per lease and group (docs/reporting.md, Maintained views).
    const ledger = whole
      ? 'public.ar_transactions t'
      : `reporting_private.ar_activity_dirty d
         join public.ar_transactions t
           on t.account_id = d.account_id and t.property_id = d.property_id and t.post_month = d.post_month`;
    return `
      with ledger as materialized (
        select t.account_id, t.property_id, t.post_month, t.ar_code_id, t.ar_code_name, t.transaction_type_id,
               t.amount, t.lease_id
          from ${ledger}
         where t.deleted_at is null and t.is_temporary is not true and t.is_reversed is not true
           and t.post_month is not null
      )
      insert into reporting_private.ar_activity_groups (
        account_id, property_id, post_month, ar_code_id, ar_code_name, transactions, charges, deposits,
        payments, concessions, deposit_applications, refunds, write_offs, net_amount)
      select t.account_id,
             t.property_id,
             t.post_month,
             t.ar_code_id,
             min(t.ar_code_name),
             count(*)::int,
             ${money(1)},
             ${money(4)},
             ${money(2)},
             ${money(3)},
             ${money(5)},
             ${money(6)},
             ${money(7)},
             coalesce(sum(t.amount), 0)::numeric(14,2)
        from ledger t
        join public.leases l on l.account_id = t.account_id and l.lease_id = t.lease_id and l.deleted_at is null
       group by t.property_id, t.post_month, t.ar_code_id, t.account_id`;
  },
};

/** AR activity per property, post month and AR code. */
export const AR_ACTIVITY_MONTHLY: ReportingView = {
  name: 'ar_activity_monthly',
  purpose:
    'Per property, post month and AR code: charges, deposits, payments, concessions, deposit applications, ' +
    'refunds and write-offs.',
  notes:
    "Amounts by the source's transaction types: 1 charge, 2 payment, 3 concession/credit, 4 deposit, " +
    '5 deposit application, 6 refund, 7 write-off. ' +
    'Temporary transactions, reversed transactions (a returned payment and its reversal, both marked reversed ' +
    'by the source, cancel out) and rows the source no longer lists (or whose lease it no longer lists) ' +
    'are left out. ' +
    "Post months are the source's accounting months. " +
    "What it cannot know: which payment paid which charge (the source sends no allocations), nor a month's " +
    'figures as they were closed: a transaction posted back into a past month changes it at the next sync. ' +
    MONEY_NOTE,
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    PROPERTY_NAME,
    { name: 'post_month', meaning: 'The accounting month, as its first day.' },
    { name: 'ar_code_id', meaning: 'The AR code (rent, late fee, payment ...).' },
    { name: 'ar_code_name', meaning: "The AR code's name." },
    { name: 'transactions', meaning: 'AR transactions counted.' },
    { name: 'charges', meaning: 'Charges (type 1), positive.' },
    { name: 'deposits', meaning: 'Security deposits charged (type 4).' },
    { name: 'payments', meaning: 'Payments received (type 2), negative.' },
    { name: 'concessions', meaning: 'Concessions and credits (type 3), negative.' },
    { name: 'deposit_applications', meaning: 'Deposits applied to the balance (type 5).' },
    { name: 'refunds', meaning: 'Refunds to residents (type 6).' },
    { name: 'write_offs', meaning: 'Balances written off (type 7), negative.' },
    { name: 'net_amount', meaning: 'Sum of all the above: the change of the AR balance.' },
  ],
  maintained: AR_ACTIVITY,
  example: `select post_month, sum(charges) as charges, sum(payments) as payments, sum(concessions) as concessions,
       sum(write_offs) as write_offs
  from reporting.ar_activity_monthly
 where post_month >= date '2025-01-01'
 group by post_month
 order by post_month;`,
  // Names are read with the rows, so they are always current.
  query: `
    select g.account_id, a.name as account_name, g.property_id, p.property_name, g.post_month, g.ar_code_id,
           g.ar_code_name, g.transactions, g.charges, g.deposits, g.payments, g.concessions,
           g.deposit_applications, g.refunds, g.write_offs, g.net_amount
      from reporting_private.ar_activity_groups g
      left join public.accounts a on a.account_id = g.account_id
      left join reporting_private.properties p on p.account_id = g.account_id and p.property_id = g.property_id`,
};
