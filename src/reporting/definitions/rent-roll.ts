import type { ReportingView } from '../definition.js';
import {
  ACCOUNT,
  accountNameJoin,
  AS_OF,
  CUSTOMER_NAME,
  MONEY_NOTE,
  OPEN_AR,
  PRIMARY_FIRST,
  PROPERTY_ID,
  PROPERTY_NAME,
  propertyNameJoin,
  TODAY_NOTE,
  accountDay,
  TODAY,
} from './shared.js';

/** Current and Notice leases: where, who, the term, monthly charges and balances. */
export const RENT_ROLL: ReportingView = {
  name: 'rent_roll',
  purpose:
    'One row per lease that is Current or Notice today: where, who, the current term, rent and other monthly ' +
    'charges, deposit held and balances.',
  notes:
    'Leases the source no longer lists (deleted_at set) are left out. ' +
    'A multi-space lease is one row, its spaces listed in unit_spaces. ' +
    'The primary resident is the customer whose type is Primary ' +
    '(else relationship Primary, else the lowest customer id). ' +
    "Monthly charges are the current interval's scheduled charges of frequency Monthly in effect today; rent is " +
    'those of charge type Rent (base rent, a month-to-month premium), other_monthly_charges the rest (pet rent, ' +
    'utilities, parking ...). ' +
    'The deposit held is what the lease paid of its security deposits (AR type 4) less what was applied to its ' +
    'balance (type 5), from its non-temporary, non-reversed AR transactions: the source sends no deposit ' +
    'balance, and a deposit paid outside the AR ledger (a bond, a surety) cannot be seen. ' +
    'Balances count non-temporary, non-reversed AR transactions still open. ' +
    'Other-income leases (parking, storage) are included and flagged. ' +
    "Units' bedrooms and square feet, and the vacant units, are in reporting.unit_rent_roll. " +
    "What it cannot know: a past day's rent roll (the source gives today's leases and charges only). " +
    `${TODAY_NOTE} ${MONEY_NOTE}`,
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    PROPERTY_NAME,
    { name: 'lease_id', meaning: 'The lease.' },
    { name: 'unit_id', meaning: 'The unit the lease is on.' },
    { name: 'unit_number', meaning: "The unit's number." },
    { name: 'building_name', meaning: "The unit's building." },
    { name: 'floor_plan_name', meaning: "The unit's floor plan." },
    {
      name: 'unit_spaces',
      meaning: "The lease's unit spaces, comma-separated (several for a multi-space lease).",
    },
    { name: 'primary_customer_id', meaning: "The primary resident's customer id." },
    {
      name: 'primary_resident',
      meaning: "The primary resident's full name.",
      from: 'lease_customers.name_full',
    },
    { name: 'lease_status', meaning: 'Current or Notice.' },
    { name: 'is_month_to_month', meaning: 'The lease runs month to month.' },
    { name: 'is_other_income', meaning: 'An other-income lease (parking, storage) rather than a home.' },
    { name: 'move_in_date', meaning: 'The day the residents moved in.' },
    { name: 'move_out_date', meaning: 'The planned or actual move-out day, if any.' },
    { name: 'lease_start_date', meaning: 'Start of the current lease interval (term).' },
    { name: 'lease_end_date', meaning: 'End of the current lease interval (term).' },
    {
      name: 'monthly_charges',
      meaning:
        "Sum of the current interval's monthly scheduled charges in effect today (rent, pet rent, utilities ...).",
    },
    { name: 'rent', meaning: 'Of monthly_charges, those of charge type Rent.' },
    {
      name: 'other_monthly_charges',
      meaning: 'Of monthly_charges, the others (pet rent, utilities, parking ...): monthly_charges - rent.',
    },
    {
      name: 'deposit_held',
      meaning: 'Security deposit paid (AR type 4) less deposit applied to the balance (type 5).',
    },
    {
      name: 'open_balance',
      meaning: 'Open AR balance of the lease (positive: the residents owe; negative: a credit).',
    },
    { name: 'past_due_balance', meaning: 'Part of the open balance whose due date is before today.' },
    AS_OF,
  ],
  example: `select account_name, property_name, count(*) as leases, sum(monthly_charges) as monthly_charges,
       sum(past_due_balance) as past_due
  from reporting.rent_roll
 where not is_other_income
 group by account_id, account_name, property_id, property_name
 order by account_name, property_name;`,
  query: `
    select l.account_id,
           a.name as account_name,
           l.property_id,
           p.property_name,
           l.lease_id,
           l.unit_id,
           l.unit_number,
           l.building_name,
           l.floor_plan_name,
           spaces.unit_spaces,
           r.customer_id as primary_customer_id,
           r.name as primary_resident,
           l.lease_status,
           l.is_month_to_month,
           coalesce(l.is_other_income, false) as is_other_income,
           l.move_in_date,
           l.move_out_date,
           ci.start_date as lease_start_date,
           ci.end_date as lease_end_date,
           coalesce(charges.amount, 0)::numeric(14,2) as monthly_charges,
           coalesce(charges.rent, 0)::numeric(14,2) as rent,
           (coalesce(charges.amount, 0) - coalesce(charges.rent, 0))::numeric(14,2) as other_monthly_charges,
           coalesce(deposit.held, 0)::numeric(14,2) as deposit_held,
           coalesce(ar.open_balance, 0)::numeric(14,2) as open_balance,
           coalesce(ar.past_due_balance, 0)::numeric(14,2) as past_due_balance,
           ${TODAY} as as_of_date
      from public.leases l
     ${accountDay('l')}
      ${accountNameJoin('l')}
      ${propertyNameJoin('l')}
      left join public.lease_intervals ci
        on ci.account_id = l.account_id and ci.lease_interval_id = l.current_lease_interval_id and ci.deleted_at is null
      left join (
        select distinct on (c.account_id, c.lease_id) c.account_id, c.lease_id, c.customer_id, ${CUSTOMER_NAME} as name
          from public.lease_customers c
         where c.deleted_at is null
         order by c.account_id, c.lease_id, ${PRIMARY_FIRST}
      ) r on r.account_id = l.account_id and r.lease_id = l.lease_id
      left join (
        select s.account_id, s.lease_id, string_agg(s.unit_space, ', ' order by s.unit_space) as unit_spaces
          from public.lease_unit_spaces s
         where s.deleted_at is null
         group by s.account_id, s.lease_id
      ) spaces on spaces.account_id = l.account_id and spaces.lease_id = l.lease_id
      left join (
        select sc.account_id, sc.lease_id, sc.lease_interval_id, sum(sc.amount) as amount,
               sum(sc.amount) filter (where sc.charge_type = 'Rent') as rent
          from public.lease_scheduled_charges sc${accountDay('sc')}
         where sc.deleted_at is null and sc.frequency = 'Monthly'
           and (sc.start_date is null or sc.start_date <= ${TODAY})
           and (sc.end_date is null or sc.end_date >= ${TODAY})
         group by sc.account_id, sc.lease_id, sc.lease_interval_id
      ) charges
        on charges.account_id = l.account_id and charges.lease_id = l.lease_id
       and charges.lease_interval_id = l.current_lease_interval_id
      left join (
        select t.account_id, t.lease_id,
               sum(case when t.transaction_type_id = 4 then t.amount - t.balance_due else t.amount end) as held
          from public.ar_transactions t
         where t.transaction_type_id in (4, 5)
           and t.deleted_at is null and t.is_temporary is not true and t.is_reversed is not true
         group by t.account_id, t.lease_id
      ) deposit on deposit.account_id = l.account_id and deposit.lease_id = l.lease_id
      left join (
        select t.account_id, t.lease_id, sum(t.balance_due) as open_balance,
               sum(t.balance_due) filter (where t.due_date < ${TODAY}) as past_due_balance
          from public.ar_transactions t${accountDay('t')}
         where ${OPEN_AR}
         group by t.account_id, t.lease_id
      ) ar on ar.account_id = l.account_id and ar.lease_id = l.lease_id
     where l.deleted_at is null and l.lease_status_type_id in (4, 5)`,
};
