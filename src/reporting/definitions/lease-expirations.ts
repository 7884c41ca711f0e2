import type { ReportingView } from '../definition.js';
import {
  ACCOUNT,
  accountNameJoin,
  PROPERTY_ID,
  PROPERTY_NAME,
  propertyNameJoin,
  RESIDENTIAL,
} from './shared.js';

/** A lease's Renewal interval (ri) that starts after its current one (ci) ends: a renewal listed ahead. */
const RENEWAL_AHEAD = `exists (
          select 1 from public.lease_intervals ri
           where ri.account_id = l.account_id and ri.lease_id = l.lease_id and ri.deleted_at is null
             and ri.lease_interval_type_id = 3 and ri.start_date > ci.end_date)`;

/** Leases whose term ends, per property and month: still to decide, on notice, or renewed. */
export const LEASE_EXPIRATIONS: ReportingView = {
  name: 'lease_expirations',
  purpose:
    'Per property and month: the leases whose term ends that month, those still Current or Notice in it ' +
    'and those that renewed, with the move-out month of notices that leave in another month.',
  notes:
    'A term ends on the last day of a lease interval. expiring_leases are Current and Notice leases whose ' +
    'current interval ends in the month and that have no renewal after it; renewed are leases whose interval ' +
    'ending in the month was followed by a Renewal interval (month = the month of the day before the renewal ' +
    'starts), whatever their status today. So expiring_leases + renewed are the terms ending in the month, and ' +
    'expiring_leases - on_notice are those not yet decided. ' +
    "What it cannot know: the source lists a lease's current interval and its history, never a future one, so " +
    'a renewal is seen only once it has started, as the new current interval: until then a renewed lease counts ' +
    'in expiring_leases (not on notice), and renewed is zero for months whose renewals have not started. A ' +
    "renewal offer, signed or not, is not sent at all. Where an account's source does list a Renewal interval " +
    'starting after the current one, the lease counts as renewed. Leases that left at the end of their term ' +
    '(Past today) are not counted in past months. ' +
    'move_out_month: a Notice (or Current) lease with a move-out day in another month than its term ends (a ' +
    'resident who stays on month to month after the term, or leaves early) is in the row of that move-out ' +
    "month beside its expiry month; sum over move_out_month for the month's totals. " +
    'Other-income leases and rows the source no longer lists are left out. ' +
    'Past months show leases still Current after their term ended (typically month to month).',
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    PROPERTY_NAME,
    { name: 'month', meaning: 'The month the term ends, as its first day.' },
    {
      name: 'move_out_month',
      meaning:
        "The month of the leases' move-out day, as its first day, when it is not the month their term ends; " +
        'empty for leases without a move-out day or leaving the month their term ends, and for renewals.',
    },
    {
      name: 'expiring_leases',
      meaning:
        'Current and Notice leases whose current interval ends in the month, with no renewal after it.',
    },
    {
      name: 'renewed',
      meaning:
        'Leases whose term ending in the month was followed by a Renewal interval: seen once the renewal has ' +
        'started (the source lists no future interval); not part of expiring_leases.',
    },
    { name: 'on_notice', meaning: 'Of expiring_leases, leases on Notice (the residents are moving out).' },
    { name: 'month_to_month', meaning: 'Of expiring_leases, month-to-month leases.' },
  ],
  example: `select property_name, month, sum(expiring_leases + renewed) as terms_ending, sum(renewed) as renewed,
       sum(on_notice) as on_notice, sum(expiring_leases - on_notice) as undecided
  from reporting.lease_expirations
 where month between date_trunc('month', reporting.today()) - interval '3 months'
                 and date_trunc('month', reporting.today()) + interval '3 months'
 group by property_name, month
 order by month, property_name;`,
  query: `
    with terms as (
      select l.account_id, l.property_id,
             date_trunc('month', ci.end_date)::date as month,
             case when date_trunc('month', l.move_out_date) <> date_trunc('month', ci.end_date)
                  then date_trunc('month', l.move_out_date)::date end as move_out_month,
             false as renewed,
             l.lease_status_type_id = 5 as on_notice,
             coalesce(l.is_month_to_month, false) as month_to_month
        from public.leases l
        join public.lease_intervals ci
          on ci.account_id = l.account_id and ci.lease_interval_id = l.current_lease_interval_id
         and ci.deleted_at is null
       where ${RESIDENTIAL} and l.lease_status_type_id in (4, 5) and ci.end_date is not null
         and not ${RENEWAL_AHEAD}
      union all
      select l.account_id, l.property_id, date_trunc('month', ri.start_date - 1)::date, null, true, false, false
        from public.leases l
        join public.lease_intervals ri
          on ri.account_id = l.account_id and ri.lease_id = l.lease_id and ri.deleted_at is null
         and ri.lease_interval_type_id = 3 and ri.start_date is not null
       where ${RESIDENTIAL}
    ),
    counted as (
      select account_id, property_id, month, move_out_month,
             (count(*) filter (where not renewed))::int as expiring_leases,
             (count(*) filter (where renewed))::int as renewed,
             (count(*) filter (where on_notice))::int as on_notice,
             (count(*) filter (where month_to_month))::int as month_to_month
        from terms
       group by account_id, property_id, month, move_out_month
    )
    select c.account_id,
           a.name as account_name,
           c.property_id,
           p.property_name,
           c.month,
           c.move_out_month,
           c.expiring_leases,
           c.renewed,
           c.on_notice,
           c.month_to_month
      from counted c
      ${accountNameJoin('c')}
      ${propertyNameJoin('c')}`,
};
