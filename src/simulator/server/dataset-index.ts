import { inventoryIndex, type InventoryIndex } from '../data/inventory.js';
import type { SimDataset, SimInvoice, SimLease, SimProperty } from '../data/model.js';

/**
 * Lookup tables over a data set so that a call filters one property's records instead of
 * scanning the portfolio: leases and invoices by property id, each list in id order.
 * Rebuild it (`refresh`) whenever the data set changes (after `advance`).
 */
export class DatasetIndex {
  leasesByProperty = new Map<number, SimLease[]>();
  invoicesByProperty = new Map<number, SimInvoice[]>();
  propertiesById = new Map<number, SimProperty>();
  /** Leases by unit, for the unit inventory (getPropertyUnits). */
  inventory: InventoryIndex = { byUnit: new Map() };

  constructor(readonly dataset: SimDataset) {
    this.refresh();
  }

  /** Rebuilds every table from the data set. */
  refresh(): void {
    const { dataset } = this;
    this.propertiesById = new Map(dataset.properties.map((property) => [property.PropertyID, property]));
    const leases = new Map<number, SimLease[]>();
    for (const property of dataset.properties) leases.set(property.PropertyID, []);
    for (const lease of [...dataset.leases].sort((a, b) => a._id - b._id)) {
      let list = leases.get(lease._propertyId);
      if (!list) leases.set(lease._propertyId, (list = []));
      list.push(lease);
    }
    const invoices = new Map<number, SimInvoice[]>();
    for (const invoice of [...dataset.invoices].sort((a, b) => a._id - b._id)) {
      for (const propertyId of new Set(invoice._propertyIds)) {
        let list = invoices.get(propertyId);
        if (!list) invoices.set(propertyId, (list = []));
        list.push(invoice);
      }
    }
    this.inventory = inventoryIndex(dataset);
    this.leasesByProperty = leases;
    this.invoicesByProperty = invoices;
  }

  /** Every invoice in id order. */
  allInvoices(): SimInvoice[] {
    const invoices = this.dataset.invoices;
    for (let i = 1; i < invoices.length; i++) {
      if (invoices[i - 1]!._id > invoices[i]!._id) return [...invoices].sort((a, b) => a._id - b._id);
    }
    return invoices;
  }
}
