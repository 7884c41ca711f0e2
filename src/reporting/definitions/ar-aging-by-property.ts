import type { ReportingView } from '../definition.js';
import {
  ACCOUNT,
  APPLICATION_NOTE,
  AS_OF,
  BUCKETS,
  MONEY_NOTE,
  PROPERTY_ID,
  PROPERTY_NAME,
  TODAY_NOTE,
} from './shared.js';

/** A sum of reporting.ar_aging's column over residents' leases. */
const resident = (column: string) =>
  `coalesce(sum(${column}) filter (where not is_application), 0)::numeric(14,2)`;

/** ar_aging summed per property. */
export const AR_AGING_BY_PROPERTY: ReportingView = {
  name: 'ar_aging_by_property',
  purpose: 'Per property: the AR aging buckets of reporting.ar_aging summed over its leases.',
  notes:
    'Sums reporting.ar_aging; the same rules apply. The buckets sum every lease, applications and credits ' +
    "included; the resident_ columns at the end are residents' delinquency: leases that are not applications, " +
    'their past-due charges without credits netted against them, and their credits apart. ' +
    'What it cannot know: the position at an earlier day (reporting.now only moves the buckets; see ' +
    'reporting.ar_aging_as_of). ' +
    `${APPLICATION_NOTE} ${TODAY_NOTE} ${MONEY_NOTE}`,
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    PROPERTY_NAME,
    AS_OF,
    { name: 'leases', meaning: 'Leases with open AR.' },
    { name: 'open_items', meaning: 'Open AR transactions.' },
    { name: 'balance', meaning: 'Total open balance.' },
    ...BUCKETS,
    { name: 'resident_leases', meaning: 'Leases with open AR that are not applications.' },
    {
      name: 'resident_past_due',
      meaning: "Residents' open charges past due (applications and credits left out).",
    },
    { name: 'resident_past_due_1_30', meaning: 'Of resident_past_due, 1 to 30 days past due.' },
    { name: 'resident_past_due_31_60', meaning: 'Of resident_past_due, 31 to 60 days past due.' },
    { name: 'resident_past_due_61_90', meaning: 'Of resident_past_due, 61 to 90 days past due.' },
    { name: 'resident_past_due_over_90', meaning: 'Of resident_past_due, more than 90 days past due.' },
    {
      name: 'resident_open_credits',
      meaning: "Residents' open credits (negative balances), zero or negative, not netted against past due.",
    },
    {
      name: 'application_leases',
      meaning: 'Applications (Applicant, Cancelled or Future leases) with open AR.',
    },
    {
      name: 'application_balance',
      meaning: 'Open balance of applications (fees of cancelled applications mostly), credits netted.',
    },
  ],
  example: `select property_name, resident_past_due, resident_past_due_over_90, resident_open_credits,
       application_balance
  from reporting.ar_aging_by_property
 order by resident_past_due desc;`,
  query: `
    select account_id,
           account_name,
           property_id,
           property_name,
           as_of_date,
           count(*)::int as leases,
           sum(open_items)::int as open_items,
           sum(balance)::numeric(14,2) as balance,
           sum(not_yet_due)::numeric(14,2) as not_yet_due,
           sum(days_1_30)::numeric(14,2) as days_1_30,
           sum(days_31_60)::numeric(14,2) as days_31_60,
           sum(days_61_90)::numeric(14,2) as days_61_90,
           sum(over_90)::numeric(14,2) as over_90,
           (count(*) filter (where not is_application))::int as resident_leases,
           ${resident('past_due')} as resident_past_due,
           ${resident('past_due_1_30')} as resident_past_due_1_30,
           ${resident('past_due_31_60')} as resident_past_due_31_60,
           ${resident('past_due_61_90')} as resident_past_due_61_90,
           ${resident('past_due_over_90')} as resident_past_due_over_90,
           ${resident('open_credits')} as resident_open_credits,
           (count(*) filter (where is_application))::int as application_leases,
           coalesce(sum(balance) filter (where is_application), 0)::numeric(14,2) as application_balance
      from reporting_private.ar_aging
     group by account_id, account_name, property_id, property_name, as_of_date`,
};
