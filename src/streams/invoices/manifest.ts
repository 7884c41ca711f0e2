import { BadParameterError } from '../../source/errors.js';
import type { MethodVersion } from '../../source/settings.js';
import type { RequestParams, SourceMethod } from '../../source/types.js';
import type { SettingsBuilders } from '../settings.js';
import type { StreamManifest } from '../types.js';
import { INVOICE_TABLES } from './tables.js';

/**
 * The vendor filter follows the version: r1's single `vendorId` and r2's `vendorIds` list are
 * translated into each other where the value allows (one id for r1).
 */
function adaptVendorFilter(input: RequestParams, version: MethodVersion): RequestParams {
  if (version === 'r2' && input.vendorId !== undefined && input.vendorIds === undefined) {
    input.vendorIds = [input.vendorId as string | number];
    delete input.vendorId;
  } else if (version === 'r1' && input.vendorIds !== undefined && input.vendorId === undefined) {
    const list = Array.isArray(input.vendorIds)
      ? input.vendorIds
      : typeof input.vendorIds === 'string'
        ? input.vendorIds.split(',')
        : [input.vendorIds];
    if (list.length !== 1) {
      throw new BadParameterError(
        `parameter vendorIds: getInvoices r1 takes one vendorId, not a list of ${list.length}; ` +
          `use r2 or one vendor per request`,
        {
          method: 'getInvoices',
          parameter: 'vendorIds',
        },
      );
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

/** Parameters of every getInvoices call: exported invoices, refunds and voided payments included. */
export const INVOICE_CALL_PARAMS = {
  includeExported: true,
  customerRefunds: true,
  includeVoidedPayments: true,
} as const;

/** Vendor invoices with line items, payments and voided payments, per property group. */
export const invoices = {
  name: 'invoices',
  entity: 'invoice',
  method: GET_INVOICES,
  tables: INVOICE_TABLES,
  personal: {
    childRaw: { invoice_payments: 'invoicePayments.invoicePayment' },
    fields: {},
    // A customer refund (invoice type 20) is paid to the resident: its vendor and payee are the resident.
    when: [
      {
        field: 'invoiceTypeId',
        values: ['20'],
        fields: {
          'vendor.name': 'name',
          'vendor.address.street': 'address',
          'vendor.address.city': 'address',
          'vendor.address.postalCode': 'address',
          'remittance.name': 'name',
          'remittance.street': 'address',
          'remittance.city': 'address',
          'remittance.postalCode': 'address',
          'invoicePayments.invoicePayment.payeeName': 'name',
        },
      },
    ],
    notPersonal: {
      'vendor.locationName': "a vendor location's name",
      'lineItems.lineItem.property.name': "the property's name",
      'lineItems.lineitem.property.name': "the property's name (r1)",
      'lineItems.lineItem.glAccount.name': "a general-ledger account's name",
      'lineItems.lineItem.departmentName': "a department's name",
      'lineItems.lineItem.catalogItemName': "a catalog item's name",
      'lineItems.lineItem.jobName': "a job's name",
      'lineItems.lineItem.jobPhaseName': "a job phase's name",
      'lineItems.lineItem.costCodeName': "a cost code's name",
      'lineItems.lineitem.departmentName': "a department's name (r1)",
      'invoicePayments.invoicePayment.bankAccountName': "the payer's bank account's name",
    },
  },
  backfillBy: 'post date',
  // An invoice is listed for a property when one of its lines is charged to it.
  verify: {
    params: { ...INVOICE_CALL_PARAMS },
    propertyParam: { name: 'propertyIds', list: true },
    covers: { table: 'invoice_line_items', column: 'property_id' },
  },
  settings: ({ nonNegativeInt, positiveInt, streamSettings }: SettingsBuilders) =>
    streamSettings(
      { schedule: '45 2 * * *', chunk: '3m' },
      {
        lookbackDays: nonNegativeInt
          .default(7)
          .describe(
            'Overlap re-read behind each cursor, in days (the post-date window also reaches the ' +
              "previous month's first day).",
          ),
        windowDays: positiveInt.default(92).describe('Longest date window of one work unit, in days.'),
        fullRefreshDays: positiveInt
          .default(7)
          .describe(
            "Days between two full re-reads of a property group's invoices (catches changes no date " +
              'window shows, such as an old invoice marked exported).',
          ),
        propertyGroupSize: positiveInt
          .max(500)
          .default(50)
          .describe('Properties batched into one call (1 to 500).'),
      },
    ),
} as const satisfies StreamManifest;
