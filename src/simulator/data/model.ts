/**
 * The simulator's data model: the contract between the data set (generation and `advance`) and
 * the server. Records are in r2 wire shape and read-only outside `advanceDataset`; shapes,
 * encodings and sharing: docs/simulator.md#the-data-model
 */

import type { InvoicePlan, LeasePlan, SimWorld } from './world.js';

/** A day as `YYYY-MM-DD`, in America/Denver. */
export type IsoDay = string;

/** Lease status type ids of the source. */
export const LEASE_STATUS = {
  Applicant: 1,
  Cancelled: 2,
  Future: 3,
  Current: 4,
  Notice: 5,
  Past: 6,
} as const;
/** A lease status type id (1-6). */
export type LeaseStatusTypeId = (typeof LEASE_STATUS)[keyof typeof LEASE_STATUS];

/** Invoice type ids of the source. */
export const INVOICE_TYPE = {
  Standard: 5,
  Catalog: 8,
  CreditMemo: 12,
  StandardJobCost: 17,
  CatalogJobCost: 18,
  CustomerRefund: 20,
} as const;
/** An invoice type id. */
export type InvoiceTypeId = (typeof INVOICE_TYPE)[keyof typeof INVOICE_TYPE];

/** Lease interval type ids: 1 Application, 2 Lease Modification, 3 Renewal, 4 Month To Month, 5 Transfer. */
export const LEASE_INTERVAL_TYPE = {
  Application: 1,
  LeaseModification: 2,
  Renewal: 3,
  MonthToMonth: 4,
  Transfer: 5,
} as const;

/** A postal address (vendor addresses use this shape). */
export interface SimAddress {
  street: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

/** A property as getProperties sends it, with its buildings and units. */
export interface SimProperty {
  /** PascalCase record as getProperties sends it. */
  PropertyID: number;
  MarketingName: string;
  Type: string;
  IsDisabled: 0 | 1;
  /** The parent property of a child property (parent/child pairs); absent otherwise. */
  ParentPropertyID?: number;
  LookupCode?: string;
  YearBuilt?: number;
  Address: { Address: string; City: string; State: string; PostalCode: string; Country: string };
  /** The open post months, `MM/YYYY`. */
  PostMonths?: { ArPostMonth: string; ApPostMonth: string };
  /** Buildings and units, for generation and `advance`. */
  _buildings: { name: string; units: SimUnit[] }[];
}

/** A unit (or a parking/storage space of an other-income building). */
export interface SimUnit {
  unitId: string;
  unitNumber: string;
  buildingName: string;
  floorPlanId: string;
  floorPlanName: string;
  /** Unit spaces (usually one; several for multi-space units). */
  spaces: { unitSpaceId: number; unitSpace: string }[];
  marketRent: string;
}

/** A lease interval (current or history), r2 shape. */
export interface SimLeaseInterval {
  id: number;
  startDate: string;
  endDate: string;
  leaseIntervalTypeId: string;
  leaseIntervalTypeName: string;
  leaseIntervalStatusTypeId: string;
  leaseIntervalStatusTypeName: string;
  applicationId: string;
  applicationCompletedOn?: string;
  intervalDateTime: string;
  applications?: { application: Record<string, unknown>[] };
}

/** An AR transaction of a lease, r2 shape. */
export interface SimArTransaction {
  id: number;
  transactionTypeId: string;
  arCodeId: number;
  arCodeName: string;
  leaseIntervalId: number;
  description: string;
  transactionDate: string;
  postDate: string;
  postMonth: string;
  dueDate: string;
  /** JSON numbers, as the source sends AR amounts. */
  amount: number;
  amountPaid: number;
  balanceDue: number;
  isTemporary: 0 | 1;
  isReversed: 0 | 1;
  scheduledChargeId?: string;
  arPaymentId?: string;
}

/** A lease in canonical r2 wire shape (see the module comment). */
export interface SimLease {
  id: string;
  leaseStatusTypeId: string;
  propertyId: string;
  propertyName: string;
  leaseSubStatus?: string;
  leaseType?: string;
  moveInDate: string;
  moveOutDate?: string;
  transferDate?: string;
  leaseIntervalStatus: string;
  occupancyTypeId: string;
  occupancyType: string;
  isMonthToMonth: 0 | 1;
  leaseIntervalId: number;
  floorPlanId: string;
  floorPlanName: string;
  spaceConfiguration: string;
  paymentAllowanceType: string;
  unitId: string;
  buildingName?: string;
  unitNumber?: string;
  /** Other-income leases (parking, storage); left out unless includeOtherIncomeLeases=1. */
  isOtherIncomeLease?: 't' | 'f';
  moveOutReason?: { id: string; name: string; moveOutTypeId: string; moveOutType: string };
  customers: { customer: Record<string, unknown>[] };
  unitSpaces: { unitSpace: { unitSpaceId: number; unitSpace: string }[] };
  scheduledCharges?: { scheduledCharge: Record<string, unknown>[] };
  /** The current interval only. */
  leaseIntervals: { leaseInterval: SimLeaseInterval[] };
  /** Every earlier interval, oldest first (rendered only with includeLeaseHistory=1). */
  leaseHistory?: { leaseInterval: SimLeaseInterval[] };
  /** r1's view of the lease's events (rendered only for r1). */
  leaseActivities?: { leaseActivity: Record<string, unknown>[] };
  arTransactions?: { arTransaction: SimArTransaction[] };
  specials?: { special: Record<string, unknown>[] };
  pets?: { pet: Record<string, unknown>[] };
  /** Numeric mirrors used for filtering, kept in step with the wire fields. */
  _id: number;
  _propertyId: number;
  _status: LeaseStatusTypeId;
  _moveIn: IsoDay;
  _moveOut?: IsoDay;
  _leaseEnd?: IsoDay;
  _applicationId: number;
  _customerIds: number[];
  /** The simulator's plan (next events, ledger cursor); set on generated leases, never rendered. */
  _plan?: LeasePlan;
}

/** A payment applied to an invoice. */
export interface SimInvoicePayment {
  paymentId: string;
  paymentNumber: string;
  paymentType: string;
  paymentStatus: string;
  paymentDate: string;
  paymentAmount: string;
  postMonth: string;
  postDate: string;
  isReversed: string;
  payeeName: string;
  bankAccountId?: string;
  bankAccountName?: string;
}

/** A payment that was voided (it is no longer in invoicePayments). */
export interface SimVoidedPayment {
  paymentId: string;
  paymentNumber: string;
  paymentAmount: string;
  paymentDate: string;
  voidedOn: string;
  voidedBy: string;
  voidReason: string;
}

/** An invoice in canonical r2 wire shape. */
export interface SimInvoice {
  id: string;
  invoiceNumber: string;
  invoiceTypeId: string;
  invoiceType: string;
  date: string;
  postDate: string;
  postMonth: string;
  dueDate: string;
  postStatus: string;
  isPosted: string | number | boolean;
  isOnHold: string | number | boolean;
  isExported: string | number | boolean;
  reversalInvoiceId?: string;
  invoiceNote?: string;
  note?: string;
  routingTagId?: string;
  subTotal: string;
  taxAmount: string;
  shippingAmount: string;
  discountAmount: string;
  retention: string;
  amount: string;
  amountDue: string;
  vendor: {
    id: string;
    name: string;
    locationName: string;
    locationCode: string;
    externalId: string;
    address: Record<string, string>;
  };
  remittance: Record<string, string>;
  account?: { id: string; accountNumber: string };
  lineItems: { lineItem: Record<string, unknown>[] };
  invoicePayments?: { invoicePayment: SimInvoicePayment[] };
  voidedPayments?: { voidedPayment: SimVoidedPayment[] };
  _id: number;
  _typeId: InvoiceTypeId;
  _vendorId: number;
  _propertyIds: number[];
  _postDay: IsoDay;
  _exported: boolean;
  /** Days (IsoDay) on which a payment was applied / voided, for the paidInvoice and voidedPayment windows. */
  _paidDays: IsoDay[];
  _voidedDays: IsoDay[];
  /** The simulator's plan (payments, void, hold, export); set on generated invoices, never rendered. */
  _plan?: InvoicePlan;
}

/** The whole data set: what the server serves and `advance` changes. */
export interface SimDataset {
  seed: number;
  scale: 'small' | 'medium' | 'large';
  /** The source's "today" in America/Denver. */
  today: IsoDay;
  properties: SimProperty[];
  /** Sorted by `_id` ascending; new leases get higher ids. */
  leases: SimLease[];
  /** Sorted by `_id` ascending; new invoices get higher ids. */
  invoices: SimInvoice[];
  /** Id counters, vendors and per-property settings that `advanceDataset` continues from. */
  _world?: SimWorld;
}
