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

/** Invoices with an amount still due. */
export const AP_OPEN_INVOICES: ReportingView = {
  name: 'ap_open_invoices',
  purpose: 'Invoices with an amount still due: vendor, property, due date and days past due.',
  notes:
    'Every invoice the source still lists whose amount due is not zero, refunds to residents included ' +
    '(flagged by invoice_type_id 20) and open credit memos (negative amounts due). ' +
    "property_id is set when all the invoice's lines are charged to one property; " +
    'property_count says how many they name. ' +
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
  ],
  example: `select vendor_name, count(*) as invoices, sum(amount_due) as due, max(days_past_due) as oldest_days_past_due
  from reporting.ap_open_invoices
 where invoice_type_id <> 20
 group by vendor_name
 order by due desc;`,
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
           ${TODAY} as as_of_date
      from public.invoices i
     ${accountDay('i')}
      ${accountNameJoin('i')}
      ${INVOICE_PROPERTY}
     where i.deleted_at is null and i.amount_due <> 0`,
};
