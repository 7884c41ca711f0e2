import type { ReportingView } from '../definition.js';
import {
  ACCOUNT,
  accountNameJoin,
  INVENTORY_DAY_NOTE,
  MONEY_NOTE,
  PROPERTY_ID,
  PROPERTY_NAME,
  propertyNameJoin,
} from './shared.js';

const count = (name: string, meaning: string) => ({ name, meaning: `${meaning} (homes' unit spaces).` });

/** The box score: per property, the inventory's occupancy, vacancy, notice and rents. */
export const BOX_SCORE: ReportingView = {
  name: 'box_score',
  purpose:
    "Per property, as of the source's today: units, occupied, vacant (ready and not), on notice, pre-leased, " +
    'down and model, occupied % and leased %, average market rent against the average rent of current leases.',
  notes:
    'Counted over the unit spaces of homes in reporting.units (parking and storage left out): a space is what a ' +
    'lease holds, the unit itself for a one-space unit. ' +
    'Occupied is occupied or on notice; vacant counts vacant spaces, pre-leased or not; pre-leased counts vacant ' +
    'and on-notice spaces a future lease holds. Leased is occupied without notice, plus on notice and pre-leased, ' +
    'plus vacant and pre-leased. A status propsync does not know counts in other only. ' +
    'A property whose statuses do not say pre-leased is read with the Future leases of the warehouse. ' +
    "What it cannot know: a past day's box score (the source gives today's statuses only), nor what a status " +
    'propsync does not know means (it counts in other). ' +
    `${INVENTORY_DAY_NOTE} ${MONEY_NOTE}`,
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    PROPERTY_NAME,
    {
      name: 'as_of_date',
      meaning:
        "The source's today of the last sync that read the unit inventory (reporting.today() before any).",
    },
    count('total_units', 'Units'),
    count('occupied', 'Occupied, on notice or not'),
    count('occupied_no_notice', 'Occupied without notice'),
    count('on_notice', 'Occupied, the resident on notice'),
    count('vacant', 'Vacant, pre-leased or not'),
    count('vacant_ready', 'Vacant and made ready'),
    count('vacant_not_ready', 'Vacant and not made ready yet'),
    count('preleased', 'Vacant or on notice, and a future lease holds it'),
    count('down', 'Down (out of service)'),
    count('model', 'Model or administrative units'),
    count('other', 'With a status propsync does not know'),
    { name: 'occupied_percent', meaning: 'occupied / total_units in percent, one decimal.' },
    {
      name: 'leased_percent',
      meaning: 'Leased spaces / total_units in percent, one decimal (see the notes).',
    },
    { name: 'avg_market_rent', meaning: "Average market rent of the homes' spaces." },
    { name: 'avg_lease_rent', meaning: 'Average monthly rent of the current leases holding them.' },
    {
      name: 'rent_gap',
      meaning: 'avg_market_rent minus avg_lease_rent: positive when the market asks more than leases pay.',
    },
  ],
  example: `select property_name, total_units, occupied, vacant, on_notice, preleased, occupied_percent, leased_percent
  from reporting.box_score
 order by property_name;`,
  query: `
    select b.account_id,
           a.name as account_name,
           b.property_id,
           p.property_name,
           b.as_of_date,
           b.total_units,
           b.occupied_no_notice + b.on_notice as occupied,
           b.occupied_no_notice,
           b.on_notice,
           b.vacant,
           b.vacant_ready,
           b.vacant - b.vacant_ready as vacant_not_ready,
           b.preleased,
           b.down,
           b.model,
           b.other,
           round(100.0 * (b.occupied_no_notice + b.on_notice) / nullif(b.total_units, 0), 1) as occupied_percent,
           round(100.0 * (b.occupied_no_notice + b.preleased) / nullif(b.total_units, 0), 1) as leased_percent,
           b.avg_market_rent,
           b.avg_lease_rent,
           (b.avg_market_rent - b.avg_lease_rent)::numeric(14,2) as rent_gap
      from (
        select u.account_id,
               u.property_id,
               max(u.as_of_date) as as_of_date,
               count(*)::int as total_units,
               count(*) filter (where u.status_category = 'occupied')::int as occupied_no_notice,
               count(*) filter (where u.status_category = 'notice')::int as on_notice,
               count(*) filter (where u.status_category = 'vacant')::int as vacant,
               count(*) filter (where u.status_category = 'vacant' and u.is_ready)::int as vacant_ready,
               count(*) filter (where u.status_category in ('vacant', 'notice') and u.is_preleased)::int as preleased,
               count(*) filter (where u.status_category = 'down')::int as down,
               count(*) filter (where u.status_category in ('model', 'admin'))::int as model,
               count(*) filter (where u.status_category = 'other')::int as other,
               avg(u.market_rent)::numeric(14,2) as avg_market_rent,
               avg(u.lease_rent)::numeric(14,2) as avg_lease_rent
          from reporting_private.units u
         where not u.is_other_income
         group by u.account_id, u.property_id
      ) b
      ${accountNameJoin('b')}
      ${propertyNameJoin('b')}`,
};
