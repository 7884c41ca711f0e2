/**
 * Feature census of a data set for the tests: which statuses, kinds of records and kinds of
 * activity it holds, counted.
 */
import { dayFromMdy } from '../../../src/simulator/data/calendar.js';
import type { SimDataset } from '../../../src/simulator/data/model.js';
import { AR_CODES } from '../../../src/simulator/data/reference.js';

/** Counts of every feature the data set must show. */
export function census(ds: SimDataset): Record<string, number> {
  const c: Record<string, number> = {};
  const add = (k: string, n = 1): void => {
    c[k] = (c[k] ?? 0) + n;
  };
  for (const l of ds.leases) {
    add(`status${l._status}`);
    if (l.unitSpaces.unitSpace.length > 1) add('multiSpace');
    if (l.isOtherIncomeLease === 't') add('otherIncome');
    if ((l.leaseHistory?.leaseInterval.length ?? 0) >= 1) add('withHistory');
    if ((l.leaseHistory?.leaseInterval.length ?? 0) >= 2) add('historyTwoPlus');
    if (l.isMonthToMonth === 1) add('monthToMonth');
    if (l.transferDate) add('transfer');
    if (l.moveOutReason) add('moveOutReason');
    if (l.pets) add('pets');
    if (l.specials) add('specials');
    for (const i of [...l.leaseIntervals.leaseInterval, ...(l.leaseHistory?.leaseInterval ?? [])])
      add(`intervalType${i.leaseIntervalTypeId}`);
    for (const cu of l.customers.customer) {
      if (cu.addresses) add('customerAddresses');
      if (cu.phones) add('customerPhones');
      if (cu.customerContacts) add('customerContacts');
    }
    for (const s of l.scheduledCharges?.scheduledCharge ?? [])
      if (s.applicationId !== undefined) add('applicationCharges');
    for (const a of l.leaseActivities?.leaseActivity ?? []) add(`activity:${String(a.eventType)}`);
    const moveOut = l.moveOutDate ? dayFromMdy(l.moveOutDate) : undefined;
    for (const t of l.arTransactions?.arTransaction ?? []) {
      if (t.isTemporary === 1) add('arTemporary');
      if (t.isReversed === 1) add('arReversed');
      if (t.amount < 0 && t.arCodeId === AR_CODES.payment.id) add('arPayment');
      if (t.transactionTypeId === '3') add('arConcession');
      if (t.arCodeId === AR_CODES.lateFee.id) add('arLateFee');
      if (l._status === 6 && moveOut !== undefined) {
        const after = dayFromMdy(t.postDate) - moveOut;
        if (t.arCodeId === AR_CODES.depositRefund.id && after >= 14 && after <= 31) add('refundAfterMoveOut');
        if (t.arCodeId === AR_CODES.writeOff.id && after >= 60 && after <= 150) add('writeOffAfterMoveOut');
      }
    }
  }
  for (const inv of ds.invoices) {
    add(`invoiceType${inv._typeId}`);
    if (inv._exported) add('exported');
    if (inv.voidedPayments) add('voidedPayments');
    if (inv.invoicePayments) add('invoicePayments');
    if (inv._propertyIds.length > 1) add('multiPropertyInvoice');
    if (inv.account) add('invoiceAccount');
    if (inv.reversalInvoiceId) add('reversalInvoice');
    for (const line of inv.lineItems.lineItem) {
      if (line.catalogItemId !== undefined) add('catalogLines');
      if (line.jobId !== undefined) add('jobCostLines');
    }
  }
  return c;
}

/** Every feature `census` must find in a `small` data set. */
export const REQUIRED_FEATURES = [
  'status1',
  'status2',
  'status3',
  'status4',
  'status5',
  'status6',
  'multiSpace',
  'otherIncome',
  'withHistory',
  'historyTwoPlus',
  'monthToMonth',
  'transfer',
  'moveOutReason',
  'pets',
  'specials',
  'intervalType1',
  'intervalType2',
  'intervalType3',
  'intervalType4',
  'intervalType5',
  'customerAddresses',
  'customerPhones',
  'customerContacts',
  'applicationCharges',
  'activity:Move In',
  'activity:Renewal',
  'activity:Notice',
  'activity:Move Out',
  'arTemporary',
  'arReversed',
  'arPayment',
  'arConcession',
  'arLateFee',
  'refundAfterMoveOut',
  'writeOffAfterMoveOut',
  'invoiceType5',
  'invoiceType8',
  'invoiceType12',
  'invoiceType17',
  'invoiceType18',
  'invoiceType20',
  'exported',
  'voidedPayments',
  'invoicePayments',
  'multiPropertyInvoice',
  'invoiceAccount',
  'reversalInvoice',
  'catalogLines',
  'jobCostLines',
] as const;
