import type { ReportingView } from '../definition.js';
import { ACCOUNT, accountNameJoin, INVOICE_PROPERTY, MONEY_NOTE, PROPERTY_NAME } from './shared.js';

/** Voided vendor payments. */
export const VOIDED_PAYMENTS_LOG: ReportingView = {
  name: 'voided_payments_log',
  purpose: 'Each voided payment with its invoice, vendor, property, amount, dates and reason.',
  notes:
    'Voided payments and invoices the source no longer lists are left out. ' +
    "property_id is set when all the invoice's lines are charged to one property. " +
    'What it cannot know: a voided payment the source stops listing on its invoice. ' +
    MONEY_NOTE,
  columns: [
    ...ACCOUNT,
    { name: 'invoice_id', meaning: 'The invoice the payment was for.' },
    { name: 'invoice_number', meaning: "The vendor's invoice number." },
    { name: 'invoice_type', meaning: "The invoice type's name." },
    { name: 'vendor_id', meaning: 'The vendor.' },
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
    { name: 'payment_id', meaning: 'The voided payment.' },
    { name: 'payment_number', meaning: 'Its check or payment number.' },
    { name: 'amount', meaning: 'The amount of the voided payment.' },
    { name: 'payment_date', meaning: 'When it was paid.' },
    { name: 'voided_on', meaning: 'When it was voided.' },
    { name: 'voided_by', meaning: 'Who voided it.' },
    { name: 'void_reason', meaning: 'Why it was voided.' },
  ],
  example: `select voided_on, vendor_name, invoice_number, payment_number, amount, void_reason
  from reporting.voided_payments_log
 where voided_on >= reporting.today() - 30
 order by voided_on desc;`,
  query: `
    select v.account_id,
           a.name as account_name,
           v.invoice_id,
           i.invoice_number,
           i.invoice_type,
           i.vendor_id,
           i.vendor_name,
           ip.property_id,
           ip.property_name,
           v.payment_id,
           v.payment_number,
           v.amount,
           v.payment_date,
           v.voided_on,
           v.voided_by,
           v.void_reason
      from public.voided_payments v
      join public.invoices i on i.account_id = v.account_id and i.invoice_id = v.invoice_id and i.deleted_at is null
      ${accountNameJoin('v')}
      ${INVOICE_PROPERTY}
     where v.deleted_at is null`,
};
