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

/**
 * The rows behind the view, made again per account (reporting_private.occupancy_monthly_rows): the
 * accounts the triggers on leases, units and the unit status history
 * (migrations/0025_reporting_account_rows.ts) note in occupancy_monthly_dirty, and those whose day
 * moved since (their current month is counted as of their today).
 */
export const OCCUPANCY_ROWS: NonNullable<ReportingView['maintained']> = {
  view: 'occupancy_monthly',
  groups: 'occupancy_monthly_rows',
  dirty: 'occupancy_monthly_dirty',
  key: ['account_id'],
  log: true,
  wholeMinGroups: 20,
  noted: 'whose leases or unit inventory (or whose day)',
  reason:
    'counting the units occupied at every month end of every property took seconds on the large data set, ' +
    'and a run writes one account',
  // The latest as_of_date of an account's rows is its today when they were made.
  noteStale: `
    insert into reporting_private.occupancy_monthly_dirty (account_id)
    select a.account_id
      from public.accounts a
     where (select max(r.as_of_date) from reporting_private.occupancy_monthly_rows r
             where r.account_id = a.account_id) <> reporting.today(a.account_id)`,
  insertSums(whole) {
    const only = (alias: string) =>
      whole
        ? ''
        : `and ${alias}.account_id in (select account_id from reporting_private.occupancy_monthly_dirty)`;
    return `
    with residential as (
      select l.account_id, l.property_id, l.unit_id, l.lease_status_type_id, l.move_in_date, l.move_out_date
        from public.leases l
       where ${RESIDENTIAL} and l.unit_id is not null ${only('l')}
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
             least((m + interval '1 month - 1 day')::date, ${TODAY}) as as_of_date
        from units u
       ${accountDay('u')}
       cross join generate_series(date_trunc('month', least(coalesce(u.first_move_in, ${TODAY}), ${TODAY})),
                                  date_trunc('month', ${TODAY}), interval '1 month') m
    ),
    inventory as (
      select h.account_id, h.property_id, h.unit_id, h.valid_from, h.valid_to
        from public.unit_space_status_history h
        join public.units u on u.account_id = h.account_id and u.unit_id = h.unit_id
       where not u.is_other_income ${only('h')}
    ),
    covered as (
      select account_id, property_id, min(valid_from) as first_day from inventory group by account_id, property_id
    ),
    inventory_units as (
      select m.account_id, m.property_id, m.month, count(distinct i.unit_id)::int as units
        from months m
        join inventory i on i.account_id = m.account_id and i.property_id = m.property_id
       where i.valid_from <= m.as_of_date and (i.valid_to is null or i.valid_to > m.as_of_date)
       group by m.account_id, m.property_id, m.month
    ),
    known as (
      select m.account_id, m.property_id, m.month, m.as_of_date,
             case when c.first_day <= m.as_of_date then coalesce(iu.units, 0) else m.units_known end as units_known,
             case when c.first_day <= m.as_of_date then 'inventory' else 'leases' end as units_source
        from months m
        left join covered c on c.account_id = m.account_id and c.property_id = m.property_id
        left join inventory_units iu
          on iu.account_id = m.account_id and iu.property_id = m.property_id and iu.month = m.month
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
    insert into reporting_private.occupancy_monthly_rows (
      account_id, property_id, month, month_end, as_of_date, units_known, units_source, units_occupied,
      occupancy_percent)
    select m.account_id,
           m.property_id,
           m.month,
           (m.month + interval '1 month - 1 day')::date,
           m.as_of_date,
           k.units_known,
           k.units_source,
           coalesce(o.units_occupied, 0),
           round(100.0 * coalesce(o.units_occupied, 0) / nullif(k.units_known, 0), 1)
      from months m
      join known k on k.account_id = m.account_id and k.property_id = m.property_id and k.month = m.month
      left join occupied o on o.account_id = m.account_id and o.property_id = m.property_id and o.month = m.month`;
  },
};

/** Units known and occupied per property and month. */
export const OCCUPANCY_MONTHLY: ReportingView = {
  name: 'occupancy_monthly',
  purpose:
    "Per property and month: units known, units occupied at the month's end (today for the current month), " +
    'occupancy %.',
  notes:
    'Units known come from the unit inventory (getPropertyUnits, the units stream) for every month whose as_of_date ' +
    'its status history covers (from the first sync that read it on): the units of homes it listed on that day, ' +
    'parking and storage left out, units down or vacant included. ' +
    'Before that, or without the units stream, units known is the number of distinct units any lease of the property ' +
    'has ever named (all time, the same every month). units_source says which. ' +
    'A unit is occupied on a day when a Current, Notice or Past lease moved in on or before it ' +
    'and moves out after it ' +
    '(or has no move-out and is Current or Notice). ' +
    'Other-income leases (parking, storage) and leases the source no longer lists are left out. ' +
    "Months run from the property's first move-in to the current month. " +
    "What it cannot know: the inventory of a month before propsync first read it (the source tells today's " +
    'units only, so those months count the units leases named), a unit lived in without a lease the source ' +
    'lists (a staff or model unit), and leases the source has purged. ' +
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
      meaning:
        'Units of homes: those the unit inventory listed on as_of_date, or, before it covers the month, ' +
        'the distinct units any lease of the property has named.',
    },
    {
      name: 'units_source',
      meaning:
        'Where units_known comes from: inventory (the unit inventory on as_of_date) ' +
        'or leases (units leases have named).',
    },
    {
      name: 'units_occupied',
      meaning: 'Distinct units with a resident on as_of_date (a multi-space lease counts once).',
    },
    { name: 'occupancy_percent', meaning: 'units_occupied / units_known in percent, one decimal.' },
  ],
  maintained: OCCUPANCY_ROWS,
  example: `select property_name, month, occupancy_percent
  from reporting.occupancy_monthly
 where month >= date_trunc('month', reporting.today()) - interval '11 months'
 order by property_name, month;`,
  // Names read with the rows, so they are always current.
  query: `
    select r.account_id, a.name as account_name, r.property_id, p.property_name, r.month, r.month_end,
           r.as_of_date, r.units_known, r.units_source, r.units_occupied, r.occupancy_percent
      from reporting_private.occupancy_monthly_rows r
      ${accountNameJoin('r')}
      ${propertyNameJoin('r')}`,
};
