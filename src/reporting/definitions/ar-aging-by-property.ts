import type { ReportingView } from '../definition.js';
import { ACCOUNT, AS_OF, BUCKETS, MONEY_NOTE, PROPERTY_ID, PROPERTY_NAME, TODAY_NOTE } from './shared.js';

/** ar_aging summed per property. */
export const AR_AGING_BY_PROPERTY: ReportingView = {
  name: 'ar_aging_by_property',
  purpose: 'Per property: the AR aging buckets of reporting.ar_aging summed over its leases.',
  notes: `Sums reporting.ar_aging; the same rules apply. ${TODAY_NOTE} ${MONEY_NOTE}`,
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    PROPERTY_NAME,
    AS_OF,
    { name: 'leases', meaning: 'Leases with open AR.' },
    { name: 'open_items', meaning: 'Open AR transactions.' },
    { name: 'balance', meaning: 'Total open balance.' },
    ...BUCKETS,
  ],
  example: `select property_name, balance, not_yet_due, days_1_30, days_31_60, days_61_90, over_90
  from reporting.ar_aging_by_property
 order by balance desc;`,
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
           sum(over_90)::numeric(14,2) as over_90
      from reporting_private.ar_aging
     group by account_id, account_name, property_id, property_name, as_of_date`,
};
