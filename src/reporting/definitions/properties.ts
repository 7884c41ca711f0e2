import type { ReportingView } from '../definition.js';
import { ACCOUNT, PROPERTY_ID } from './shared.js';

/**
 * The rows behind the view, made again per account (reporting_private.properties_rows), for the
 * accounts the triggers on properties, leases and invoice lines (migrations/0025_reporting_account_rows.ts)
 * note in properties_dirty.
 */
export const PROPERTY_ROWS: NonNullable<ReportingView['maintained']> = {
  view: 'properties',
  groups: 'properties_rows',
  dirty: 'properties_dirty',
  key: ['account_id'],
  log: true,
  wholeMinGroups: 20,
  noted: 'whose properties, leases or invoice lines',
  reason:
    'every view joins it, naming the properties from every lease and invoice line ' +
    'took 0.3 s on the large data set, and a run writes one account',
  insertSums(whole) {
    // The dimension first; the names leases and invoice lines give for properties it does not list.
    const only = whole ? '' : 'and account_id in (select account_id from reporting_private.properties_dirty)';
    return `
    with listed as (select * from public.properties where deleted_at is null ${only}),
    named as (
      select n.account_id, n.property_id, max(n.property_name) as property_name
        from (select account_id, property_id, property_name
                from public.leases
               where deleted_at is null ${only}
              union all
              select account_id, property_id, property_name
                from public.invoice_line_items
               where deleted_at is null and property_id is not null ${only}) n
       group by n.account_id, n.property_id
    )
    insert into reporting_private.properties_rows (
      account_id, property_id, property_name, property_type, parent_property_id, lookup_code, year_built,
      street, city, state, postal_code, country, is_disabled, ar_post_month, ap_post_month)
    select coalesce(l.account_id, n.account_id),
           coalesce(l.property_id, n.property_id),
           coalesce(l.marketing_name, n.property_name),
           l.property_type,
           l.parent_property_id,
           l.lookup_code,
           l.year_built,
           l.street,
           l.city,
           l.state,
           l.postal_code,
           l.country,
           l.is_disabled,
           l.ar_post_month,
           l.ap_post_month
      from listed l
      full join named n on n.account_id = l.account_id and n.property_id = l.property_id`;
  },
};

/** The property dimension every other view joins. */
export const PROPERTIES: ReportingView = {
  name: 'properties',
  purpose:
    'One row per property the warehouse knows, with its name, kind, parent, year built and address: ' +
    'the property dimension the other views join.',
  notes:
    'Read from the properties the source lists (getProperties, the properties stream); a property it does not list ' +
    '(the stream disabled, or a property the source no longer lists) ' +
    "is still named, by its leases and invoice lines, with the dimension's columns empty. " +
    'A property is its account and its id: join on both (two accounts may use the same property ids). ' +
    "What it cannot know: a property's past names or addresses (the source tells today's only), and a property " +
    'with neither a listing nor a lease or invoice line.',
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    {
      name: 'property_name',
      meaning:
        "The property's marketing name (for a property the source does not list: the name its leases and " +
        'invoice lines give).',
    },
    { name: 'property_type', meaning: 'Kind of property, as the source names it (Apartment, Student ...).' },
    {
      name: 'parent_property_id',
      meaning: 'The parent property, for a child property of a parent/child pair; empty otherwise.',
    },
    { name: 'lookup_code', meaning: "The property's short lookup code." },
    { name: 'year_built', meaning: 'Year the property was built.' },
    { name: 'street', meaning: 'Street address.' },
    { name: 'city', meaning: 'City.' },
    { name: 'state', meaning: 'State or province code.' },
    { name: 'postal_code', meaning: 'Postal code.' },
    { name: 'country', meaning: 'Country code.' },
    {
      name: 'is_disabled',
      meaning: 'The property is disabled at the source (its leases and invoices are not synced).',
    },
    { name: 'ar_post_month', meaning: 'The open accounts-receivable post month, its first day.' },
    { name: 'ap_post_month', meaning: 'The open accounts-payable post month, its first day.' },
  ],
  maintained: PROPERTY_ROWS,
  example: `select property_id, property_name, property_type, city, year_built
  from reporting.properties
 order by property_name;`,
  // Names read with the rows: the account's is always current.
  query: `
    select r.account_id, a.name as account_name, r.property_id, r.property_name, r.property_type,
           r.parent_property_id, r.lookup_code, r.year_built, r.street, r.city, r.state, r.postal_code,
           r.country, r.is_disabled, r.ar_post_month, r.ap_post_month
      from reporting_private.properties_rows r
      left join public.accounts a on a.account_id = r.account_id`,
};
