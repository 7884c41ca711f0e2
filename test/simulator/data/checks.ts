/**
 * Consistency checks over a whole data set, shared by the generation and advance tests. Each
 * returns a list of problems (empty when consistent), so a failure names the record.
 */
import { DateTime } from 'luxon';
import { dayFromMdy, isoFromDay } from '../../../src/simulator/data/calendar.js';
import type { SimDataset } from '../../../src/simulator/data/model.js';
import { numberToCents, stringToCents } from '../../../src/simulator/data/money.js';

/** Money: AR allocation invariants, invoice totals, line sums, amountDue vs payments. */
export function moneyProblems(ds: SimDataset): string[] {
  const out: string[] = [];
  for (const l of ds.leases) {
    let balance = 0;
    let open = 0;
    for (const t of l.arTransactions?.arTransaction ?? []) {
      const a = numberToCents(t.amount);
      const p = numberToCents(t.amountPaid);
      const b = numberToCents(t.balanceDue);
      if (Math.abs(t.amount * 100 - a) > 1e-6)
        out.push(`lease ${l.id} ar ${t.id}: amount ${t.amount} not whole cents`);
      if (a - p !== b)
        out.push(
          `lease ${l.id} ar ${t.id}: balanceDue ${t.balanceDue} != amount ${t.amount} - amountPaid ${t.amountPaid}`,
        );
      if (t.isTemporary === 1) {
        if (p !== 0) out.push(`lease ${l.id} ar ${t.id}: temporary with amountPaid ${t.amountPaid}`);
        continue;
      }
      if (t.isReversed === 1 && b !== 0)
        out.push(`lease ${l.id} ar ${t.id}: reversed but balanceDue ${t.balanceDue}`);
      if (a >= 0 && (p < 0 || p > a))
        out.push(`lease ${l.id} ar ${t.id}: charge ${t.amount} with amountPaid ${t.amountPaid}`);
      if (a < 0 && (p > 0 || p < a))
        out.push(`lease ${l.id} ar ${t.id}: credit ${t.amount} with amountPaid ${t.amountPaid}`);
      balance += a;
      open += b;
    }
    if (balance !== open) out.push(`lease ${l.id}: sum of amounts ${balance} != sum of balanceDue ${open}`);
    for (const s of l.scheduledCharges?.scheduledCharge ?? []) {
      if (!/^-?\d+\.\d{2}$/.test(String(s.amount)))
        out.push(`lease ${l.id} charge ${String(s.id)}: amount ${String(s.amount)}`);
    }
  }
  for (const inv of ds.invoices) {
    const lines = inv.lineItems.lineItem;
    let sum = 0;
    let due = 0;
    for (const line of lines) {
      const amount = stringToCents(String(line.amount));
      if (Number(line.quantity) * stringToCents(String(line.rate)) !== amount)
        out.push(`invoice ${inv.id} line ${String(line.id)}: quantity x rate != amount`);
      sum += amount;
      due += stringToCents(String(line.amountDue));
    }
    const amount = stringToCents(inv.amount);
    if (sum !== amount) out.push(`invoice ${inv.id}: amount ${inv.amount} != sum of lines ${sum}`);
    const parts =
      stringToCents(inv.subTotal) +
      stringToCents(inv.taxAmount) +
      stringToCents(inv.shippingAmount) +
      stringToCents(inv.discountAmount);
    if (parts !== amount)
      out.push(`invoice ${inv.id}: subTotal+tax+shipping+discount ${parts} != amount ${amount}`);
    const paid = (inv.invoicePayments?.invoicePayment ?? []).reduce(
      (s, p) => s + stringToCents(p.paymentAmount),
      0,
    );
    if (amount - paid !== stringToCents(inv.amountDue))
      out.push(`invoice ${inv.id}: amountDue ${inv.amountDue} != amount ${inv.amount} - payments ${paid}`);
    if (due !== stringToCents(inv.amountDue))
      out.push(`invoice ${inv.id}: lines' amountDue ${due} != amountDue ${inv.amountDue}`);
    for (const k of [
      'subTotal',
      'taxAmount',
      'shippingAmount',
      'discountAmount',
      'retention',
      'amount',
      'amountDue',
    ] as const) {
      if (!/^-?\d+\.\d{2}$/.test(inv[k]))
        out.push(`invoice ${inv.id}: ${k} ${inv[k]} is not a two-decimal string`);
    }
  }
  return out;
}

/** Mirrors: `_` fields agree with the wire fields; ids sorted and unique. */
export function mirrorProblems(ds: SimDataset): string[] {
  const out: string[] = [];
  let last = 0;
  const arIds = new Set<number>();
  for (const l of ds.leases) {
    if (l._id <= last) out.push(`lease ${l.id}: not sorted by _id`);
    last = l._id;
    if (String(l._id) !== l.id) out.push(`lease ${l.id}: _id ${l._id}`);
    if (String(l._status) !== l.leaseStatusTypeId)
      out.push(`lease ${l.id}: _status ${l._status} vs ${l.leaseStatusTypeId}`);
    if (String(l._propertyId) !== l.propertyId) out.push(`lease ${l.id}: _propertyId`);
    if (isoFromDay(dayFromMdy(l.moveInDate)) !== l._moveIn)
      out.push(`lease ${l.id}: _moveIn ${l._moveIn} vs ${l.moveInDate}`);
    if ((l.moveOutDate ? isoFromDay(dayFromMdy(l.moveOutDate)) : undefined) !== l._moveOut)
      out.push(`lease ${l.id}: _moveOut ${l._moveOut} vs ${l.moveOutDate}`);
    const current = l.leaseIntervals.leaseInterval;
    if (current.length !== 1 || current[0].id !== l.leaseIntervalId)
      out.push(`lease ${l.id}: leaseIntervalId not the current interval`);
    if (current[0].leaseIntervalStatusTypeId !== l.leaseStatusTypeId)
      out.push(`lease ${l.id}: current interval status ${current[0].leaseIntervalStatusTypeId}`);
    if (l._leaseEnd !== isoFromDay(dayFromMdy(current[0].endDate)))
      out.push(`lease ${l.id}: _leaseEnd ${l._leaseEnd} vs ${current[0].endDate}`);
    if (
      String(l._applicationId) !== l.leaseHistory?.leaseInterval[0]?.applicationId &&
      String(l._applicationId) !== current[0].applicationId &&
      !l.leaseHistory
    )
      out.push(`lease ${l.id}: _applicationId`);
    const ids = l.customers.customer.map((c) => Number(c.id));
    if (JSON.stringify(ids) !== JSON.stringify(l._customerIds)) out.push(`lease ${l.id}: _customerIds`);
    if ((l._status === 5 || l._status === 6) !== (l.moveOutReason !== undefined))
      out.push(`lease ${l.id}: moveOutReason presence vs status ${l._status}`);
    for (const t of l.arTransactions?.arTransaction ?? []) {
      if (arIds.has(t.id)) out.push(`ar ${t.id}: duplicate id`);
      arIds.add(t.id);
    }
    for (const k of [
      'arTransactions',
      'scheduledCharges',
      'leaseHistory',
      'specials',
      'pets',
      'leaseActivities',
    ] as const) {
      const c = l[k] as Record<string, unknown[]> | undefined;
      if (c && Object.values(c)[0].length === 0) out.push(`lease ${l.id}: empty ${k} container`);
    }
  }
  last = 0;
  for (const inv of ds.invoices) {
    if (inv._id <= last) out.push(`invoice ${inv.id}: not sorted by _id`);
    last = inv._id;
    if (String(inv._id) !== inv.id || String(inv._typeId) !== inv.invoiceTypeId)
      out.push(`invoice ${inv.id}: _id/_typeId`);
    if (isoFromDay(dayFromMdy(inv.postDate)) !== inv._postDay)
      out.push(`invoice ${inv.id}: _postDay ${inv._postDay} vs ${inv.postDate}`);
    if (inv._exported !== (inv.isExported === true)) out.push(`invoice ${inv.id}: _exported vs isExported`);
    for (const p of inv.invoicePayments?.invoicePayment ?? []) {
      if (!inv._paidDays.includes(isoFromDay(dayFromMdy(p.paymentDate))))
        out.push(`invoice ${inv.id}: payment ${p.paymentId} day not in _paidDays`);
    }
    for (const v of inv.voidedPayments?.voidedPayment ?? []) {
      if (!inv._voidedDays.includes(isoFromDay(dayFromMdy(v.voidedOn))))
        out.push(`invoice ${inv.id}: void ${v.paymentId} not in _voidedDays`);
      if (!inv._paidDays.includes(isoFromDay(dayFromMdy(v.paymentDate))))
        out.push(`invoice ${inv.id}: voided payment ${v.paymentId} day not in _paidDays`);
    }
    const lineProps = new Set(inv.lineItems.lineItem.map((li) => Number((li.property as { id: string }).id)));
    if ([...lineProps].sort().join() !== [...inv._propertyIds].sort().join())
      out.push(`invoice ${inv.id}: _propertyIds vs line properties`);
    if (inv.postMonth !== `${inv.postDate.slice(0, 2)}/01/${inv.postDate.slice(6)}`)
      out.push(`invoice ${inv.id}: postMonth ${inv.postMonth}`);
  }
  return out;
}

const DATETIME = /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}):(\d{2}) (MDT|MST)$/;

/** Every datetime in the data set carries the suffix luxon gives that wall time in America/Denver. */
export function datetimeProblems(ds: SimDataset): { checked: number; problems: string[] } {
  const problems: string[] = [];
  let checked = 0;
  const check = (where: string, text: unknown): void => {
    const m = DATETIME.exec(String(text));
    if (!m) {
      problems.push(`${where}: not a datetime: ${String(text)}`);
      return;
    }
    const dt = DateTime.fromObject(
      { year: +m[3], month: +m[1], day: +m[2], hour: +m[4], minute: +m[5], second: +m[6] },
      { zone: 'America/Denver' },
    );
    checked++;
    if (dt.offsetNameShort !== m[7])
      problems.push(`${where}: ${String(text)} but luxon says ${dt.offsetNameShort}`);
  };
  for (const l of ds.leases) {
    for (const i of [...l.leaseIntervals.leaseInterval, ...(l.leaseHistory?.leaseInterval ?? [])]) {
      check(`lease ${l.id} interval ${i.id}`, i.intervalDateTime);
      if (i.applicationCompletedOn !== undefined)
        check(`lease ${l.id} interval ${i.id} completed`, i.applicationCompletedOn);
      for (const a of i.applications?.application ?? [])
        check(`lease ${l.id} application`, a.applicationDateTime);
    }
  }
  return { checked, problems };
}
