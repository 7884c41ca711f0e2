import type { MethodVersion } from '../../source/settings.js';
import { BadParameterError } from '../../source/errors.js';
import type { RequestParams, SourceMethod } from '../../source/types.js';

/**
 * The vendor filter follows the version: r1's single `vendorId` and r2's `vendorIds` list are
 * translated into each other where the value allows (one id for r1).
 */
function adaptVendorFilter(input: RequestParams, version: MethodVersion): RequestParams {
  if (version === 'r2' && input.vendorId !== undefined && input.vendorIds === undefined) {
    input.vendorIds = [input.vendorId as string | number];
    delete input.vendorId;
  } else if (version === 'r1' && input.vendorIds !== undefined && input.vendorId === undefined) {
    const list = Array.isArray(input.vendorIds) ? input.vendorIds : typeof input.vendorIds === 'string' ? input.vendorIds.split(',') : [input.vendorIds];
    if (list.length !== 1) {
      throw new BadParameterError(`parameter vendorIds: getInvoices r1 takes one vendorId, not a list of ${list.length}; use r2 or one vendor per request`, {
        method: 'getInvoices',
        parameter: 'vendorIds',
      });
    }
    input.vendorId = list[0] as string | number;
    delete input.vendorIds;
  }
  return input;
}

/** getInvoices (`/api/v1/vendors`): vendor invoices with line items and payments, r1 or r2. */
export const GET_INVOICES: SourceMethod = {
  name: 'getInvoices',
  area: 'vendors',
  versions: ['r1', 'r2'],
  defaultVersion: 'r2',
  records: ['invoices', 'invoice'],
  params: {
    ids: { kind: 'idList' },
    invoiceNumber: { kind: 'text' },
    vendorIds: { kind: 'idList', versions: ['r2'] },
    vendorId: { kind: 'id', versions: ['r1'] },
    propertyIds: { kind: 'idList' },
    fromDate: { kind: 'date' },
    toDate: { kind: 'date' },
    paidInvoiceFromDate: { kind: 'date' },
    paidInvoiceToDate: { kind: 'date' },
    postMonth: { kind: 'postMonth' },
    includeVoidedPayments: { kind: 'boolean' },
    voidedPaymentFromDate: { kind: 'date' },
    voidedPaymentToDate: { kind: 'date' },
    includeExported: { kind: 'boolean' },
    customerRefunds: { kind: 'boolean' },
    invoiceTypeIds: { kind: 'idList' },
  },
  adapt: adaptVendorFilter,
};
