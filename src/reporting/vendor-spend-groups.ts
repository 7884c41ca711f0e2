import { sql } from 'kysely';
import type { MaintainedView } from './maintained-groups.js';

/**
 * `vendor_spend_monthly`, a plain view over reporting_private.vendor_spend_groups
 * (migrations/0016_vendor_spend_groups.ts): one row of sums per account, post month, vendor and
 * property, whose (account, post month) groups the triggers on the invoices and their lines note
 * in vendor_spend_dirty.
 */
export const VENDOR_SPEND: MaintainedView = {
  view: 'vendor_spend_monthly',
  groups: 'vendor_spend_groups',
  dirty: 'vendor_spend_dirty',
  key: ['account_id', 'post_month'],
  // A group is a month of an account: a few dozen of them hold the whole warehouse, so a quarter
  // of them dirty is summed from all invoices at any size: faster than month by month through
  // the indexes once every month is dirty (docs/benchmark.md#measured-choices-in-the-code).
  wholeMinGroups: 0,
  insertSums(whole) {
    // 0014's sums (VENDOR_SPEND_MONTHLY's `totals`, grouped on the account last as there), of the
    // dirty months only unless all invoices. A dirty month's invoices come through the index on
    // (account_id, post_month), the reversals of each through (account_id, reversal_invoice_id),
    // their lines through (account_id, invoice_id): a subquery per invoice that OFFSET 0 keeps
    // apart, since the planner, once the tables are analyzed, would rather hash every line of the
    // warehouse, which is slower (docs/benchmark.md#measured-choices-in-the-code).
    const invoices = whole
      ? sql`public.invoices i`
      : sql`reporting_private.vendor_spend_dirty d
          join public.invoices i on i.account_id = d.account_id and i.post_month = d.post_month`;
    const lines = whole
      ? sql`join public.invoice_line_items li on li.account_id = s.account_id and li.invoice_id = s.invoice_id and li.deleted_at is null`
      : sql`cross join lateral (select li.property_id, li.amount from public.invoice_line_items li
                                 where li.account_id = s.account_id and li.invoice_id = s.invoice_id and li.deleted_at is null offset 0) li`;
    return sql`
      with spend as materialized (
        select i.account_id, i.invoice_id, i.post_month, i.vendor_id, i.vendor_name, i.invoice_type_id
          from ${invoices}
         where i.deleted_at is null and i.post_month is not null
           and i.invoice_type_id is distinct from 20
           and i.reversal_invoice_id is null
           and not exists (select 1 from public.invoices r where r.account_id = i.account_id and r.reversal_invoice_id = i.invoice_id and r.deleted_at is null)
      )
      insert into reporting_private.vendor_spend_groups (account_id, post_month, vendor_id, vendor_name, property_id, invoices, credit_memos, amount, credit_memo_amount)
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
