import type { ReportingView } from '../definition.js';
import {
  ACCOUNT,
  accountNameJoin,
  AS_OF,
  INVOICE_PROPERTY,
  MONEY_NOTE,
  PROPERTY_NAME,
  TODAY_NOTE,
  accountDay,
  TODAY,
} from './shared.js';

/** What the invoice owes apart from retention (positive amounts due only), as SQL over i and h. */
const OWED = 'greatest(i.amount_due, 0) - h.retention_held';
/** The owed amount when the invoice is the given days past due, else zero. */
const owedIf = (days: string) =>
  `case when ${TODAY} - i.due_date ${days} then ${OWED} else 0 end::numeric(14,2)`;

/** Invoices with an amount still due. */
export const AP_OPEN_INVOICES: ReportingView = {
  name: 'ap_open_invoices',
  purpose: 'Invoices with an amount still due: vendor, property, due date and days past due.',
  notes:
    'Every invoice the source still lists whose amount due is not zero, refunds to residents included ' +
    '(flagged by invoice_type_id 20) and open credit memos (negative amounts due). ' +
    'The columns at the end age what is owed like reporting.ar_aging: owed is the amount due less the ' +
    'retention still held (retention_held, paid on its own terms after the work is accepted, so not aged by ' +
    "the invoice's due date), in the bucket of today minus the due date; a credit memo's negative amount due " +
    'is open_credit, never in the buckets nor owed, however old. So amount_due = owed + retention_held + ' +
    'open_credit. ' +
    "property_id is set when all the invoice's lines are charged to one property; " +
    'property_count says how many they name; reporting.ap_open_by_property splits an invoice of several ' +
    'properties between them by its lines. ' +
    'What it cannot know: when retention falls due (the source sends its amount, not its terms), nor what was ' +
    'open at an earlier day. ' +
    `${TODAY_NOTE} ${MONEY_NOTE}`,
  columns: [
    ...ACCOUNT,
    { name: 'invoice_id', meaning: 'The invoice.' },
    { name: 'invoice_number', meaning: "The vendor's invoice number." },
    {
      name: 'invoice_type_id',
      meaning: 'Invoice type: 5 Standard, 8 Catalog, 12 Credit Memo, 17/18 Job Cost, 20 Customer Refund.',
    },
    { name: 'invoice_type', meaning: "The invoice type's name." },
    { name: 'vendor_id', meaning: 'The vendor (for a customer refund, the resident).' },
    {
      name: 'vendor_name',
      meaning: "The vendor's name (a resident's, on a customer refund).",
      from: 'invoices.vendor_name',
    },
    {
      name: 'property_id',
      meaning: "The property all the invoice's lines are charged to; empty when they name several.",
    },
    PROPERTY_NAME,
    { name: 'property_count', meaning: "How many properties the invoice's lines are charged to." },
    { name: 'invoice_date', meaning: "The invoice's date." },
    { name: 'post_date', meaning: 'The day it was posted.' },
    { name: 'post_month', meaning: 'Its accounting month, as the first day.' },
    { name: 'due_date', meaning: 'The day payment is due.' },
    { name: 'post_status', meaning: 'Posting status (Posted, On Hold ...).' },
    { name: 'is_on_hold', meaning: 'Payment is on hold.' },
    { name: 'amount', meaning: "The invoice's total." },
    { name: 'amount_due', meaning: 'What is still unpaid.' },
    { name: 'days_past_due', meaning: 'Days since the due date (0 when not yet due).' },
    AS_OF,
    {
      name: 'retention_held',
      meaning:
        "The part of the amount due that is the invoice's retention (at most its retention), 0 for credits.",
    },
    {
      name: 'open_credit',
      meaning: "An open credit memo's (or negative invoice's) amount due, zero or negative: not owed.",
    },
    {
      name: 'owed',
      meaning: 'What is owed apart from retention: amount_due - retention_held, 0 for credits.',
    },
    {
      name: 'not_yet_due',
      meaning: 'owed when not yet past due (due today or later, or without a due date).',
    },
    { name: 'days_1_30', meaning: 'owed when 1 to 30 days past due.' },
    { name: 'days_31_60', meaning: 'owed when 31 to 60 days past due.' },
    { name: 'days_61_90', meaning: 'owed when 61 to 90 days past due.' },
    { name: 'over_90', meaning: 'owed when more than 90 days past due.' },
  ],
  example: `select vendor_name, sum(owed) as owed, sum(days_31_60 + days_61_90 + over_90) as over_30,
       sum(retention_held) as retention, sum(open_credit) as credits
  from reporting.ap_open_invoices
 where invoice_type_id <> 20
 group by vendor_name
 order by owed desc;`,
  query: `
    select i.account_id,
           a.name as account_name,
           i.invoice_id,
           i.invoice_number,
           i.invoice_type_id,
           i.invoice_type,
           i.vendor_id,
           i.vendor_name,
           ip.property_id,
           ip.property_name,
           ip.property_count,
           i.invoice_date,
           i.post_date,
           i.post_month,
           i.due_date,
           i.post_status,
           i.is_on_hold,
           i.amount,
           i.amount_due,
           greatest(${TODAY} - i.due_date, 0) as days_past_due,
           ${TODAY} as as_of_date,
           h.retention_held,
           least(i.amount_due, 0)::numeric(14,2) as open_credit,
           (${OWED})::numeric(14,2) as owed,
           case when i.due_date is null or i.due_date >= ${TODAY} then ${OWED} else 0 end::numeric(14,2)
             as not_yet_due,
           ${owedIf('between 1 and 30')} as days_1_30,
           ${owedIf('between 31 and 60')} as days_31_60,
           ${owedIf('between 61 and 90')} as days_61_90,
           ${owedIf('> 90')} as over_90
      from public.invoices i
     ${accountDay('i')}
      ${accountNameJoin('i')}
      ${INVOICE_PROPERTY}
      cross join lateral (
        select least(greatest(coalesce(i.retention, 0), 0), greatest(i.amount_due, 0))::numeric(14,2) as retention_held
      ) h
     where i.deleted_at is null and i.amount_due <> 0`,
};
