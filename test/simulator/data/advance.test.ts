import { describe, expect, it } from 'vitest';
import { dayFromIso, dayFromMdy, firstOfPreviousMonth } from '../../../src/simulator/data/calendar.js';
import {
  advanceDataset,
  CHANGE_KINDS,
  generateDataset,
  type ChangeSummary,
  type SimDataset,
} from '../../../src/simulator/data/index.js';
import { mirrorProblems, moneyProblems } from './checks.js';

const TODAY = '2025-03-15';
const fresh = (seed: number): SimDataset => generateDataset({ seed, scale: 'small', today: TODAY });

describe('advanceDataset', () => {
  it('is deterministic: two copies advanced the same way are equal', () => {
    const a = fresh(11);
    const b = fresh(11);
    const ra = advanceDataset(a, 30);
    const rb = advanceDataset(b, 30);
    expect(ra).toEqual(rb);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.today).toBe('2025-04-14');
  });

  it('keeps all its state in the data set: 30 days at once equals 10 + 20, and survives a JSON round trip', () => {
    const once = fresh(12);
    advanceDataset(once, 30);
    const split = fresh(12);
    advanceDataset(split, 10);
    const copy = JSON.parse(JSON.stringify(split)) as SimDataset;
    advanceDataset(copy, 20);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(once));
  });

  it('does nothing for 0 days and rejects bad input', () => {
    const ds = fresh(13);
    const before = JSON.stringify(ds);
    const r = advanceDataset(ds, 0);
    expect(r.changes.applications).toBe(0);
    expect(JSON.stringify(ds)).toBe(before);
    expect(() => advanceDataset(ds, -1)).toThrow(/days/);
    expect(() => advanceDataset({ ...ds, _world: undefined }, 1)).toThrow(/_world/);
  });

  it('produces every kind of change over 30 days on small, including AR on leases that moved out long ago', () => {
    const total = Object.fromEntries(CHANGE_KINDS.map((k) => [k, 0])) as ChangeSummary;
    let lateAfterMoveOut = 0;
    for (const seed of [21, 22, 23]) {
      const ds = fresh(seed);
      const maxAr = Math.max(
        ...ds.leases.flatMap((l) => l.arTransactions?.arTransaction.map((t) => t.id) ?? [0]),
      );
      const r = advanceDataset(ds, 30);
      for (const k of CHANGE_KINDS) total[k] += r.changes[k];
      for (const l of ds.leases) {
        if (l._status !== 6 || !l.moveOutDate) continue;
        const moveOut = dayFromMdy(l.moveOutDate);
        for (const t of l.arTransactions?.arTransaction ?? []) {
          if (t.id > maxAr && dayFromMdy(t.postDate) - moveOut > 60) lateAfterMoveOut++;
        }
      }
    }
    // Mid-term modifications and transfers are rarer than 30 days of a small portfolio; the
    // generated history holds them (generate.test.ts).
    const missing = CHANGE_KINDS.filter((k) => total[k] === 0 && k !== 'modifications' && k !== 'transfers');
    expect(missing).toEqual([]);
    expect(lateAfterMoveOut).toBeGreaterThan(0);
  });

  it('changes records the way the source would: statuses, new ids, AR after move-out, invoices', () => {
    const ds = fresh(31);
    const before = new Map(
      ds.leases.map((l) => [
        l._id,
        { status: l._status, ar: new Set(l.arTransactions?.arTransaction.map((t) => t.id)) },
      ]),
    );
    const maxLease = ds.leases[ds.leases.length - 1]._id;
    const maxInvoice = ds.invoices[ds.invoices.length - 1]._id;
    const exportedBefore = new Set(ds.invoices.filter((i) => i._exported).map((i) => i._id));
    advanceDataset(ds, 30);
    const transitions = new Set<string>();
    let newLeases = 0;
    let removedTemporary = 0;
    for (const l of ds.leases) {
      const b = before.get(l._id);
      if (!b) {
        // New leases start as applicants; where they got to counts as a transition too.
        newLeases++;
        expect(l._id).toBeGreaterThan(maxLease);
        if (l._status !== 1) transitions.add(`1->${l._status}`);
        continue;
      }
      if (b.status !== l._status) transitions.add(`${b.status}->${l._status}`);
      const now = new Set(l.arTransactions?.arTransaction.map((t) => t.id));
      for (const id of b.ar) if (!now.has(id)) removedTemporary++;
    }
    expect(newLeases).toBeGreaterThan(0);
    for (const t of ['1->2', '1->3', '3->4', '4->5', '5->6']) expect([...transitions], t).toContain(t);
    expect(removedTemporary).toBeGreaterThan(0);
    const fresh2 = ds.invoices.filter((i) => i._id > maxInvoice);
    expect(fresh2.length).toBeGreaterThan(10);
    expect(
      ds.invoices.some((i) => exportedBefore.has(i._id) === false && i._exported && i._id <= maxInvoice),
    ).toBe(true);
    expect(moneyProblems(ds)).toEqual([]);
    expect(mirrorProblems(ds)).toEqual([]);
  });

  it('back-dates invoices no earlier than the first day of the previous month', () => {
    const ds = fresh(41);
    let backdated = 0;
    for (let i = 0; i < 45; i++) {
      const maxId = ds.invoices[ds.invoices.length - 1]._id;
      advanceDataset(ds, 1);
      const today = dayFromIso(ds.today);
      for (const inv of ds.invoices) {
        if (inv._id <= maxId) continue;
        const post = dayFromIso(inv._postDay);
        expect(post, `invoice ${inv.id} posted ${inv._postDay} on ${ds.today}`).toBeGreaterThanOrEqual(
          firstOfPreviousMonth(today),
        );
        expect(post).toBeLessThanOrEqual(today);
        if (post < today) backdated++;
      }
    }
    expect(backdated).toBeGreaterThan(0);
  });

  it('moves payments to voidedPayments with voidedOn = that day and restores amountDue', () => {
    const ds = fresh(51);
    let voids = 0;
    for (let i = 0; i < 120 && voids === 0; i++) {
      const due = new Map(
        ds.invoices.map((inv) => [
          inv._id,
          {
            due: inv.amountDue,
            voided: inv.voidedPayments?.voidedPayment.length ?? 0,
            paid: inv.invoicePayments?.invoicePayment.map((p) => p.paymentId) ?? [],
          },
        ]),
      );
      advanceDataset(ds, 1);
      for (const inv of ds.invoices) {
        const b = due.get(inv._id);
        const list = inv.voidedPayments?.voidedPayment ?? [];
        if (!b || list.length === b.voided) continue;
        const v = list[list.length - 1];
        voids++;
        expect(b.paid).toContain(v.paymentId);
        expect(inv.invoicePayments?.invoicePayment.some((p) => p.paymentId === v.paymentId) ?? false).toBe(
          false,
        );
        expect(v.voidedOn).toBe(`${ds.today.slice(5, 7)}/${ds.today.slice(8, 10)}/${ds.today.slice(0, 4)}`);
        expect(inv._voidedDays).toContain(ds.today);
        expect(Number(inv.amountDue)).toBeCloseTo(Number(b.due) + Number(v.paymentAmount), 2);
      }
    }
    expect(voids).toBeGreaterThan(0);
  });
});
