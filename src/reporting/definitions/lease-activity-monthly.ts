import type { ReportingView } from '../definition.js';
import {
  ACCOUNT,
  accountNameJoin,
  PROPERTY_ID,
  PROPERTY_NAME,
  propertyNameJoin,
  RESIDENTIAL,
  TODAY_NOTE,
  accountDay,
  TODAY,
} from './shared.js';

/** Move-ins, move-outs, renewals and cancellations per property and month. */
export const LEASE_ACTIVITY_MONTHLY: ReportingView = {
  name: 'lease_activity_monthly',
  purpose: 'Per property and month: move-ins, move-outs, renewals started and cancellations.',
  notes:
    'Move-ins: leases that moved in (Current, Notice or Past) by their move-in day up to today. ' +
    'Move-outs: those leases by their move-out day up to today. ' +
    'Renewals: lease intervals of type Renewal by their start day up to today. ' +
    'Cancellations: Cancelled leases by the move-in day they had planned (the source gives no cancellation date). ' +
    'Other-income leases and rows the source no longer lists are left out; months without any activity have no row. ' +
    'What it cannot know: when a lease was cancelled or its notice given (the source sends no date for ' +
    'them), and the activity of leases it no longer lists. ' +
    TODAY_NOTE,
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    PROPERTY_NAME,
    { name: 'month', meaning: 'The month, as its first day.' },
    { name: 'move_ins', meaning: 'Leases that moved in during the month.' },
    { name: 'move_outs', meaning: 'Leases that moved out during the month.' },
    { name: 'renewals', meaning: 'Renewal intervals that started during the month.' },
    { name: 'cancellations', meaning: 'Cancelled leases whose planned move-in fell in the month.' },
  ],
  example: `select month, sum(move_ins) as move_ins, sum(move_outs) as move_outs, sum(renewals) as renewals
  from reporting.lease_activity_monthly
 group by month
 order by month desc
 limit 12;`,
  query: `
    with events as (
      select l.account_id, l.property_id, date_trunc('month', l.move_in_date)::date as month, 'move_in' as kind
        from public.leases l${accountDay('l')}
       where ${RESIDENTIAL} and l.lease_status_type_id in (4, 5, 6) and l.move_in_date <= ${TODAY}
      union all
      select l.account_id, l.property_id, date_trunc('month', l.move_out_date)::date, 'move_out'
        from public.leases l${accountDay('l')}
       where ${RESIDENTIAL} and l.lease_status_type_id in (4, 5, 6)
         and l.move_in_date <= l.move_out_date and l.move_out_date <= ${TODAY}
      union all
      select l.account_id, l.property_id, date_trunc('month', i.start_date)::date, 'renewal'
        from public.lease_intervals i
        join public.leases l on l.account_id = i.account_id and l.lease_id = i.lease_id
       ${accountDay('l')}
       where ${RESIDENTIAL} and i.deleted_at is null and i.lease_interval_type_id = 3 and i.start_date <= ${TODAY}
      union all
      select l.account_id, l.property_id, date_trunc('month', l.move_in_date)::date, 'cancellation'
        from public.leases l
       where ${RESIDENTIAL} and l.lease_status_type_id = 2 and l.move_in_date is not null
    )
    select e.account_id,
           a.name as account_name,
           e.property_id,
           p.property_name,
           e.month,
           count(*) filter (where e.kind = 'move_in')::int as move_ins,
           count(*) filter (where e.kind = 'move_out')::int as move_outs,
           count(*) filter (where e.kind = 'renewal')::int as renewals,
           count(*) filter (where e.kind = 'cancellation')::int as cancellations
      from events e
      ${accountNameJoin('e')}
      ${propertyNameJoin('e')}
     group by e.account_id, a.name, e.property_id, p.property_name, e.month`,
};
