import type { ReportingView } from '../definition.js';
import { ACCOUNT, PROPERTY_ID } from './shared.js';

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
    'A property is its account and its id: join on both (two accounts may use the same property ids).',
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
  materialized: {
    reason:
      'every view joins it, and naming the properties from every lease and invoice line ' +
      'took 0.3 s on the large data set',
    key: ['account_id', 'property_id'],
  },
  example: `select property_id, property_name, property_type, city, year_built
  from reporting.properties
 order by property_name;`,
  // The dimension first; the names leases and invoice lines give for properties it does not list.
  query: `
    with listed as (select * from public.properties where deleted_at is null),
    named as (
      select n.account_id, n.property_id, max(n.property_name) as property_name
        from (select account_id, property_id, property_name
                from public.leases
               where deleted_at is null
              union all
              select account_id, property_id, property_name
                from public.invoice_line_items
               where deleted_at is null and property_id is not null) n
       group by n.account_id, n.property_id
    )
    select coalesce(l.account_id, n.account_id) as account_id,
           a.name as account_name,
           coalesce(l.property_id, n.property_id) as property_id,
           coalesce(l.marketing_name, n.property_name) as property_name,
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
      full join named n on n.account_id = l.account_id and n.property_id = l.property_id
      left join public.accounts a on a.account_id = coalesce(l.account_id, n.account_id)`,
};
