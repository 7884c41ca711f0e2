/**
 * The simulator's private state that lives inside a SimDataset (under `_world` and each
 * record's `_plan`) so that `advanceDataset` can continue from any dataset produced by
 * `generateDataset` or by an earlier advance. Plain JSON: epoch days as integers, money in
 * integer cents, no Maps or class instances, so deep-equal and JSON round trips both work.
 */
import type { GlAccount } from './reference.js';

export { SCALES, type Scale } from '../usage.js';

/** The next id of every kind of record. */
export interface IdCounters {
  lease: number;
  customer: number;
  interval: number;
  application: number;
  scheduledCharge: number;
  arTransaction: number;
  arPayment: number;
  activity: number;
  special: number;
  pet: number;
  invoice: number;
  invoiceNumber: number;
  lineItem: number;
  apPayment: number;
  checkNumber: number;
}

/** A vendor as invoices embed it, with what the simulator needs to bill as it. */
export interface WorldVendor {
  id: number;
  category: 'utility' | 'maintenance' | 'supplies' | 'contractor' | 'services';
  /** Index into the category's work list (utilities bill one kind of service). */
  workIndex: number;
  record: {
    id: string;
    name: string;
    locationName: string;
    locationCode: string;
    externalId: string;
    address: Record<string, string>;
  };
  remittance: Record<string, string>;
  /** Days of credit (due date = invoice date + terms). */
  termsDays: number;
}

/** A capital job of a property, for job-cost invoice lines. */
export interface WorldJob {
  id: string;
  name: string;
  phases: { id: string; name: string }[];
  gl: GlAccount;
  /** The job is billed between these epoch days. */
  fromDay: number;
  toDay: number;
}

/** Per-property settings fixed at generation. */
export interface WorldProperty {
  propertyId: number;
  /** The day the property's books start (first vendor invoices). */
  openDay: number;
  /** The day leasing starts (first applications and move-ins), on or after openDay. */
  leasingDay: number;
  lookupCode: string;
  lateFeeCents: number;
  applicationFeeCents: number;
  adminFeeCents: number;
  /** Monthly RUBS charge range in cents, or 0 when the property does not bill utilities. */
  utilitiesCents: number;
  /** Whether invoices are exported to an outside ledger (weekly, on exportWeekday). */
  exportsInvoices: boolean;
  exportWeekday: number;
  /** Whether conventional leases carry `isOtherIncomeLease: 'f'` (otherwise it is left out). */
  sendsOtherIncomeFlag: boolean;
  vendorIds: number[];
  jobs: WorldJob[];
  bankAccountId: string;
  bankAccountName: string;
  /** Expected new invoices per day. */
  invoicesPerDay: number;
  /** Asking rents (units' marketRent) are as of this epoch day and grow about 3.5% a year. */
  rentBaseDay: number;
  /** Shared `{id, name, lookupCode}` object that invoice lines point at. */
  lineProperty: { id: string; name: string; lookupCode: string };
}

/** Everything `advance` needs beyond the records themselves. */
export interface SimWorld {
  ids: IdCounters;
  vendors: WorldVendor[];
  properties: WorldProperty[];
}

/** A recurring monthly charge of a lease, mirrored from its scheduled charge. */
export interface RecurringCharge {
  scheduledChargeId: string;
  arCodeKey: string;
  cents: number;
  intervalId: number;
  startDay: number;
  /** Last day charged, or -1 while open-ended. */
  endDay: number;
}

/** What happens when a current lease reaches the end of its term. */
export const LEASE_OUTCOMES = ['undecided', 'renew', 'monthToMonth', 'moveOut', 'transfer'] as const;
/** A lease outcome. */
export type LeaseOutcome = (typeof LEASE_OUTCOMES)[number];

/** `nextDay` of a lease that nothing will happen to any more (a JSON-safe "infinity"). */
export const NEVER = 99_999_999;

/** The simulator's plan for a lease: its next events and running ledger state. -1 = none. */
export interface LeasePlan {
  /** Mirror of the lease's `_status` (hot loops read plans, which stay fast V8 objects). */
  status: number;
  /** Index of the unit in the property's flat unit list. */
  unit: number;
  otherIncome: boolean;
  /** 0 pays on time, 1 often late, 2 delinquent. */
  payer: 0 | 1 | 2;
  rentCents: number;
  depositCents: number;
  termMonths: number;
  /** Mirrors of `_moveIn`, `_leaseEnd`, `_moveOut` as epoch days (-1 when unset). */
  moveInDay: number;
  leaseEndDay: number;
  moveOutDay: number;
  /** Applicant: decision day. Current: the day the resident decides about renewal. */
  decideDay: number;
  outcome: LeaseOutcome;
  /** The day a renewal, month-to-month or transfer interval starts. */
  changeDay: number;
  modifyDay: number;
  payDay: number;
  /** Day of the second half of a split payment, or -1. */
  secondPayDay: number;
  reverseDay: number;
  reverseArId: number;
  tempRemoveDay: number;
  moveOutReason: string;
  finalChargesDay: number;
  refundDay: number;
  writeOffDay: number;
  /** The lease this one was transferred to or from, or -1. */
  transferLeaseId: number;
  /**
   * Scheduled rare events: a month-to-month resident's notice, a skip, a courtesy credit, an estimated utility charge.
   */
  mtmNoticeDay: number;
  skipDay: number;
  creditDay: number;
  tempAddDay: number;
  /** The next day on which anything can happen to the lease (NEVER when nothing will). */
  nextDay: number;
  recurring: RecurringCharge[];
  /** Index of the first AR transaction that may still be open (allocation cursor). */
  openFrom: number;
  /** Lease balance in cents over non-temporary transactions. */
  balanceCents: number;
}

/** The simulator's plan for an invoice. -1 = none. */
export interface InvoicePlan {
  payDay: number;
  /** Cents to pay on payDay (the rest later for split payments / retention). */
  payCents: number;
  secondPayDay: number;
  voidDay: number;
  voidPaymentId: string;
  holdUntil: number;
  exportDay: number;
}
