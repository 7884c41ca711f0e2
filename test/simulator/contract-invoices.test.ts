/** Contract: getInvoices, every parameter and default, both versions (source-api.md section 6). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/server/simulator.js';
import { INVOICE, PROPERTY_A, PROPERTY_B } from './fixtures/dataset.js';
import { asList, call, idsOf, invoicesOf, startFixtureSimulator, type Params } from './support.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startFixtureSimulator();
});
afterAll(async () => {
  await sim.close();
});

async function invoices(params: Params, version = 'r2', format: 'json' | 'xml' = 'json'): Promise<any[]> {
  const reply = await call(sim, { method: 'getInvoices', version, format, params });
  expect(reply.body.response.error).toBeUndefined();
  return invoicesOf(reply);
}

async function ids(params: Params, version = 'r2'): Promise<number[]> {
  return idsOf(await invoices(params, version)).map(Number);
}

async function error(params: Params, version = 'r2'): Promise<{ code: number; message: string }> {
  const reply = await call(sim, { method: 'getInvoices', version, params });
  expect(reply.status).toBe(200);
  return reply.body.response.error;
}

const VISIBLE = [
  INVOICE.standard,
  INVOICE.catalog,
  INVOICE.creditMemo,
  INVOICE.jobCost,
  INVOICE.catalogJobCost,
  INVOICE.twoProperties,
  INVOICE.voided,
  INVOICE.otherVendor,
];

describe('getInvoices defaults', () => {
  it('leaves exported invoices and customer refunds out by default, in id order', async () => {
    expect(await ids({})).toEqual(VISIBLE);
    expect(await ids({ includeExported: '0', customerRefunds: '0' })).toEqual(VISIBLE);
  });

  it('includeExported=1 adds exported invoices; customerRefunds=1 adds refunds', async () => {
    expect(await ids({ includeExported: '1' })).toContain(INVOICE.exported);
    expect(await ids({ includeExported: '1' })).not.toContain(INVOICE.refund);
    expect(await ids({ customerRefunds: '1' })).toContain(INVOICE.refund);
    expect(await ids({ customerRefunds: '1', includeExported: '1' })).toHaveLength(10);
    const exported = (await invoices({ ids: String(INVOICE.exported), includeExported: '1' }))[0];
    expect(exported.isExported).toBe(1);
  });

  it('sends voidedPayments only with includeVoidedPayments=1', async () => {
    const plain = (await invoices({ ids: String(INVOICE.voided) }))[0];
    expect(plain).not.toHaveProperty('voidedPayments');
    expect(plain).toHaveProperty('invoicePayments');
    const voided = (await invoices({ ids: String(INVOICE.voided), includeVoidedPayments: '1' }))[0];
    expect(asList(voided.voidedPayments.voidedPayment)[0]).toEqual({
      paymentId: expect.any(String),
      paymentNumber: expect.any(String),
      paymentAmount: '2500.00',
      paymentDate: '05/01/2024',
      voidedOn: '06/08/2024',
      voidedBy: 'clerk',
      voidReason: 'Wrong amount',
    });
  });
});

describe('getInvoices filters', () => {
  it('ids and invoiceNumber', async () => {
    expect(await ids({ ids: `${INVOICE.catalog}, ${INVOICE.standard}` })).toEqual([
      INVOICE.standard,
      INVOICE.catalog,
    ]);
    expect(await ids({ invoiceNumber: `INV-${INVOICE.jobCost}` })).toEqual([INVOICE.jobCost]);
  });

  it('vendorIds in r2, vendorId in r1', async () => {
    expect(await ids({ vendorIds: '701' })).toEqual([INVOICE.otherVendor]);
    expect(await ids({ vendorIds: '700, 701' })).toEqual(VISIBLE);
    expect(await ids({ vendorId: '701' }, 'r1')).toEqual([INVOICE.otherVendor]);
    expect((await error({ vendorId: '701' }, 'r2')).message).toContain("'vendorId'");
    expect((await error({ vendorIds: '701' }, 'r1')).message).toContain("'vendorIds'");
  });

  it('propertyIds: any line item at one of the properties', async () => {
    expect(await ids({ propertyIds: String(PROPERTY_B) })).toEqual([
      INVOICE.twoProperties,
      INVOICE.otherVendor,
    ]);
    expect(await ids({ propertyIds: `${PROPERTY_A},${PROPERTY_B}` })).toEqual(VISIBLE);
    expect((await error({ propertyIds: '999999' })).code).toBe(302);
  });

  it('fromDate/toDate: post date, inclusive', async () => {
    expect(await ids({ fromDate: '06/01/2024', toDate: '06/02/2024' })).toEqual([
      INVOICE.jobCost,
      INVOICE.catalogJobCost,
    ]);
    expect(await ids({ fromDate: '05/25/2024', toDate: '05/25/2024' })).toEqual([INVOICE.voided]);
    expect(await ids({ toDate: '05/03/2024' })).toEqual([INVOICE.standard]);
  });

  it('paidInvoiceFromDate/ToDate: a payment applied in the window', async () => {
    expect(await ids({ paidInvoiceFromDate: '05/20/2024', paidInvoiceToDate: '05/20/2024' })).toEqual([
      INVOICE.standard,
    ]);
    expect(await ids({ paidInvoiceFromDate: '06/01/2024' })).toEqual([INVOICE.voided]);
    expect(await ids({ paidInvoiceFromDate: '05/21/2024', paidInvoiceToDate: '06/09/2024' })).toEqual([]);
  });

  it('voidedPaymentFromDate/ToDate: a payment voided in the window', async () => {
    expect(await ids({ voidedPaymentFromDate: '06/08/2024', voidedPaymentToDate: '06/08/2024' })).toEqual([
      INVOICE.voided,
    ]);
    expect(await ids({ voidedPaymentFromDate: '06/09/2024' })).toEqual([]);
  });

  it('postMonth as MM/YYYY or MM/01/YYYY', async () => {
    const may = [INVOICE.standard, INVOICE.catalog, INVOICE.creditMemo, INVOICE.voided];
    expect(await ids({ postMonth: '05/2024' })).toEqual(may);
    expect(await ids({ postMonth: '05/01/2024' })).toEqual(may);
    for (const bad of ['5/2024', '13/2024', '05/15/2024', '2024-05'])
      expect((await error({ postMonth: bad })).message).toContain("'postMonth'");
  });

  it('invoiceTypeIds', async () => {
    expect(await ids({ invoiceTypeIds: '8,18' })).toEqual([INVOICE.catalog, INVOICE.catalogJobCost]);
    expect(await ids({ invoiceTypeIds: '12' })).toEqual([INVOICE.creditMemo]);
    expect(await ids({ invoiceTypeIds: '20' })).toEqual([]);
    expect(await ids({ invoiceTypeIds: '20', customerRefunds: '1' })).toEqual([INVOICE.refund]);
  });

  it('malformed values are code 400 naming the parameter', async () => {
    const cases: [Params, string][] = [
      [{ ids: '1;2' }, 'ids'],
      [{ fromDate: '13/01/2024' }, 'fromDate'],
      [{ paidInvoiceToDate: 'yesterday' }, 'paidInvoiceToDate'],
      [{ includeVoidedPayments: 'true' }, 'includeVoidedPayments'],
      [{ invoiceTypeIds: 'five' }, 'invoiceTypeIds'],
      [{ vendorIds: '7x' }, 'vendorIds'],
    ];
    for (const [params, name] of cases) {
      const found = await error(params);
      expect(found.code).toBe(400);
      expect(found.message).toContain(`'${name}'`);
    }
  });

  it('"No records found" string for an empty result', async () => {
    const reply = await call(sim, { method: 'getInvoices', version: 'r2', params: { ids: '1' } });
    expect(reply.body.response.result).toBe('No records found with mentioned preferences.');
  });
});

describe('getInvoices versions', () => {
  const DETAIL_FIELDS = [
    'catalogItemId',
    'catalogItemName',
    'unitOfMeasure',
    'jobId',
    'jobName',
    'jobPhaseId',
    'jobPhaseName',
    'costCodeId',
    'costCodeName',
  ];

  it('r2: lineItems.lineItem with glAccount, catalog and job cost details; plain decimal money', async () => {
    const list = await invoices({ ids: `${INVOICE.catalogJobCost},${INVOICE.standard}` });
    const catalogJob = list.find((invoice) => invoice.id === String(INVOICE.catalogJobCost));
    const line = asList(catalogJob.lineItems.lineItem)[0];
    for (const field of DETAIL_FIELDS) expect(line).toHaveProperty(field);
    expect(line.glAccount).toEqual({ id: '610', name: 'Repairs', accountNumber: '6100-000' });
    expect(line.property).toEqual({
      id: String(PROPERTY_A),
      name: 'Aspen Court',
      lookupCode: `P${PROPERTY_A}`,
    });
    for (const invoice of await invoices({})) {
      for (const field of [
        'subTotal',
        'taxAmount',
        'shippingAmount',
        'discountAmount',
        'retention',
        'amount',
        'amountDue',
      ]) {
        expect(invoice[field]).toMatch(/^-?\d+\.\d{2}$/);
      }
      expect(invoice).toHaveProperty('invoiceTypeId');
      expect(invoice.vendor).toMatchObject({
        id: expect.any(String),
        name: expect.any(String),
        address: expect.any(Object),
      });
      expect(invoice.remittance).toMatchObject({
        apPaymentTypeId: expect.any(String),
        apPaymentType: expect.any(String),
      });
    }
  });

  it('r1: lineItems.lineitem without catalog, job cost or GL details; money with $ in some invoices', async () => {
    const list = await invoices(
      { includeVoidedPayments: '1', includeExported: '1', customerRefunds: '1' },
      'r1',
    );
    expect(list).toHaveLength(10);
    let dollars = 0;
    for (const invoice of list) {
      expect(invoice.lineItems).not.toHaveProperty('lineItem');
      for (const line of asList(invoice.lineItems.lineitem)) {
        for (const field of [...DETAIL_FIELDS, 'glAccount']) expect(line).not.toHaveProperty(field);
        expect(line.amount).toMatch(/^\$?-?\d+\.\d{2}$/);
      }
      expect(invoice.amount).toMatch(/^\$?-?\d+\.\d{2}$/);
      if (invoice.amount.startsWith('$')) {
        dollars += 1;
        for (const field of ['subTotal', 'taxAmount', 'amountDue'])
          expect(invoice[field].startsWith('$')).toBe(true);
        expect(asList(invoice.lineItems.lineitem)[0].amount.startsWith('$')).toBe(true);
      }
    }
    expect(dollars).toBeGreaterThan(0);
    expect(dollars).toBeLessThan(list.length);
    const memo = list.find((invoice) => invoice.id === String(INVOICE.creditMemo));
    expect(memo.amount).toMatch(/^\$?-2500\.00$/);
  });

  it('r1 writes each invoice the same way on every call, in both formats', async () => {
    const json = await invoices({}, 'r1');
    const again = await invoices({}, 'r1');
    expect(again).toEqual(json);
    const xml = await invoices({}, 'r1', 'xml');
    expect(xml.map((invoice) => invoice.amount)).toEqual(json.map((invoice) => invoice.amount));
  });

  it('booleans keep each field\u2019s own encoding', async () => {
    const invoice = (await invoices({ ids: String(INVOICE.standard) }))[0];
    expect(invoice.isPosted).toBe('1');
    expect(invoice.isOnHold).toBe('f');
    expect(invoice.isExported).toBe(0);
    expect(invoice.postMonth).toBe('05/01/2024');
  });
});
