import type { ReportingView } from '../definition.js';
import {
  ACCOUNT,
  accountNameJoin,
  PROPERTY_ID,
  PROPERTY_NAME,
  propertyNameJoin,
  RESIDENTIAL,
} from './shared.js';

/** Leases whose current interval ends, per property and month. */
export const LEASE_EXPIRATIONS: ReportingView = {
  name: 'lease_expirations',
  purpose:
    'Per property and month: Current and Notice leases whose current interval ends that month, ' +
    'and how many already have a renewal.',
  notes:
    'A lease has a renewal when it has a Renewal interval starting after its current one. ' +
    'On notice counts Notice leases (moving out). ' +
    'Other-income leases and rows the source no longer lists are left out. ' +
    'Past months show leases still Current after their term ended (typically month to month).',
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    PROPERTY_NAME,
    { name: 'month', meaning: 'The month the current interval ends, as its first day.' },
    {
      name: 'expiring_leases',
      meaning: 'Current and Notice leases whose current interval ends in the month.',
    },
    { name: 'renewed', meaning: 'Of those, leases with a Renewal interval starting after the current one.' },
    { name: 'on_notice', meaning: 'Of those, leases on Notice (the residents are moving out).' },
    { name: 'month_to_month', meaning: 'Of those, month-to-month leases.' },
  ],
  example: `select property_name, month, expiring_leases, renewed, on_notice,
       expiring_leases - renewed - on_notice as undecided
  from reporting.lease_expirations
 where month between date_trunc('month', reporting.today())
                 and date_trunc('month', reporting.today()) + interval '3 months'
 order by month, property_name;`,
  query: `
    select l.account_id,
           a.name as account_name,
           l.property_id,
           p.property_name,
           date_trunc('month', ci.end_date)::date as month,
           count(*)::int as expiring_leases,
           count(*) filter (where ren.latest_start > ci.start_date)::int as renewed,
           count(*) filter (where l.lease_status_type_id = 5)::int as on_notice,
           count(*) filter (where l.is_month_to_month)::int as month_to_month
      from public.leases l
      join public.lease_intervals ci
        on ci.account_id = l.account_id and ci.lease_interval_id = l.current_lease_interval_id and ci.deleted_at is null
      ${accountNameJoin('l')}
      ${propertyNameJoin('l')}
      left join (
        select ri.account_id, ri.lease_id, max(ri.start_date) as latest_start
          from public.lease_intervals ri
         where ri.deleted_at is null and ri.lease_interval_type_id = 3
         group by ri.account_id, ri.lease_id
      ) ren on ren.account_id = l.account_id and ren.lease_id = l.lease_id
     where ${RESIDENTIAL} and l.lease_status_type_id in (4, 5) and ci.end_date is not null
     group by l.account_id, a.name, l.property_id, p.property_name, date_trunc('month', ci.end_date)`,
};
