import type { ReportingView } from '../definition.js';
import {
  ACCOUNT,
  accountNameJoin,
  PROPERTY_ID,
  PROPERTY_NAME,
  propertyNameJoin,
  RESIDENTIAL,
  TODAY_NOTE,
} from './shared.js';

/** Units known and occupied per property and month. */
export const OCCUPANCY_MONTHLY: ReportingView = {
  name: 'occupancy_monthly',
  purpose:
    "Per property and month: units known, units occupied at the month's end (today for the current month), " +
    'occupancy %.',
  notes:
    'The source gives no unit inventory in the methods synced, so units known is the number of distinct units ' +
    'any lease of the property has ever named (all time, the same every month). ' +
    'A unit is occupied on a day when a Current, Notice or Past lease moved in on or before it ' +
    'and moves out after it ' +
    '(or has no move-out and is Current or Notice). ' +
    'Other-income leases (parking, storage) and leases the source no longer lists are left out. ' +
    "Months run from the property's first move-in to the current month. " +
    TODAY_NOTE,
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    PROPERTY_NAME,
    { name: 'month', meaning: 'The month, as its first day.' },
    { name: 'month_end', meaning: "The month's last day." },
    {
      name: 'as_of_date',
      meaning: "The day occupancy is counted on: the month's last day, or today for the current month.",
    },
    {
      name: 'units_known',
      meaning: 'Distinct units any lease of the property has named (the source has no unit list).',
    },
    {
      name: 'units_occupied',
      meaning: 'Distinct units with a resident on as_of_date (a multi-space lease counts once).',
    },
    { name: 'occupancy_percent', meaning: 'units_occupied / units_known in percent, one decimal.' },
  ],
  materialized: {
    reason:
      'counting the units occupied at every month end of every property took seconds on the large data set; ' +
      'the current month is counted as of the last refresh (see as_of_date)',
    key: ['account_id', 'property_id', 'month'],
  },
  example: `select property_name, month, occupancy_percent
  from reporting.occupancy_monthly
 where month >= date_trunc('month', reporting.today()) - interval '11 months'
 order by property_name, month;`,
  query: `
    with d as (select reporting.today() as today),
    residential as (
      select l.account_id, l.property_id, l.unit_id, l.lease_status_type_id, l.move_in_date, l.move_out_date
        from public.leases l
       where ${RESIDENTIAL} and l.unit_id is not null
    ),
    units as (
      select account_id,
             property_id,
             count(distinct unit_id)::int as units_known,
             min(move_in_date) filter (where lease_status_type_id in (4, 5, 6)) as first_move_in
        from residential
       group by account_id, property_id
    ),
    months as (
      select u.account_id, u.property_id, u.units_known, m::date as month,
             least((m + interval '1 month - 1 day')::date, d.today) as as_of_date
        from units u
       cross join d
       cross join generate_series(date_trunc('month', least(coalesce(u.first_move_in, d.today), d.today)),
                                  date_trunc('month', d.today), interval '1 month') m
    ),
    occupied as (
      select m.account_id, m.property_id, m.month, count(distinct r.unit_id)::int as units_occupied
        from months m
        join residential r on r.account_id = m.account_id and r.property_id = m.property_id
       where r.lease_status_type_id in (4, 5, 6)
         and r.move_in_date <= m.as_of_date
         and (r.move_out_date > m.as_of_date or (r.move_out_date is null and r.lease_status_type_id in (4, 5)))
       group by m.account_id, m.property_id, m.month
    )
    select m.account_id,
           a.name as account_name,
           m.property_id,
           p.property_name,
           m.month,
           (m.month + interval '1 month - 1 day')::date as month_end,
           m.as_of_date,
           m.units_known,
           coalesce(o.units_occupied, 0) as units_occupied,
           round(100.0 * coalesce(o.units_occupied, 0) / nullif(m.units_known, 0), 1) as occupancy_percent
      from months m
      left join occupied o on o.account_id = m.account_id and o.property_id = m.property_id and o.month = m.month
      ${accountNameJoin('m')}
      ${propertyNameJoin('m')}`,
};
