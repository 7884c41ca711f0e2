import { sql } from 'kysely';
import type { Db } from '../catalog/tables.js';

/**
 * The reporting view whose rows are kept group by group rather than refreshed: a plain view over
 * reporting_private.ar_activity_groups (migrations/0015_ar_activity_groups.ts), named by it in
 * a refresh's outcome.
 */
export const AR_ACTIVITY_VIEW = 'ar_activity_monthly';

/**
 * Dirty groups from this share of all groups on (a quarter) are summed again from the whole
 * ledger, in a warehouse of at least `WHOLE_LEDGER_MIN_GROUPS` groups (below, either way takes
 * milliseconds).
 */
const WHOLE_LEDGER_SHARE = 4;
const WHOLE_LEDGER_MIN_GROUPS = 200;

/** The sum of one transaction type's amounts. */
const MONEY = (type: number) => sql.raw(`coalesce(sum(t.amount) filter (where t.transaction_type_id = ${type}), 0)::numeric(14,2)`);

/**
 * Sums again the groups of reporting_private.ar_activity_groups that the ledger's and the leases'
 * triggers noted in ar_activity_dirty since the last time, and forgets them; returns how many.
 *
 * `trx` is a REPEATABLE READ transaction that has taken no snapshot yet: the lock on the dirty
 * table comes first. It waits for every open transaction that noted a group, so the snapshot
 * the next statement takes holds their ledger rows, and holds back those that would note one
 * until this commits (they note it again then, for the next time); a second refresh waits for
 * the first and sees its rows. Readers see a group's old rows or its new ones, never a half.
 */
export async function updateArActivityGroups(trx: Db): Promise<number> {
  await sql`lock table reporting_private.ar_activity_dirty in share row exclusive mode`.execute(trx);
  const { rows } = await sql<{ dirty: number; groups: number }>`
    select (select count(*) from reporting_private.ar_activity_dirty)::int as dirty,
           (select count(*) from (select distinct account_id, property_id, post_month from reporting_private.ar_activity_groups) g)::int as groups`.execute(trx);
  const { dirty, groups } = rows[0];
  if (dirty === 0) return 0;
  // A good share of the groups (after a full load, all of them): the whole ledger summed once
  // costs less than a search of it per group.
  // Groups there are, new ones counted: at most those summed last plus the dirty ones.
  const total = groups + dirty;
  const whole = total >= WHOLE_LEDGER_MIN_GROUPS && dirty * WHOLE_LEDGER_SHARE >= total;
  if (whole) await sql`delete from reporting_private.ar_activity_groups`.execute(trx);
  else {
    // The planner sees how many groups are dirty: a few after a nightly sync.
    await sql`analyze reporting_private.ar_activity_dirty`.execute(trx);
    await sql`
      delete from reporting_private.ar_activity_groups g
       using reporting_private.ar_activity_dirty d
       where g.account_id = d.account_id and g.property_id = d.property_id and g.post_month = d.post_month`.execute(trx);
  }
  // 0014's sums (AR_ACTIVITY_MONTHLY's inner query, grouped on the account last as there), of
  // the dirty groups only unless the whole ledger. Their ledger rows come first, through the
  // ledger's index on (account_id, property_id, post_month), then their leases: left to the
  // planner on a warehouse not analyzed yet, it took the leases first and probed the ledger once
  // per lease and group (16 s instead of 45 ms for 29 groups of the medium data set).
  const ledger = whole
    ? sql`public.ar_transactions t`
    : sql`reporting_private.ar_activity_dirty d
        join public.ar_transactions t on t.account_id = d.account_id and t.property_id = d.property_id and t.post_month = d.post_month`;
  await sql`
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
     group by t.property_id, t.post_month, t.ar_code_id, t.account_id`.execute(trx);
  if (whole) await sql`analyze reporting_private.ar_activity_groups`.execute(trx);
  // Under the lock no group was noted since the snapshot: every row here was summed above.
  await sql`delete from reporting_private.ar_activity_dirty`.execute(trx);
  return dirty;
}
