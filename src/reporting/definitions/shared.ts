import type { ReportingColumn } from '../definition.js';

/**
 * Words and SQL that several views' definitions share. A change here changes the checksum of
 * every view that uses it, so `propsync migrate` replaces each of them.
 */

export const ACCOUNT_ID: ReportingColumn = {
  name: 'account_id',
  meaning:
    'The source account the row belongs to (accounts[].id of the configuration; default in the one-account form). ' +
    'Property, lease and invoice ids are unique within an account only.',
};
export const ACCOUNT_NAME: ReportingColumn = {
  name: 'account_name',
  meaning:
    "The account's display name from the configuration (accounts[].name); empty when none is configured.",
};
export const ACCOUNT = [ACCOUNT_ID, ACCOUNT_NAME] as const;
export const PROPERTY_ID: ReportingColumn = {
  name: 'property_id',
  meaning: 'The property (source PropertyID).',
};
export const PROPERTY_NAME: ReportingColumn = {
  name: 'property_name',
  meaning: "The property's name (see reporting.properties).",
};
export const AS_OF: ReportingColumn = {
  name: 'as_of_date',
  meaning: "The day the answer is as of: the account's today, in its own time zone.",
};
export const TODAY_NOTE =
  "Today is the row's account's day, reporting.today(account_id): the current day in the account's time zone " +
  '(its accounts[].timeZone, written at the end of each sync), so two accounts an hour apart may be a day apart.';
export const MONEY_NOTE =
  "Money is numeric, exact to the cent, with the ledger's signs (charges positive, payments and credits negative).";
export const BUCKETS: readonly ReportingColumn[] = [
  {
    name: 'not_yet_due',
    meaning: 'Open balance not yet past due (due today or later, or without a due date).',
  },
  { name: 'days_1_30', meaning: 'Open balance 1 to 30 days past due.' },
  { name: 'days_31_60', meaning: 'Open balance 31 to 60 days past due.' },
  { name: 'days_61_90', meaning: 'Open balance 61 to 90 days past due.' },
  { name: 'over_90', meaning: 'Open balance more than 90 days past due.' },
];

/** The columns of BUCKETS, from the sums of the same names on `alias`, zero when empty. */
export const bucketColumns = (alias: string) =>
  BUCKETS.map((bucket) => `coalesce(${alias}.${bucket.name}, 0)::numeric(14,2) as ${bucket.name}`).join(
    ',\n           ',
  );

/**
 * The day of the row's account (as z.today): its own time zone (reporting_private.account_today,
 * migrations/0019_account_days.ts), or for an account no sync has written yet the default zone's
 * (z0.today). Read it as TODAY. `offset 0` keeps each day a value worked out once per account
 * (and once in all): inlined, the day's expression ran again for every row it was compared with.
 */
export const accountDay = (alias: string) => `
  left join (select account_id, today from reporting_private.account_today offset 0) z
    on z.account_id = ${alias}.account_id
  cross join (select reporting.today() as today offset 0) z0`;

/** The row's account's today, after accountDay. */
export const TODAY = 'coalesce(z.today, z0.today)';

/** Leases the source no longer lists, and other-income leases (parking, storage), are not homes. */
export const RESIDENTIAL = 'l.deleted_at is null and l.is_other_income is not true';

/**
 * An application rather than a resident's lease (on the lease as l): Applicant, Cancelled or Future, so no
 * resident has moved in; by status id, or by the status's name where the source sends no id.
 */
export const APPLICATION_LEASE =
  "coalesce(l.lease_status_type_id in (1, 2, 3), l.lease_status ~* '^(applicant|cancelled|future)', false)";

/** What a delinquency column leaves out, in words. */
export const APPLICATION_NOTE =
  'Applications are leases in status Applicant, Cancelled (cancelled applications, "Cancelled Before ' +
  'Move-In" among them) or Future: what they owe (application and admin fees) is not residents\' delinquency.';

/** The open part of the ledger: what the partial index `ar_transactions_open_idx` holds. */
export const OPEN_AR =
  't.deleted_at is null and t.balance_due <> 0 and t.is_temporary is not true and t.is_reversed is not true';

/** The account's name (as a), for the row's account (alias.account_id). */
export const accountNameJoin = (alias: string) =>
  `left join public.accounts a on a.account_id = ${alias}.account_id`;

/** A property's name (as p), for the row's account and property. */
export const propertyNameJoin = (alias: string, property = `${alias}.property_id`) =>
  `left join reporting_private.properties p on p.account_id = ${alias}.account_id and p.property_id = ${property}`;

/**
 * An invoice's property (as ip) when all its live lines are charged to one property, with its
 * name and how many properties the lines name. The name is looked up per invoice (by the unique
 * index of properties): a join left to the planner rebuilt a hash of all properties per invoice.
 */
export const INVOICE_PROPERTY = `
  left join lateral (
    select x.property_id, x.property_count,
           (select p.property_name
              from reporting_private.properties p
             where p.account_id = i.account_id and p.property_id = x.property_id) as property_name
      from (select case when count(distinct li.property_id) = 1 then min(li.property_id) end as property_id,
                   count(distinct li.property_id)::int as property_count
              from public.invoice_line_items li
             where li.account_id = i.account_id and li.invoice_id = i.invoice_id and li.deleted_at is null) x
  ) ip on true`;

/** Which of a lease's customers is the primary one: type Primary, then relationship Primary, then the lowest id. */
export const PRIMARY_FIRST =
  "(c.customer_type = 'Primary') desc nulls last, (c.relationship_name = 'Primary') desc nulls last, c.customer_id";

/** A customer's full name, from its parts when the source sends no full name. */
export const CUSTOMER_NAME = "coalesce(c.name_full, nullif(concat_ws(' ', c.first_name, c.last_name), ''))";

/** The lease's primary customer, looked up for one lease (as r). */
export const PRIMARY_RESIDENT = `
  left join lateral (
    select c.customer_id, ${CUSTOMER_NAME} as name
      from public.lease_customers c
     where c.account_id = l.account_id and c.lease_id = l.lease_id and c.deleted_at is null
     order by ${PRIMARY_FIRST}
     limit 1
  ) r on true`;
/**
 * The source's today of the unit inventory per account (as d.today): that of the last run that read
 * it, or the account's own today when none has.
 */
export const INVENTORY_DAY = `
  left join (
    select r.account_id, max(r.source_today) as today
      from public.sync_runs r
     where 'units' = any(r.streams) and r.source_today is not null
       and r.status in ('succeeded', 'partial', 'incomplete')
     group by r.account_id
  ) synced on synced.account_id = s.account_id
  ${accountDay('s')}
  cross join lateral (select coalesce(synced.today, ${TODAY}) as today) d`;

export const INVENTORY_DAY_NOTE =
  "The inventory is as of the source's today of the last sync that read it (as_of_date; the account's " +
  "today, reporting.today(account_id), before any did): the source gives today's state only.";
