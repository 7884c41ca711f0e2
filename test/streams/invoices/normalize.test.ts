import { describe, expect, it } from 'vitest';
import { normalizeInvoice } from '../../../src/streams/invoices/normalize.js';

describe('invoice normalization', () => {
  const invoice = {
    id: '700',
    invoiceNumber: '000123',
    invoiceTypeId: '5',
    invoiceType: 'Standard',
    date: '10/01/2026',
    postDate: '10/02/2026',
    postMonth: '10/01/2026',
    dueDate: '10/31/2026',
    postStatus: 'Posted',
    isPosted: 't',
    isOnHold: 'false',
    isExported: '1',
    subTotal: '$2500.00',
    taxAmount: '0.00',
    shippingAmount: '0.00',
    discountAmount: '$-25.00',
    retention: '0.00',
    amount: '$2475.00',
    amountDue: '$-2500.00',
    vendor: { id: '31', name: 'Acme Plumbing', locationName: 'Main' },
    lineitem: {
      lineitem: {
        id: '9',
        description: 'Repair',
        quantity: '1',
        rate: '2500.00',
        amount: '$2500.00',
        amountDue: '0',
        property: { id: '100001', name: 'Aspen Ridge' },
      },
    },
    invoicePayments: {
      invoicePayment: [
        {
          paymentId: '5',
          paymentNumber: '1001',
          paymentDate: '10/05/2026',
          paymentAmount: '100.00',
          postMonth: '10/01/2026',
          isReversed: 'f',
        },
      ],
    },
    voidedPayments: {
      voidedPayment: {
        paymentId: '4',
        paymentNumber: '1000',
        paymentAmount: '50.00',
        paymentDate: '10/03/2026',
        voidedOn: '10/04/2026',
        voidReason: 'Wrong amount',
      },
    },
  };

  it('reads r1 line items, $ money, and every boolean encoding', () => {
    const { rows } = normalizeInvoice(invoice);
    expect(rows.invoices?.[0]).toMatchObject({
      invoice_number: '000123',
      is_posted: true,
      is_on_hold: false,
      is_exported: true,
      amount: '2475.00',
      amount_due: '-2500.00',
      discount_amount: '-25.00',
      vendor_id: 31,
    });
    expect(rows.invoice_line_items).toEqual([
      expect.objectContaining({ line_item_id: 9, invoice_id: 700, property_id: 100001, amount: '2500.00' }),
    ]);
    expect(rows.invoice_payments).toEqual([
      expect.objectContaining({ payment_id: 5, amount: '100.00', is_reversed: false }),
    ]);
    expect(rows.voided_payments).toEqual([
      expect.objectContaining({ payment_id: 4, voided_on: '2026-10-04', void_reason: 'Wrong amount' }),
    ]);
  });
});
