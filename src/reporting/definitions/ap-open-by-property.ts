import type { ReportingView } from '../definition.js';
import {
  ACCOUNT,
  accountNameJoin,
  AS_OF,
  MONEY_NOTE,
  PROPERTY_ID,
  PROPERTY_NAME,
  propertyNameJoin,
  TODAY_NOTE,
} from './shared.js';

/** ap_open_invoices' columns split per property. */
const SPLIT = [
  'amount_due',
  'retention_held',
  'open_credit',
  'owed',
  'not_yet_due',
  'days_1_30',
  'days_31_60',
  'days_61_90',
  'over_90',
] as const;

/**
 * The property's part of an invoice's column (over s): the rounded share up to and with the property
 * less the rounded share before it, so that the parts add up to the invoice's amount to the cent.
 */
const part = (column: string) =>
  `round(s.${column} * s.upto / s.whole, 2) - round(s.${column} * s.before / s.whole, 2)`;

/** Open payables per property, each invoice split by its lines. */
export const AP_OPEN_BY_PROPERTY: ReportingView = {
  name: 'ap_open_by_property',
  purpose:
    'Per property: what open invoices owe, aged like reporting.ap_open_invoices, an invoice charged to several ' +
    'properties split between them by its lines.',
  notes:
    "Sums reporting.ap_open_invoices (the same rules apply) per property of the invoices' lines. An invoice whose " +
    "lines name several properties is split by each property's share of the lines' amounts: every amount of the " +
    'invoice (amount due, retention held, open credit, owed and its buckets) in the same proportions, rounded in ' +
    'order of property id, each part the rounded share up to it less the rounded share before it, so that the ' +
    'parts add up to the invoice to the cent. ' +
    'An invoice without lines, or whose lines add up to zero, stays whole, under its property when all its lines ' +
    'name one, else under an empty property_id. Refunds to residents (invoice type 20) are in refunds_due only. ' +
    'What it cannot know: which property a payment paid for (the source applies it to the invoice), so a ' +
    "partly paid invoice's amount due is split like its total; tax, shipping and discounts are split with the " +
    'lines. ' +
    `${TODAY_NOTE} ${MONEY_NOTE}`,
  columns: [
    ...ACCOUNT,
    PROPERTY_ID,
    PROPERTY_NAME,
    AS_OF,
    {
      name: 'invoices',
      meaning: 'Open vendor invoices (and credit memos) with a part charged to the property.',
    },
    { name: 'amount_due', meaning: "Their amount due, the property's part." },
    { name: 'retention_held', meaning: 'Of amount_due, retention still held.' },
    { name: 'open_credit', meaning: 'Of amount_due, open credit memos (zero or negative): not owed.' },
    {
      name: 'owed',
      meaning: 'What is owed apart from retention: amount_due - retention_held - open_credit.',
    },
    { name: 'not_yet_due', meaning: 'owed not yet past due.' },
    { name: 'days_1_30', meaning: 'owed 1 to 30 days past due.' },
    { name: 'days_31_60', meaning: 'owed 31 to 60 days past due.' },
    { name: 'days_61_90', meaning: 'owed 61 to 90 days past due.' },
    { name: 'over_90', meaning: 'owed more than 90 days past due.' },
    {
      name: 'refunds_due',
      meaning: "Amount due of refunds to residents (invoice type 20), the property's part.",
    },
  ],
  example: `select property_name, owed, days_31_60 + days_61_90 + over_90 as over_30, retention_held, open_credit
  from reporting.ap_open_by_property
 order by owed desc;`,
  query: `
    with lines as (
      select li.account_id, li.invoice_id, li.property_id, sum(li.amount) as amount
        from public.invoice_line_items li
       where li.deleted_at is null and li.property_id is not null
       group by li.account_id, li.invoice_id, li.property_id
    ),
    weights as (
      select l.*,
             sum(l.amount) over (partition by l.account_id, l.invoice_id order by l.property_id) as upto,
             sum(l.amount) over (partition by l.account_id, l.invoice_id) as whole
        from lines l
    ),
    split as (
      select o.*, coalesce(w.property_id, o.property_id) as line_property_id,
             coalesce(w.upto, 1) as upto, coalesce(w.upto - w.amount, 0) as before, coalesce(w.whole, 1) as whole
        from reporting_private.ap_open_invoices o
        left join weights w on w.account_id = o.account_id and w.invoice_id = o.invoice_id and w.whole <> 0
    ),
    per_property as (
      select s.account_id, s.line_property_id as property_id, s.as_of_date,
             (count(distinct s.invoice_id) filter (where s.invoice_type_id is distinct from 20))::int as invoices,
             ${SPLIT.map(
               (column) =>
                 `coalesce(sum(${part(column)}) filter (where s.invoice_type_id is distinct from 20), 0)` +
                 `::numeric(14,2) as ${column}`,
             ).join(',\n             ')},
             coalesce(sum(${part('amount_due')}) filter (where s.invoice_type_id = 20), 0)::numeric(14,2)
               as refunds_due
        from split s
       group by s.account_id, s.line_property_id, s.as_of_date
    )
    select x.account_id,
           a.name as account_name,
           x.property_id,
           p.property_name,
           x.as_of_date,
           x.invoices,
           ${SPLIT.map((column) => `x.${column}`).join(',\n           ')},
           x.refunds_due
      from per_property x
      ${accountNameJoin('x')}
      ${propertyNameJoin('x')}`,
};
