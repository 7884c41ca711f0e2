import { sql } from 'kysely';
import type { MaintainedView } from './maintained-groups.js';

/** The sum of one transaction type's amounts. */
const MONEY = (type: number) =>
  sql.raw(`coalesce(sum(t.amount) filter (where t.transaction_type_id = ${type}), 0)::numeric(14,2)`);

/**
 * `ar_activity_monthly`, a plain view over reporting_private.ar_activity_groups
 * (migrations/0015_ar_activity_groups.ts): one row of sums per account, property, post month and
 * AR code, whose (account, property, post month) groups the triggers on the ledger and the leases
 * note in ar_activity_dirty.
 */
export const AR_ACTIVITY: MaintainedView = {
  view: 'ar_activity_monthly',
  groups: 'ar_activity_groups',
  dirty: 'ar_activity_dirty',
  key: ['account_id', 'property_id', 'post_month'],
  wholeMinGroups: 200,
  insertSums(whole) {
    // 0014's sums (AR_ACTIVITY_MONTHLY's inner query, grouped on the account last as there), of
    // the dirty groups only unless the whole ledger. Their ledger rows come first, through the
    // ledger's index on (account_id, property_id, post_month), then their leases: left to the
    // planner on a warehouse not analyzed yet, it took the leases first and probed the ledger once
    // per lease and group, far slower (docs/benchmark.md#measured-choices-in-the-code).
    const ledger = whole
      ? sql`public.ar_transactions t`
      : sql`reporting_private.ar_activity_dirty d
          join public.ar_transactions t on t.account_id = d.account_id and t.property_id = d.property_id and t.post_month = d.post_month`;
    return sql`
      with ledger as materialized (
        select t.account_id, t.property_id, t.post_month, t.ar_code_id, t.ar_code_name, t.transaction_type_id, t.amount, t.lease_id
          from ${ledger}
         where t.deleted_at is null and t.is_temporary is not true and t.is_reversed is not true and t.post_month is not null
      )
      insert into reporting_private.ar_activity_groups (account_id, property_id, post_month, ar_code_id, ar_code_name, transactions,
                                                        charges, deposits, payments, concessions, deposit_applications, refunds, write_offs, net_amount)
      select t.account_id,
             t.property_id,
             t.post_month,
             t.ar_code_id,
             min(t.ar_code_name),
             count(*)::int,
             ${MONEY(1)},
             ${MONEY(4)},
             ${MONEY(2)},
             ${MONEY(3)},
             ${MONEY(5)},
             ${MONEY(6)},
             ${MONEY(7)},
             coalesce(sum(t.amount), 0)::numeric(14,2)
        from ledger t
        join public.leases l on l.account_id = t.account_id and l.lease_id = t.lease_id and l.deleted_at is null
       group by t.property_id, t.post_month, t.ar_code_id, t.account_id`;
  },
};
