/**
 * One day of a property's payables: utility bills on their billing day, other vendor invoices
 * (some back-dated into the previous month), holds released, payments on the property's
 * payment runs (Tuesdays and Thursdays), split payments and retention paid later, payments
 * voided and reissued, weekly exports to the outside ledger, and customer refund invoices for
 * deposit refunds.
 */
import { firstOfPreviousMonth, weekday, type EpochDay } from './calendar.js';
import { addOpenInvoice, nextId, type PropertyRuntime, type SimContext } from './context.js';
import {
  applyPayment,
  makeInvoice,
  markExported,
  voidPayment,
  type InvoiceDraft,
  type LineDraft,
} from './invoice-records.js';
import { INVOICE_TYPE, type InvoiceTypeId, type SimInvoice, type SimLease } from './model.js';
import { roundToDollars, stringToCents } from './money.js';
import type { Rng } from './random.js';
import {
  CATALOG_ITEMS,
  COST_CODES,
  DEPARTMENTS,
  GL_ACCOUNTS,
  STAFF_USERS,
  VENDOR_TEMPLATES,
  type GlAccount,
  type GlKey,
} from './reference.js';
import type { InvoicePlan, WorldVendor } from './world.js';

/** Vendor ids are VENDOR_ID_BASE + index into the world's vendor list. */
export const VENDOR_ID_BASE = 50001;

const DEPARTMENT_BY_GL: Partial<Record<GlKey, (typeof DEPARTMENTS)[number]>> = {
  makeReady: DEPARTMENTS[2],
  painting: DEPARTMENTS[2],
  cleaning: DEPARTMENTS[2],
  landscaping: DEPARTMENTS[3],
  snow: DEPARTMENTS[3],
  capitalRoof: DEPARTMENTS[4],
  capitalSite: DEPARTMENTS[4],
  capitalInterior: DEPARTMENTS[4],
  legal: DEPARTMENTS[0],
  accounting: DEPARTMENTS[0],
  marketing: DEPARTMENTS[0],
  officeSupplies: DEPARTMENTS[0],
  residentDeposits: DEPARTMENTS[0],
};

function departmentFor(gl: GlKey): (typeof DEPARTMENTS)[number] {
  return DEPARTMENT_BY_GL[gl] ?? DEPARTMENTS[1];
}

/** The next payment run (Tuesday or Thursday) on or after a day. */
export function nextPaymentRun(day: EpochDay): EpochDay {
  let d = day;
  while (weekday(d) !== 2 && weekday(d) !== 4) d++;
  return d;
}

function nextWeekday(day: EpochDay, wd: number): EpochDay {
  let d = day;
  while (weekday(d) !== wd) d++;
  return d;
}

/** The plan of every invoice with nothing left to happen (one shared object; never changed). */
const DONE: InvoicePlan = Object.freeze({
  payDay: -1,
  payCents: 0,
  secondPayDay: -1,
  voidDay: -1,
  voidPaymentId: '',
  holdUntil: -1,
  exportDay: -1,
}) as InvoicePlan;

function emptyPlan(): InvoicePlan {
  return {
    payDay: -1,
    payCents: 0,
    secondPayDay: -1,
    voidDay: -1,
    voidPaymentId: '',
    holdUntil: -1,
    exportDay: -1,
  };
}

function baseLine(
  rt: PropertyRuntime,
  glKey: GlKey,
  description: string,
  quantity: number,
  rateCents: number,
  rng: Rng,
  is1099: boolean,
): LineDraft {
  return {
    kind: 'item',
    description,
    quantity,
    rateCents,
    property: rt.info.lineProperty,
    propertyId: rt.property.PropertyID,
    gl: GL_ACCOUNTS[glKey],
    department: departmentFor(glKey),
    poNumber: rng.chance(0.3) ? `PO-${rng.int(10000, 99999)}` : '',
    is1099,
    billback: rng.chance(0.03),
  };
}

function adjustmentLine(
  rt: PropertyRuntime,
  kind: 'tax' | 'shipping' | 'discount',
  cents: number,
  rng: Rng,
): LineDraft {
  const gl: GlAccount =
    kind === 'tax' ? GL_ACCOUNTS.salesTax : kind === 'shipping' ? GL_ACCOUNTS.freight : GL_ACCOUNTS.discounts;
  const description =
    kind === 'tax' ? 'Sales tax' : kind === 'shipping' ? 'Freight and delivery' : 'Early payment discount';
  const line = baseLine(rt, 'supplies', description, 1, cents, rng, false);
  line.kind = kind;
  line.gl = gl;
  line.poNumber = '';
  line.billback = false;
  return line;
}

function catalogLines(
  rt: PropertyRuntime,
  rng: Rng,
  count: number,
  sign: 1 | -1,
  job?: LineDraft['job'],
): LineDraft[] {
  const lines: LineDraft[] = [];
  for (let i = 0; i < count; i++) {
    const item = rng.pick(CATALOG_ITEMS);
    const line = baseLine(
      rt,
      item.gl as GlKey,
      sign < 0 ? `Return: ${item.name}` : item.name,
      rng.int(1, 12),
      sign * item.cents,
      rng,
      false,
    );
    line.catalog = { id: item.id, name: item.name, unit: item.unit };
    if (job) line.job = job;
    lines.push(line);
  }
  return lines;
}

function jobLineFields(
  rt: PropertyRuntime,
  day: EpochDay,
  rng: Rng,
): { job: LineDraft['job']; gl: GlAccount } | undefined {
  const active = rt.info.jobs.filter((j) => day >= j.fromDay && day <= j.toDay);
  if (active.length === 0) return undefined;
  const job = rng.pick(active);
  const phase = rng.pick(job.phases);
  const cost = rng.pick(COST_CODES);
  return {
    job: {
      jobId: job.id,
      jobName: job.name,
      jobPhaseId: phase.id,
      jobPhaseName: phase.name,
      costCodeId: cost.id,
      costCodeName: cost.name,
    },
    gl: job.gl,
  };
}

function findEarlierInvoice(ctx: SimContext, vendorId: number): SimInvoice | undefined {
  const list = ctx.dataset.invoices;
  for (let i = list.length - 1, seen = 0; i >= 0 && seen < 400; i--, seen++) {
    const inv = list[i];
    if (inv._vendorId === vendorId && inv._typeId !== INVOICE_TYPE.CreditMemo) return inv;
  }
  return undefined;
}

function planInvoice(
  ctx: SimContext,
  rt: PropertyRuntime,
  invoice: SimInvoice,
  draft: InvoiceDraft,
  day: EpochDay,
  rng: Rng,
): void {
  const plan = emptyPlan();
  const total = stringToCents(invoice.amount);
  if (draft.onHold) plan.holdUntil = day + rng.int(5, 25);
  if (total > 0) {
    const earliest = Math.max(day + 1, draft.postDay + 2, plan.holdUntil + 1);
    if (draft.typeId === INVOICE_TYPE.CustomerRefund) {
      plan.payDay = day + rng.int(1, 4);
      plan.payCents = total;
    } else {
      plan.payDay = nextPaymentRun(Math.max(earliest, draft.dueDay - rng.int(0, 6)));
      plan.payCents = total;
      if (draft.retentionCents > 0) {
        plan.payCents = total - draft.retentionCents;
        plan.secondPayDay = plan.payDay + rng.int(45, 120);
      } else if (rng.chance(0.07) && total >= 2000) {
        plan.payCents = Math.round(total / 2);
        plan.secondPayDay = plan.payDay + rng.int(14, 30);
      }
    }
  }
  if (rt.info.exportsInvoices)
    plan.exportDay = nextWeekday(Math.max(day, draft.postDay + 7), rt.info.exportWeekday);
  invoice._plan = plan;
}

function addInvoice(
  ctx: SimContext,
  rt: PropertyRuntime,
  draft: InvoiceDraft,
  day: EpochDay,
  rng: Rng,
): SimInvoice {
  const invoice = makeInvoice(ctx, draft);
  planInvoice(ctx, rt, invoice, draft, day, rng);
  ctx.dataset.invoices.push(invoice);
  addOpenInvoice(rt, invoice, 0);
  ctx.summary.invoicesCreated++;
  if (draft.postDay < day) ctx.summary.invoicesBackdated++;
  return invoice;
}

function vendorOf(ctx: SimContext, id: number): WorldVendor {
  const v = ctx.world.vendors[id - VENDOR_ID_BASE];
  if (!v || v.id !== id) throw new Error(`vendor ${id} not in the world`);
  return v;
}

/** Builds and adds one vendor invoice of the property. */
function vendorInvoice(
  ctx: SimContext,
  rt: PropertyRuntime,
  vendor: WorldVendor,
  day: EpochDay,
  rng: Rng,
  utilityBill: boolean,
): SimInvoice {
  const template = VENDOR_TEMPLATES[vendor.category];
  let typeId: InvoiceTypeId = INVOICE_TYPE.Standard;
  let lines: LineDraft[] = [];
  let retention = 0;
  let reversalInvoiceId: string | undefined;
  const is1099 =
    vendor.category === 'maintenance' || vendor.category === 'contractor' || vendor.category === 'services';
  const jobFields =
    vendor.category === 'contractor' || vendor.category === 'supplies' || vendor.category === 'maintenance'
      ? jobLineFields(rt, day, rng)
      : undefined;
  const r = rng.float();
  if (utilityBill) {
    const work = template.work[vendor.workIndex % template.work.length];
    lines.push(baseLine(rt, work.gl, work.text, 1, rng.int(work.lo, work.hi), rng, false));
    if (rng.chance(0.3))
      lines.push(baseLine(rt, work.gl, 'Franchise fees and surcharges', 1, rng.int(500, 4000), rng, false));
  } else if (vendor.category === 'supplies') {
    if (r < 0.1) {
      typeId = INVOICE_TYPE.CreditMemo;
      lines = catalogLines(rt, rng, rng.int(1, 2), -1);
    } else if (jobFields && r < 0.3) {
      typeId = INVOICE_TYPE.CatalogJobCost;
      lines = catalogLines(rt, rng, rng.int(1, 4), 1, jobFields.job);
    } else {
      typeId = INVOICE_TYPE.Catalog;
      lines = catalogLines(rt, rng, rng.int(1, 5), 1);
    }
    if (typeId !== INVOICE_TYPE.CreditMemo) {
      const sub = lines.reduce((s, l) => s + l.quantity * l.rateCents, 0);
      lines.push(adjustmentLine(rt, 'tax', Math.round(sub * 0.0765), rng));
      if (rng.chance(0.3)) lines.push(adjustmentLine(rt, 'shipping', rng.int(1500, 7500), rng));
    }
  } else if (vendor.category === 'contractor' && jobFields) {
    typeId = INVOICE_TYPE.StandardJobCost;
    const work = template.work[0];
    const n = rng.int(1, 3);
    for (let i = 0; i < n; i++) {
      const f = i === 0 ? jobFields : (jobLineFields(rt, day, rng) ?? jobFields);
      const line = baseLine(
        rt,
        'capitalSite',
        `${work.text} - ${f.job!.jobPhaseName}`,
        1,
        roundToDollars(rng.int(work.lo, work.hi), 1),
        rng,
        true,
      );
      line.gl = f.gl;
      line.job = f.job;
      lines.push(line);
    }
    retention = Math.round(lines.reduce((s, l) => s + l.quantity * l.rateCents, 0) / 10);
  } else if (vendor.category === 'maintenance' && jobFields && r < 0.08) {
    typeId = INVOICE_TYPE.StandardJobCost;
    const work = rng.pick(template.work);
    const line = baseLine(
      rt,
      work.gl,
      `${work.text} - ${jobFields.job!.jobName}`,
      1,
      rng.int(work.lo, work.hi),
      rng,
      true,
    );
    line.gl = jobFields.gl;
    line.job = jobFields.job;
    lines.push(line);
  } else if (r < 0.06) {
    typeId = INVOICE_TYPE.CreditMemo;
    const work = rng.pick(template.work);
    lines.push(
      baseLine(
        rt,
        work.gl,
        `Credit - ${work.text.toLowerCase()} billing adjustment`,
        1,
        -rng.int(2000, Math.max(2500, Math.round(work.hi / 4))),
        rng,
        is1099,
      ),
    );
    if (rng.chance(0.5)) reversalInvoiceId = findEarlierInvoice(ctx, vendor.id)?.id;
  } else {
    const n = rng.int(1, 3);
    for (let i = 0; i < n; i++) {
      const work = rng.pick(template.work);
      const qty =
        work.gl === 'makeReady' || work.gl === 'painting' || work.gl === 'cleaning' ? rng.int(1, 4) : 1;
      lines.push(baseLine(rt, work.gl, work.text, qty, rng.int(work.lo, work.hi), rng, is1099));
    }
    if (rng.chance(0.04) && ctx.runtimes.length > 1) {
      // A bill shared with another property of the portfolio.
      let other = ctx.runtimes[rng.int(0, ctx.runtimes.length - 1)];
      if (other === rt) other = ctx.runtimes[(rt.index + 1) % ctx.runtimes.length];
      const work = rng.pick(template.work);
      lines.push(
        baseLine(other, work.gl, `${work.text} (shared)`, 1, rng.int(work.lo, work.hi), rng, is1099),
      );
    }
    if (rng.chance(0.05)) {
      const sub = lines.reduce((s, l) => s + l.quantity * l.rateCents, 0);
      lines.push(adjustmentLine(rt, 'discount', -Math.round(sub * 0.02), rng));
    }
  }
  let postDay = day;
  if (!utilityBill && rng.chance(0.1)) {
    const from = Math.max(firstOfPreviousMonth(day), rt.openDay);
    if (from <= day - 1) postDay = rng.int(from, day - 1);
  }
  const invoiceDay = postDay - rng.int(0, 12);
  const prefix =
    typeId === INVOICE_TYPE.CreditMemo
      ? 'CM'
      : utilityBill
        ? 'UB'
        : vendor.category === 'supplies'
          ? 'SO'
          : vendor.category === 'contractor'
            ? 'PB'
            : 'INV';
  const draft: InvoiceDraft = {
    typeId,
    invoiceNumber: `${prefix}-${nextId(ctx, 'invoiceNumber')}`,
    vendorId: vendor.id,
    vendor: vendor.record,
    remittance: vendor.remittance,
    account: utilityBill
      ? {
          id: String(vendor.id * 1000 + rt.index),
          accountNumber: `${rt.info.lookupCode}-${vendor.id}-${rt.index + 1}`,
        }
      : undefined,
    invoiceDay,
    postDay,
    dueDay: invoiceDay + vendor.termsDays,
    onHold: typeId !== INVOICE_TYPE.CreditMemo && rng.chance(0.04),
    reversalInvoiceId,
    invoiceNote: rng.chance(0.15) ? `Approved by ${rng.pick(STAFF_USERS)}` : undefined,
    note: rng.chance(0.1) ? (utilityBill ? 'Meter read estimated' : 'See attached work order') : undefined,
    routingTagId: rng.chance(0.2) ? rng.pick(['3', '7', '12']) : undefined,
    retentionCents: retention,
    lines,
  };
  return addInvoice(ctx, rt, draft, day, rng);
}

/** Creates the customer refund invoice (type 20) that pays a resident's deposit refund. */
export function createRefundInvoice(
  ctx: SimContext,
  rt: PropertyRuntime,
  lease: SimLease,
  cents: number,
  day: EpochDay,
  rng: Rng,
): SimInvoice {
  const person = lease.customers.customer[0];
  const customerId = Number(person.id);
  const addresses = (person.addresses as { address: Record<string, string>[] } | undefined)?.address ?? [];
  const addr = addresses[addresses.length - 1] ?? {
    streetLine1: '',
    city: '',
    state: '',
    postalCode: '',
    country: 'US',
  };
  const name = String(person.nameFull);
  const address = {
    street: addr.streetLine1,
    city: addr.city,
    state: addr.state,
    postalCode: addr.postalCode,
    country: addr.country,
  };
  const line = baseLine(
    rt,
    'residentDeposits',
    `Security deposit refund - unit ${lease.unitNumber ?? ''}, lease ${lease.id}`,
    1,
    cents,
    rng,
    false,
  );
  line.poNumber = '';
  line.billback = false;
  line.gl = GL_ACCOUNTS.residentDeposits;
  const draft: InvoiceDraft = {
    typeId: INVOICE_TYPE.CustomerRefund,
    invoiceNumber: `RF-${nextId(ctx, 'invoiceNumber')}`,
    vendorId: customerId,
    vendor: {
      id: String(customerId),
      name,
      locationName: 'Resident Refunds',
      locationCode: 'RES',
      externalId: `CUST-${customerId}`,
      address,
    },
    remittance: { id: String(customerId), name, apPaymentTypeId: '1', apPaymentType: 'Check', ...address },
    invoiceDay: day,
    postDay: day,
    dueDay: day + 5,
    onHold: false,
    invoiceNote: `Deposit refund for lease ${lease.id}`,
    retentionCents: 0,
    lines: [line],
  };
  ctx.summary.customerRefunds++;
  return addInvoice(ctx, rt, draft, day, rng);
}

function processInvoice(
  ctx: SimContext,
  rt: PropertyRuntime,
  invoice: SimInvoice,
  day: EpochDay,
  rng: Rng,
): void {
  const plan = invoice._plan!;
  if (plan.holdUntil !== -1 && day >= plan.holdUntil) {
    plan.holdUntil = -1;
    invoice.isOnHold = 0;
    invoice.postStatus = 'Posted';
    ctx.summary.holdsReleased++;
  }
  if (plan.holdUntil === -1 && plan.payDay !== -1 && day >= plan.payDay) {
    plan.payDay = -1;
    const due = stringToCents(invoice.amountDue);
    const cents = Math.min(due, plan.payCents);
    if (cents > 0) {
      const payment = applyPayment(ctx, rt, invoice, cents, day);
      if (plan.voidDay === -1 && rng.chance(0.05)) {
        plan.voidDay = day + rng.int(3, 25);
        plan.voidPaymentId = payment.paymentId;
      }
    }
  }
  if (plan.secondPayDay !== -1 && day >= plan.secondPayDay && plan.payDay === -1) {
    plan.secondPayDay = -1;
    const due = stringToCents(invoice.amountDue);
    if (due > 0) applyPayment(ctx, rt, invoice, due, day);
  }
  if (plan.voidDay !== -1 && day >= plan.voidDay) {
    plan.voidDay = -1;
    const cents = voidPayment(ctx, invoice, plan.voidPaymentId, day, rng);
    plan.voidPaymentId = '';
    if (cents > 0) {
      plan.payDay = nextPaymentRun(day + rng.int(2, 8));
      plan.payCents = cents;
    }
  }
  if (plan.exportDay !== -1 && day >= plan.exportDay) {
    plan.exportDay = -1;
    markExported(ctx, invoice);
  }
}

/** Applies one day of payables to a property. */
export function invoiceDay(ctx: SimContext, rt: PropertyRuntime, day: EpochDay, dom: number, rng: Rng): void {
  if (rt.utilityVendorIds.length + rt.otherVendorIds.length !== rt.info.vendorIds.length) {
    for (const vid of rt.info.vendorIds)
      (vendorOf(ctx, vid).category === 'utility' ? rt.utilityVendorIds : rt.otherVendorIds).push(vid);
  }
  for (const vid of rt.utilityVendorIds) {
    if (dom === 3 + (vid % 22)) vendorInvoice(ctx, rt, vendorOf(ctx, vid), day, rng, true);
  }
  const others = rt.otherVendorIds;
  const n = rng.poisson(rt.info.invoicesPerDay);
  for (let i = 0; i < n && others.length > 0; i++)
    vendorInvoice(ctx, rt, vendorOf(ctx, rng.pick(others)), day, rng, false);
  const open = rt.openInvoices;
  const next = rt.openNext;
  let keep = 0;
  for (let i = 0; i < open.length; i++) {
    let nextDay = next[i];
    const invoice = open[i];
    if (nextDay <= day) {
      processInvoice(ctx, rt, invoice, day, rng);
      nextDay = invoiceNextDay(invoice._plan!, day);
    }
    if (nextDay !== -1) {
      open[keep] = invoice;
      next[keep++] = nextDay;
    } else {
      // Nothing more will happen: share the done plan and copy lists to exact size.
      invoice._plan = DONE;
      if (invoice.invoicePayments)
        invoice.invoicePayments.invoicePayment = invoice.invoicePayments.invoicePayment.slice();
      if (invoice.voidedPayments)
        invoice.voidedPayments.voidedPayment = invoice.voidedPayments.voidedPayment.slice();
      invoice._paidDays = invoice._paidDays.slice();
      invoice._voidedDays = invoice._voidedDays.slice();
    }
  }
  open.length = keep;
  next.length = keep;
}

/** The next day after `day` on which the plan has something to do, or -1 when it has nothing. */
function invoiceNextDay(p: InvoicePlan, day: EpochDay): number {
  let next = -1;
  for (const x of [p.payDay, p.secondPayDay, p.voidDay, p.holdUntil, p.exportDay]) {
    if (x === -1) continue;
    const at = x <= day ? day + 1 : x;
    if (next === -1 || at < next) next = at;
  }
  return next;
}
