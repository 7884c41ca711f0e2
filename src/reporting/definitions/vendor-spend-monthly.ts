import type { ReportingView } from '../definition.js';
import { ACCOUNT, MONEY_NOTE, PROPERTY_NAME } from './shared.js';

/**
 * The sums behind the view, kept group by group in reporting_private.vendor_spend_groups (one row
 * per account, post month, vendor and property, with the vendor's name), whose (account, post
 * month) groups the triggers on the invoices and their lines (migrations/0016_vendor_spend_groups.ts)
 * note in vendor_spend_dirty.
 */
export const VENDOR_SPEND: NonNullable<ReportingView['maintained']> = {
  view: 'vendor_spend_monthly',
  groups: 'vendor_spend_groups',
  dirty: 'vendor_spend_dirty',
  key: ['account_id', 'post_month'],
  // A group is a month of an account: a few dozen of them hold the whole warehouse, so a quarter
  // of them dirty is summed from all invoices at any size (docs/reporting.md, Maintained views).
  wholeMinGroups: 0,
  noted: '(account and invoice post month) whose invoices or invoice lines',
  reason:
    'summing every invoice line again took a second on the large data set, ' +
    'for the dozen invoices a nightly sync changes',
  insertSums(whole) {
    // The dirty months only unless all invoices. A dirty month's invoices come through the index
    // on (account_id, post_month), their lines through (account_id, invoice_id): a subquery per
    // invoice that OFFSET 0 keeps apart, since the planner, once the tables are analyzed, would
    // rather hash every line. Net spend is what was posted: an invoice that names another
    // (reversal_invoice_id) counts by its own amounts, and the one it names stays counted.
    const invoices = whole
      ? 'public.invoices i'
      : `reporting_private.vendor_spend_dirty d
         join public.invoices i on i.account_id = d.account_id and i.post_month = d.post_month`;
    const lines = whole
      ? `join public.invoice_line_items li
           on li.account_id = s.account_id and li.invoice_id = s.invoice_id and li.deleted_at is null`
      : `cross join lateral (
           select li.property_id, li.amount
             from public.invoice_line_items li
            where li.account_id = s.account_id and li.invoice_id = s.invoice_id and li.deleted_at is null
           offset 0) li`;
    return `
      with spend as materialized (
        select i.account_id, i.invoice_id, i.post_month, i.vendor_id, i.vendor_name, i.invoice_type_id
          from ${invoices}
         where i.deleted_at is null and i.post_month is not null
           and i.invoice_type_id is distinct from 20
      )
      insert into reporting_private.vendor_spend_groups (
        account_id, post_month, vendor_id, vendor_name, property_id, invoices, credit_memos, amount,
        credit_memo_amount)
      select s.account_id,
             s.post_month,
             s.vendor_id,
             max(s.vendor_name),
             li.property_id,
             count(distinct s.invoice_id) filter (where s.invoice_type_id is distinct from 12)::int,
             count(distinct s.invoice_id) filter (where s.invoice_type_id = 12)::int,
             coalesce(sum(li.amount), 0)::numeric(14,2),
             coalesce(sum(li.amount) filter (where s.invoice_type_id = 12), 0)::numeric(14,2)
        from spend s
        ${lines}
       group by s.post_month, s.vendor_id, li.property_id, s.account_id`;
  },
};

/** Vendor spend per post month, vendor and property. */
export const VENDOR_SPEND_MONTHLY: ReportingView = {
  name: 'vendor_spend_monthly',
  purpose:
    'Per post month, vendor and property (from invoice lines): invoices, credit memos and the net amount spent.',
  notes:
    'Net spend is the sum of what was posted, invoices and credit memos alike, by the lines of each. ' +
    'Refunds to residents (invoice type 20, Customer Refund) are not vendor spend and are left out. ' +
    'Credit memos (type 12) are netted: their negative amounts reduce the spend. ' +
    'A credit memo or invoice that names another it adjusts or reverses (reversal_invoice_id) counts by its own ' +
    'amounts, in its own month and properties, and the invoice it names stays counted: a full reversal nets to ' +
    'zero by its amounts, a partial credit (a billing adjustment) takes off only what it credits. ' +
    'An invoice whose lines name several properties counts once for each. ' +
    'Invoices and lines the source no longer lists are left out. ' +
    "What it cannot know: the source sends no link from an invoice to the credits against it, only the credit's " +
    'reversal_invoice_id, so spend is netted by post month, not per original invoice. ' +
    MONEY_NOTE,
  columns: [
    ...ACCOUNT,
    { name: 'post_month', meaning: "The invoices' accounting month, as its first day." },
    { name: 'vendor_id', meaning: 'The vendor.' },
    {
      name: 'vendor_name',
      meaning: "The vendor's name (a resident's, on a customer refund).",
      from: 'invoices.vendor_name',
    },
    { name: 'property_id', meaning: 'The property the invoice lines are charged to.' },
    PROPERTY_NAME,
    { name: 'invoices', meaning: 'Invoices (credit memos not counted).' },
    { name: 'credit_memos', meaning: 'Credit memos.' },
    { name: 'amount', meaning: 'Net amount of the lines: invoices minus credit memos.' },
    { name: 'credit_memo_amount', meaning: 'Part of amount from credit memos (negative).' },
  ],
  maintained: VENDOR_SPEND,
  example: `select vendor_name, sum(amount) as spend
  from reporting.vendor_spend_monthly
 where post_month >= date_trunc('month', reporting.today()) - interval '11 months'
 group by vendor_name
 order by spend desc
 limit 10;`,
  // Names are read with the rows, so they are always current.
  query: `
    select g.account_id, a.name as account_name, g.post_month, g.vendor_id, g.vendor_name, g.property_id,
           p.property_name, g.invoices, g.credit_memos, g.amount, g.credit_memo_amount
      from reporting_private.vendor_spend_groups g
      left join public.accounts a on a.account_id = g.account_id
      left join reporting_private.properties p on p.account_id = g.account_id and p.property_id = g.property_id`,
};
