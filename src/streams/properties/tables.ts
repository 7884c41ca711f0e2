import {
  bigint,
  boolean,
  date,
  defineSourceTable,
  integer,
  text,
  type RowsOf,
} from '../../warehouse/schema.js';

/** The table of the properties stream: the property dimension, one row per property the source lists. */

export const PROPERTIES = defineSourceTable({
  name: 'properties',
  meaning: 'One row per property the source lists (getProperties): the property dimension.',
  key: ['property_id'],
  sourceHash: true,
  columns: {
    property_id: bigint("The property's id.").notNull(),
    marketing_name: text("The property's marketing name."),
    property_type: text('Kind of property, as the source names it (Apartment, Student ...).'),
    is_disabled: boolean('The property is disabled at the source (its leases and invoices are not synced).'),
    street: text('Street address.'),
    city: text('City.'),
    state: text('State or province code.'),
    postal_code: text('Postal code.'),
    country: text('Country code.'),
  },
  addedColumns: {
    parent_property_id: bigint(
      'The parent property, for a child property of a parent/child pair (ParentPropertyID); null otherwise.',
    ),
    lookup_code: text("The property's short lookup code (LookupCode)."),
    year_built: integer('Year the property was built (YearBuilt).'),
    ar_post_month: date('The open accounts-receivable post month (PostMonths.ArPostMonth), its first day.'),
    ap_post_month: date('The open accounts-payable post month (PostMonths.ApPostMonth), its first day.'),
  },
});

export const PROPERTY_TABLES = [PROPERTIES] as const;

/** The rows one property record becomes. */
export type PropertyRows = RowsOf<typeof PROPERTY_TABLES>;
