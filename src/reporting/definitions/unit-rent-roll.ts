import type { ReportingView } from '../definition.js';
import { ACCOUNT, MONEY_NOTE, PROPERTY_ID, PROPERTY_NAME } from './shared.js';

/** The rent roll by unit: each lease of reporting.rent_roll with its unit's size, and the vacant units. */
export const UNIT_RENT_ROLL: ReportingView = {
  name: 'unit_rent_roll',
  purpose:
    "The rent roll by unit: each Current or Notice lease of reporting.rent_roll with its unit's bedrooms, " +
    'square feet and market rent, and one row per unit of the inventory that no such lease holds (vacant).',
  notes:
    "Lease rows are reporting.rent_roll's (the same rules apply), joined to their unit in reporting.units (the " +
    "unit inventory, the units stream): bedrooms, square feet and market rent (the sum of its spaces' rent) are " +
    "empty when the inventory does not list the lease's unit. Vacant rows (is_vacant) are the units the " +
    'inventory lists that no Current or Notice lease holds, by its unit or one of its spaces: their lease ' +
    'columns are empty. A unit with several leases (by the bed) has a row for each. ' +
    'What it cannot know: the inventory is as of the last sync that read it (as_of_date of a vacant row), the ' +
    'leases as of the last sync that read them: a unit let or vacated in between shows as the leases say, and ' +
    'without the units stream there are no vacant rows and no sizes. ' +
    MONEY_NOTE,
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    PROPERTY_NAME,
    { name: 'unit_id', meaning: 'The unit.' },
    { name: 'unit_number', meaning: "The unit's number." },
    { name: 'building_name', meaning: "The unit's building." },
    { name: 'floor_plan_name', meaning: "The unit's floor plan." },
    { name: 'bedrooms', meaning: "The unit's bedrooms (unit inventory)." },
    { name: 'square_feet', meaning: "The unit's area in square feet (unit inventory)." },
    { name: 'market_rent', meaning: "What the unit's spaces are offered at (unit inventory)." },
    { name: 'is_vacant', meaning: 'No Current or Notice lease holds the unit: a row of no lease.' },
    { name: 'lease_id', meaning: 'The lease (empty when vacant).' },
    {
      name: 'primary_resident',
      meaning: "The primary resident's full name.",
      from: 'lease_customers.name_full',
    },
    { name: 'lease_status', meaning: 'Current or Notice (empty when vacant).' },
    { name: 'is_other_income', meaning: 'A parking or storage unit or lease, not a home.' },
    { name: 'move_in_date', meaning: 'The day the residents moved in.' },
    { name: 'move_out_date', meaning: 'The planned move-out day, if any.' },
    { name: 'lease_end_date', meaning: 'End of the current lease interval (term).' },
    { name: 'rent', meaning: 'Monthly rent (charge type Rent) in effect today.' },
    { name: 'other_monthly_charges', meaning: 'The other monthly charges in effect today.' },
    { name: 'deposit_held', meaning: 'Security deposit held (see reporting.rent_roll).' },
    { name: 'open_balance', meaning: 'Open AR balance of the lease.' },
    { name: 'past_due_balance', meaning: 'Part of the open balance due before today.' },
    {
      name: 'as_of_date',
      meaning: "The account's today on a lease row; the day of the unit inventory on a vacant row.",
    },
  ],
  example: `select property_name, count(*) filter (where is_vacant) as vacant, sum(square_feet) as square_feet,
       sum(rent) as rent,
       round(sum(rent) / nullif(sum(square_feet) filter (where not is_vacant), 0), 2) as rent_per_sqft
  from reporting.unit_rent_roll
 where not is_other_income
 group by account_id, property_id, property_name
 order by property_name;`,
  query: `
    with inventory as (
      select s.account_id, s.unit_id,
             min(s.account_name) as account_name,
             min(s.property_id) as property_id,
             min(s.property_name) as property_name,
             min(s.unit_number) as unit_number,
             min(s.building_name) as building_name,
             min(s.floorplan_name) as floorplan_name,
             min(s.bedrooms) as bedrooms,
             min(s.square_feet) as square_feet,
             sum(s.market_rent)::numeric(14,2) as market_rent,
             bool_or(s.is_other_income) as is_other_income,
             bool_or(s.current_lease_id is not null) as held,
             min(s.as_of_date) as as_of_date
        from reporting_private.units s
       group by s.account_id, s.unit_id
    )
    select r.account_id, r.account_name, r.property_id, r.property_name, r.unit_id, r.unit_number, r.building_name,
           r.floor_plan_name, i.bedrooms, i.square_feet, i.market_rent, false as is_vacant, r.lease_id,
           r.primary_resident, r.lease_status, r.is_other_income, r.move_in_date, r.move_out_date,
           r.lease_end_date, r.rent, r.other_monthly_charges, r.deposit_held, r.open_balance, r.past_due_balance,
           r.as_of_date
      from reporting_private.rent_roll r
      left join inventory i on i.account_id = r.account_id and i.unit_id = r.unit_id
    union all
    select i.account_id, i.account_name, i.property_id, i.property_name, i.unit_id, i.unit_number, i.building_name,
           i.floorplan_name, i.bedrooms, i.square_feet, i.market_rent, true, null, null, null, i.is_other_income,
           null, null, null, null, null, null, null, null, i.as_of_date
      from inventory i
     where not i.held
       and not exists (select 1 from reporting_private.rent_roll r
                        where r.account_id = i.account_id and r.unit_id = i.unit_id)`,
};
