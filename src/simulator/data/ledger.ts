/**
 * A lease's AR ledger: posting transactions and keeping `amountPaid`/`balanceDue` consistent.
 *
 * Credits (payments, concessions, deposit applications, write-offs) pay charges first in,
 * first out. Invariants, in cents, for every transaction: `balanceDue = amount - amountPaid`;
 * a charge has 0 <= amountPaid <= amount, a credit amount <= amountPaid <= 0; temporary
 * transactions are never allocated (amountPaid 0); a reversed pair (isReversed 1 on both the
 * payment and its reversal) is fully settled on each side. The lease balance (`_plan`) is the
 * sum of non-temporary amounts.
 */
import { mdy, postMonth, type EpochDay } from './calendar.js';
import { nextId, type SimContext } from './context.js';
import type { SimArTransaction, SimLease } from './model.js';
import { centsToNumber, numberToCents } from './money.js';
import type { ArCode } from './reference.js';

/** Options of one posting. */
export interface PostOptions {
  description: string;
  /** Due day (defaults to the post day). */
  dueDay?: EpochDay;
  scheduledChargeId?: string;
  /** Payments: the id of the payment record; a fresh one is taken when omitted. */
  arPaymentId?: string;
  temporary?: boolean;
  /** Interval the transaction belongs to (defaults to the lease's current interval). */
  intervalId?: number;
}

function setBalance(t: SimArTransaction, balanceCents: number): void {
  t.balanceDue = centsToNumber(balanceCents);
  t.amountPaid = centsToNumber(numberToCents(t.amount) - balanceCents);
}

function isOpenDebit(t: SimArTransaction): boolean {
  return t.isTemporary === 0 && t.isReversed === 0 && t.balanceDue > 0;
}

function isOpenCredit(t: SimArTransaction): boolean {
  return t.isTemporary === 0 && t.isReversed === 0 && t.balanceDue < 0;
}

/** Matches open credits against open charges, oldest first, from the lease's allocation cursor. */
export function settle(lease: SimLease): void {
  const list = lease.arTransactions?.arTransaction;
  const plan = lease._plan;
  if (!list || !plan) return;
  const n = list.length;
  let d = plan.openFrom;
  while (d < n && !isOpenDebit(list[d])) d++;
  let c = plan.openFrom;
  while (c < n && !isOpenCredit(list[c])) c++;
  while (d < n && c < n) {
    const debit = list[d];
    const credit = list[c];
    const bd = numberToCents(debit.balanceDue);
    const bc = -numberToCents(credit.balanceDue);
    const m = Math.min(bd, bc);
    setBalance(debit, bd - m);
    setBalance(credit, -(bc - m));
    if (bd === m) {
      d++;
      while (d < n && !isOpenDebit(list[d])) d++;
    }
    if (bc === m) {
      c++;
      while (c < n && !isOpenCredit(list[c])) c++;
    }
  }
  let i = plan.openFrom;
  while (i < n && !isOpenDebit(list[i]) && !isOpenCredit(list[i])) i++;
  plan.openFrom = i;
}

/** Undoes every allocation and allocates the whole ledger again (after a reversal). */
export function resettle(lease: SimLease): void {
  const list = lease.arTransactions?.arTransaction;
  const plan = lease._plan;
  if (!list || !plan) return;
  for (const t of list) {
    if (t.isTemporary === 1) continue;
    if (t.isReversed === 1) setBalance(t, 0);
    else setBalance(t, numberToCents(t.amount));
  }
  plan.openFrom = 0;
  settle(lease);
}

/** Posts one AR transaction on a lease and allocates it; returns the new record. */
export function postAr(
  ctx: SimContext,
  lease: SimLease,
  code: ArCode,
  cents: number,
  day: EpochDay,
  opts: PostOptions,
): SimArTransaction {
  const plan = lease._plan!;
  const amount = centsToNumber(cents);
  const temporary = opts.temporary === true;
  const isPayment = code.transactionTypeId === '2';
  const id = nextId(ctx, 'arTransaction');
  const intervalId = opts.intervalId ?? lease.leaseIntervalId;
  const date = mdy(day);
  const month = postMonth(day);
  const due = opts.dueDay === undefined ? date : mdy(opts.dueDay);
  const isTemporary = temporary ? 1 : 0;
  // One object literal per shape, so optional ids live inside the object (no extra backing store).
  let t: SimArTransaction;
  if (opts.scheduledChargeId !== undefined) {
    t = {
      id,
      transactionTypeId: code.transactionTypeId,
      arCodeId: code.id,
      arCodeName: code.name,
      leaseIntervalId: intervalId,
      description: opts.description,
      transactionDate: date,
      postDate: date,
      postMonth: month,
      dueDate: due,
      amount,
      amountPaid: 0,
      balanceDue: amount,
      isTemporary,
      isReversed: 0,
      scheduledChargeId: opts.scheduledChargeId,
    };
  } else if (isPayment || opts.arPaymentId !== undefined) {
    t = {
      id,
      transactionTypeId: code.transactionTypeId,
      arCodeId: code.id,
      arCodeName: code.name,
      leaseIntervalId: intervalId,
      description: opts.description,
      transactionDate: date,
      postDate: date,
      postMonth: month,
      dueDate: due,
      amount,
      amountPaid: 0,
      balanceDue: amount,
      isTemporary,
      isReversed: 0,
      arPaymentId: opts.arPaymentId ?? String(nextId(ctx, 'arPayment')),
    };
  } else {
    t = {
      id,
      transactionTypeId: code.transactionTypeId,
      arCodeId: code.id,
      arCodeName: code.name,
      leaseIntervalId: intervalId,
      description: opts.description,
      transactionDate: date,
      postDate: date,
      postMonth: month,
      dueDate: due,
      amount,
      amountPaid: 0,
      balanceDue: amount,
      isTemporary,
      isReversed: 0,
    };
  }
  if (!lease.arTransactions) lease.arTransactions = { arTransaction: [] };
  lease.arTransactions.arTransaction.push(t);
  ctx.summary.arTransactions++;
  if (!temporary) {
    plan.balanceCents += cents;
    settle(lease);
  }
  return t;
}

/** Removes the lease's temporary transactions (the source stops listing them); returns how many. */
export function removeTemporary(ctx: SimContext, lease: SimLease): number {
  const list = lease.arTransactions?.arTransaction;
  if (!list) return 0;
  const kept = list.filter((t) => t.isTemporary === 0);
  const removed = list.length - kept.length;
  if (removed === 0) return 0;
  if (kept.length === 0) delete lease.arTransactions;
  else lease.arTransactions!.arTransaction = kept;
  // Temporary transactions are never open, so the cursor only moves back by those before it.
  const plan = lease._plan!;
  let before = 0;
  for (let i = 0; i < Math.min(plan.openFrom, list.length); i++) if (list[i].isTemporary === 1) before++;
  plan.openFrom -= before;
  ctx.summary.arTemporaryRemoved += removed;
  return removed;
}

/**
 * Reverses a payment (returned / NSF): marks it reversed, posts the reversing transaction
 * (also marked reversed) and allocates the ledger again. Returns false when not found.
 */
export function reversePayment(
  ctx: SimContext,
  lease: SimLease,
  arId: number,
  day: EpochDay,
  code: ArCode,
): boolean {
  const list = lease.arTransactions?.arTransaction;
  if (!list) return false;
  let original: SimArTransaction | undefined;
  for (let i = list.length - 1; i >= 0; i--) {
    if (list[i].id === arId) {
      original = list[i];
      break;
    }
  }
  if (!original || original.isReversed === 1) return false;
  original.isReversed = 1;
  const cents = -numberToCents(original.amount);
  const reversal = postAr(ctx, lease, code, cents, day, {
    description: 'Payment Reversal - Returned Item (NSF)',
    arPaymentId: original.arPaymentId,
  });
  reversal.isReversed = 1;
  resettle(lease);
  return true;
}
