/**
 * What a complete sync of a data set must hold (row counts per table, exact money sums),
 * computed from the SimDataset alone.
 * What "complete" means: docs/simulator.md#what-a-complete-sync-must-hold
 */
import { inventoryIndex, propertyInventory, type InventorySpace } from './inventory.js';
import type { SimDataset, SimInvoice, SimLease } from './model.js';
import { centsToString, numberToCents, stringToCents } from './money.js';

/** Row count and, where the table has money, exact sums as decimal strings. */
export interface TableTruth {
  count: number;
  /** Sum of the amount column (`amount`, `paymentAmount`), two decimals. */
  sumAmount?: string;
  /** Invoices only: sum of amountDue. */
  sumAmountDue?: string;
}

/** Expected contents of each warehouse table. */
export interface WarehouseTruth {
  leases: TableTruth;
  lease_intervals: TableTruth;
  lease_activities: TableTruth;
  lease_customers: TableTruth;
  lease_unit_spaces: TableTruth;
  lease_scheduled_charges: TableTruth;
  ar_transactions: TableTruth;
  invoices: TableTruth;
  invoice_line_items: TableTruth;
  invoice_payments: TableTruth;
  voided_payments: TableTruth;
  unit_inventories: TableTruth;
  units: TableTruth;
  unit_spaces: TableTruth;
}

/** Warehouse table names that `expectedWarehouse` reports. */
export const TRUTH_TABLES = [
  'leases',
  'lease_intervals',
  'lease_activities',
  'lease_customers',
  'lease_unit_spaces',
  'lease_scheduled_charges',
  'ar_transactions',
  'invoices',
  'invoice_line_items',
  'invoice_payments',
  'voided_payments',
  'unit_inventories',
  'units',
  'unit_spaces',
] as const satisfies readonly (keyof WarehouseTruth)[];

/** Narrows what counts as complete (all of the data set when omitted). */
export interface TruthOptions {
  /** Only these properties: leases by their property, invoices having a line for one of them. */
  propertyIds?: readonly number[];
}

/** Lease-side expectations of one lease, added into the running totals. */
function addLease(t: Totals, l: SimLease): void {
  t.leases++;
  t.intervals += l.leaseIntervals.leaseInterval.length + (l.leaseHistory?.leaseInterval.length ?? 0);
  t.activities += l.leaseActivities?.leaseActivity.length ?? 0;
  t.customers += l.customers.customer.length;
  t.unitSpaces += l.unitSpaces.unitSpace.length;
  for (const c of l.scheduledCharges?.scheduledCharge ?? []) {
    t.charges++;
    t.chargeCents += stringToCents(String(c.amount));
  }
  for (const a of l.arTransactions?.arTransaction ?? []) {
    t.ar++;
    t.arCents += numberToCents(a.amount);
  }
}

function addInvoice(t: Totals, inv: SimInvoice): void {
  t.invoices++;
  t.invoiceCents += stringToCents(inv.amount);
  t.invoiceDueCents += stringToCents(inv.amountDue);
  for (const line of inv.lineItems.lineItem) {
    t.lines++;
    t.lineCents += stringToCents(String(line.amount));
  }
  for (const p of inv.invoicePayments?.invoicePayment ?? []) {
    t.payments++;
    t.paymentCents += stringToCents(p.paymentAmount);
  }
  for (const v of inv.voidedPayments?.voidedPayment ?? []) {
    t.voided++;
    t.voidedCents += stringToCents(v.paymentAmount);
  }
}

interface Totals {
  leases: number;
  intervals: number;
  activities: number;
  customers: number;
  unitSpaces: number;
  charges: number;
  chargeCents: number;
  ar: number;
  arCents: number;
  invoices: number;
  invoiceCents: number;
  invoiceDueCents: number;
  lines: number;
  lineCents: number;
  payments: number;
  paymentCents: number;
  voided: number;
  voidedCents: number;
}

/** What a complete sync of the data set (or of some of its properties) must contain. */
export function expectedWarehouse(dataset: SimDataset, options: TruthOptions = {}): WarehouseTruth {
  const only = options.propertyIds ? new Set(options.propertyIds) : undefined;
  const t: Totals = {
    leases: 0,
    intervals: 0,
    activities: 0,
    customers: 0,
    unitSpaces: 0,
    charges: 0,
    chargeCents: 0,
    ar: 0,
    arCents: 0,
    invoices: 0,
    invoiceCents: 0,
    invoiceDueCents: 0,
    lines: 0,
    lineCents: 0,
    payments: 0,
    paymentCents: 0,
    voided: 0,
    voidedCents: 0,
  };
  for (const l of dataset.leases) if (!only || only.has(l._propertyId)) addLease(t, l);
  const inventory = expectedInventory(dataset, options);
  const spaces = inventory.flatMap((property) => property.spaces);
  for (const inv of dataset.invoices)
    if (!only || inv._propertyIds.some((p) => only.has(p))) addInvoice(t, inv);
  return {
    leases: { count: t.leases },
    lease_intervals: { count: t.intervals },
    lease_activities: { count: t.activities },
    lease_customers: { count: t.customers },
    lease_unit_spaces: { count: t.unitSpaces },
    lease_scheduled_charges: { count: t.charges, sumAmount: centsToString(t.chargeCents) },
    ar_transactions: { count: t.ar, sumAmount: centsToString(t.arCents) },
    invoices: {
      count: t.invoices,
      sumAmount: centsToString(t.invoiceCents),
      sumAmountDue: centsToString(t.invoiceDueCents),
    },
    invoice_line_items: { count: t.lines, sumAmount: centsToString(t.lineCents) },
    invoice_payments: { count: t.payments, sumAmount: centsToString(t.paymentCents) },
    voided_payments: { count: t.voided, sumAmount: centsToString(t.voidedCents) },
    unit_inventories: { count: inventory.length },
    units: { count: inventory.reduce((sum, property) => sum + property.units, 0) },
    unit_spaces: { count: spaces.length },
  };
}

/** One space of the inventory as a complete sync must hold it. */
export interface SpaceTruth extends InventorySpace {
  propertyId: number;
  unitId: string;
  otherIncome: boolean;
}

/** Each property's inventory on the data set's today (every unit, down ones included). */
export function expectedInventory(
  dataset: SimDataset,
  options: TruthOptions = {},
): { propertyId: number; units: number; spaces: SpaceTruth[] }[] {
  const only = options.propertyIds ? new Set(options.propertyIds) : undefined;
  const index = inventoryIndex(dataset);
  return dataset.properties
    .filter((property) => !only || only.has(property.PropertyID))
    .map((property) => {
      const units = propertyInventory(dataset, index, property);
      return {
        propertyId: property.PropertyID,
        units: units.length,
        spaces: units.flatMap((unit) =>
          unit.spaces.map((space) => ({
            ...space,
            propertyId: property.PropertyID,
            unitId: unit.unit.unitId,
            otherIncome: unit.otherIncome,
          })),
        ),
      };
    });
}

/** Lease counts by status id (1-6), for tests that check what a default (Current+Notice) read returns. */
export function leaseCountsByStatus(
  dataset: SimDataset,
  options: TruthOptions & { includeOtherIncome?: boolean } = {},
): Record<number, number> {
  const only = options.propertyIds ? new Set(options.propertyIds) : undefined;
  const counts: Record<number, number> = { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0 };
  for (const l of dataset.leases) {
    if (only && !only.has(l._propertyId)) continue;
    if (options.includeOtherIncome === false && l.isOtherIncomeLease === 't') continue;
    counts[l._status]++;
  }
  return counts;
}
