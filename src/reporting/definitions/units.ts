import type { ReportingView } from '../definition.js';
import {
  ACCOUNT,
  accountNameJoin,
  INVENTORY_DAY,
  INVENTORY_DAY_NOTE,
  MONEY_NOTE,
  PROPERTY_ID,
  PROPERTY_NAME,
  propertyNameJoin,
} from './shared.js';

/** Every unit space with its status, market rent and current lease. */
export const UNITS: ReportingView = {
  name: 'units',
  purpose:
    'One row per unit space the source lists (homes, and parking or storage spaces): its unit, status, ' +
    'category, market rent and the current lease that holds it, if any.',
  notes:
    'From the unit inventory (getPropertyUnits, the units stream); spaces the source no longer lists are left out. ' +
    "The status is the source's string; its category one of occupied, notice, vacant, down, model, admin or " +
    'other (a status propsync does not know: see docs/sync.md). ' +
    'Pre-leased is what the status says, else whether a Future lease of the warehouse holds the space. ' +
    'Ready (vacant spaces only) is what the status says, else whether the make-ready date has passed. ' +
    'The current lease is a Current or Notice lease naming the space (the latest move-in if several); ' +
    "its rent is the current interval's monthly scheduled charges of charge type Rent in effect on as_of_date. " +
    'What it cannot know: statuses, market rent and readiness on other days than as_of_date (the source ' +
    'keeps no history; public.unit_space_status_history holds what runs saw), nor a lease the leases stream ' +
    'has not read yet. ' +
    `${INVENTORY_DAY_NOTE} ${MONEY_NOTE}`,
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    PROPERTY_NAME,
    { name: 'unit_id', meaning: 'The unit.' },
    { name: 'unit_number', meaning: "The unit's number." },
    { name: 'building_name', meaning: "The unit's building." },
    { name: 'floorplan_name', meaning: "The unit's floor plan." },
    {
      name: 'unit_type_name',
      meaning: 'Unit type, as the source names it (Apartment, Townhome, Parking ...).',
    },
    { name: 'bedrooms', meaning: 'Bedrooms.' },
    { name: 'bathrooms', meaning: 'Bathrooms, halves included.' },
    { name: 'square_feet', meaning: 'Area in square feet.' },
    { name: 'unit_space_id', meaning: 'The unit space (what a lease holds: usually the unit itself).' },
    { name: 'space_number', meaning: "The space's number." },
    { name: 'is_other_income', meaning: 'A parking or storage space rented as other income, not a home.' },
    { name: 'availability_status', meaning: 'Status as the source names it.' },
    {
      name: 'status_category',
      meaning: 'occupied, notice, vacant, down, model, admin, or other (a status propsync does not know).',
    },
    { name: 'is_preleased', meaning: 'A future lease holds the space.' },
    { name: 'is_ready', meaning: 'Vacant and made ready for a move-in (empty for a space not vacant).' },
    { name: 'available_date', meaning: 'When the space is available for a move-in.' },
    { name: 'make_ready_date', meaning: 'When the make-ready after the last move-out is done.' },
    { name: 'market_rent', meaning: "What the space is offered at (the source's rent)." },
    { name: 'current_lease_id', meaning: 'The Current or Notice lease that holds the space, if any.' },
    { name: 'current_lease_status', meaning: 'Current or Notice.' },
    { name: 'move_in_date', meaning: "The current lease's move-in day." },
    { name: 'move_out_date', meaning: "The current lease's planned move-out day, if any." },
    { name: 'lease_rent', meaning: "The current lease's monthly rent (charge type Rent) on as_of_date." },
    {
      name: 'as_of_date',
      meaning:
        "The source's today of the last sync that read the unit inventory (reporting.today() before any).",
    },
  ],
  example: `select property_name, unit_number, availability_status, market_rent, lease_rent
  from reporting.units
 where status_category = 'vacant' and not is_other_income
 order by property_name, unit_number;`,
  query: `
    with current_leases as (
      select distinct on (us.account_id, us.unit_space_id)
             us.account_id, us.unit_space_id, l.lease_id, l.lease_status, l.move_in_date, l.move_out_date,
             l.current_lease_interval_id
        from public.lease_unit_spaces us
        join public.leases l on l.account_id = us.account_id and l.lease_id = us.lease_id
       where us.deleted_at is null and l.deleted_at is null and l.lease_status_type_id in (4, 5)
       order by us.account_id, us.unit_space_id, l.move_in_date desc nulls last, l.lease_id desc
    ),
    future_leases as (
      select distinct us.account_id, us.unit_space_id
        from public.lease_unit_spaces us
        join public.leases l on l.account_id = us.account_id and l.lease_id = us.lease_id
       where us.deleted_at is null and l.deleted_at is null and l.lease_status_type_id = 3
    )
    select s.account_id,
           a.name as account_name,
           s.property_id,
           p.property_name,
           s.unit_id,
           u.unit_number,
           u.building_name,
           u.floorplan_name,
           u.unit_type_name,
           u.bedrooms,
           u.bathrooms,
           u.square_feet,
           s.unit_space_id,
           s.unit_number as space_number,
           s.is_other_income,
           s.availability_status,
           s.status_category,
           coalesce(s.is_preleased, f.unit_space_id is not null) as is_preleased,
           case when s.status_category = 'vacant'
                then coalesce(s.is_ready, s.make_ready_date is null or s.make_ready_date <= d.today) end as is_ready,
           s.available_date,
           s.make_ready_date,
           s.rent as market_rent,
           c.lease_id as current_lease_id,
           c.lease_status as current_lease_status,
           c.move_in_date,
           c.move_out_date,
           (select sum(sc.amount)
              from public.lease_scheduled_charges sc
             where sc.account_id = c.account_id and sc.lease_id = c.lease_id
               and sc.lease_interval_id = c.current_lease_interval_id
               and sc.deleted_at is null and sc.frequency = 'Monthly' and sc.charge_type = 'Rent'
               and (sc.start_date is null or sc.start_date <= d.today)
               and (sc.end_date is null or sc.end_date >= d.today))::numeric(14,2) as lease_rent,
           d.today as as_of_date
      from public.unit_spaces s
      join public.units u on u.account_id = s.account_id and u.unit_id = s.unit_id
      ${INVENTORY_DAY}
      left join current_leases c on c.account_id = s.account_id and c.unit_space_id = s.unit_space_id
      left join future_leases f on f.account_id = s.account_id and f.unit_space_id = s.unit_space_id
      ${accountNameJoin('s')}
      ${propertyNameJoin('s')}
     where s.deleted_at is null`,
};
