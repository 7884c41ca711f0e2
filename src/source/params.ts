/**
 * The parameters each method takes, with their kinds, and their encoding to the strings the
 * source expects: dates `MM/DD/YYYY` (America/Denver), booleans `"0"`/`"1"`, id lists one
 * comma-separated string. Unknown or malformed parameters are rejected here, before any call.
 */
import { DateTime } from 'luxon';
import type { MethodVersion } from '../config/schema.js';
import { BadParameterError } from './errors.js';
import type { ParamValue, SourceMethod } from './types.js';

/** Kinds of parameter values. */
export const PARAM_KINDS = ['id', 'idList', 'text', 'date', 'boolean', 'postMonth'] as const;
export type ParamKind = (typeof PARAM_KINDS)[number];

/** One parameter of a method. */
export interface ParamSpec {
  kind: ParamKind;
  required?: boolean;
  /** Versions that take it; every version when absent. */
  versions?: readonly MethodVersion[];
}

/** The parameters of each method (names exactly as on the wire). */
export const METHOD_PARAMS: Readonly<Record<SourceMethod, Readonly<Record<string, ParamSpec>>>> = {
  getLeases: {
    propertyId: { kind: 'id', required: true },
    applicationId: { kind: 'id' },
    customerId: { kind: 'id' },
    leaseStatusTypeIds: { kind: 'idList' },
    leaseIds: { kind: 'idList' },
    scheduledArCodeIds: { kind: 'idList' },
    unitNumber: { kind: 'text' },
    buildingName: { kind: 'text' },
    moveInDateFrom: { kind: 'date' },
    moveInDateTo: { kind: 'date' },
    leaseExpiringDateFrom: { kind: 'date' },
    leaseExpiringDateTo: { kind: 'date' },
    moveOutDateFrom: { kind: 'date' },
    moveOutDateTo: { kind: 'date' },
    includeOtherIncomeLeases: { kind: 'boolean' },
    residentFriendlyMode: { kind: 'boolean' },
    includeLeaseHistory: { kind: 'boolean' },
    includeArTransactions: { kind: 'boolean' },
  },
  getInvoices: {
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
  getProperties: {
    propertyIds: { kind: 'idList' },
  },
};

/** Encodes a parameter value of the given kind, or explains why it cannot. */
type Encoder = (value: ParamValue, timeZone: string) => string | { problem: string };

const pad2 = (n: number): string => String(n).padStart(2, '0');

function encodeId(value: ParamValue): string | { problem: string } {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : { problem: `${value} is not an id (a non-negative integer)` };
  if (typeof value === 'string' && /^\d{1,16}$/.test(value.trim())) return value.trim();
  return { problem: `${JSON.stringify(value)} is not an id (digits)` };
}

function encodeIdList(value: ParamValue): string | { problem: string } {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value as ParamValue];
  if (items.length === 0 || (items.length === 1 && String(items[0]).trim() === '')) {
    return { problem: 'is an empty list (leave the parameter out instead, which means no filter)' };
  }
  const out: string[] = [];
  for (const item of items) {
    const id = encodeId(typeof item === 'string' ? item.trim() : item);
    if (typeof id !== 'string') return { problem: `holds ${id.problem}` };
    out.push(id);
  }
  return out.join(',');
}

/** `Date`, `YYYY-MM-DD` or `MM/DD/YYYY` → `MM/DD/YYYY` (a Date read in the time zone). */
function encodeDate(value: ParamValue, timeZone: string): string | { problem: string } {
  let day: DateTime | undefined;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return { problem: 'is an invalid Date' };
    day = DateTime.fromJSDate(value, { zone: timeZone });
  } else if (typeof value === 'string') {
    const text = value.trim();
    if (/^\d{4}-\d{2}-\d{2}$/.test(text)) day = DateTime.fromFormat(text, 'yyyy-MM-dd', { zone: timeZone });
    else if (/^\d{2}\/\d{2}\/\d{4}$/.test(text)) day = DateTime.fromFormat(text, 'MM/dd/yyyy', { zone: timeZone });
  }
  if (!day || !day.isValid) return { problem: `${JSON.stringify(value)} is not a date (YYYY-MM-DD or a Date)` };
  return `${pad2(day.month)}/${pad2(day.day)}/${String(day.year).padStart(4, '0')}`;
}

/** `YYYY-MM`, `YYYY-MM-01`, `MM/YYYY`, `MM/01/YYYY` or a Date → `MM/YYYY`. */
function encodePostMonth(value: ParamValue, timeZone: string): string | { problem: string } {
  let year: number | undefined;
  let month: number | undefined;
  if (value instanceof Date) {
    const day = DateTime.fromJSDate(value, { zone: timeZone });
    if (day.isValid) [year, month] = [day.year, day.month];
  } else if (typeof value === 'string') {
    const text = value.trim();
    let m = /^(\d{4})-(\d{2})(?:-01)?$/.exec(text);
    if (m) [year, month] = [Number(m[1]), Number(m[2])];
    m = /^(\d{2})\/(?:01\/)?(\d{4})$/.exec(text);
    if (m) [year, month] = [Number(m[2]), Number(m[1])];
  }
  if (year === undefined || month === undefined || month < 1 || month > 12) {
    return { problem: `${JSON.stringify(value)} is not a post month (YYYY-MM, YYYY-MM-01 or MM/YYYY)` };
  }
  return `${pad2(month)}/${year}`;
}

function encodeBoolean(value: ParamValue): string | { problem: string } {
  if (value === true || value === 1 || value === '1') return '1';
  if (value === false || value === 0 || value === '0') return '0';
  return { problem: `${JSON.stringify(value)} is not a boolean (true/false or 0/1)` };
}

function encodeText(value: ParamValue): string | { problem: string } {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.trim() !== '') return value;
  return { problem: `${JSON.stringify(value)} is not a non-empty text` };
}

const ENCODERS: Readonly<Record<ParamKind, Encoder>> = {
  id: encodeId,
  idList: encodeIdList,
  text: encodeText,
  date: encodeDate,
  boolean: encodeBoolean,
  postMonth: encodePostMonth,
};

/**
 * The parameters of a request as the strings the source expects, in a stable order, checked
 * against the method's list for the version: an unknown name, a value of the wrong kind or a
 * missing required parameter throws `BadParameterError` naming it. `undefined` values are left
 * out. getInvoices' vendor filter follows the version: r1's single `vendorId` and r2's
 * `vendorIds` list are translated into each other where the value allows (one id for r1).
 */
export function encodeParams(
  method: SourceMethod,
  version: MethodVersion,
  params: Readonly<Record<string, ParamValue | undefined>>,
  timeZone: string,
): Record<string, string> {
  const specs = METHOD_PARAMS[method];
  if (!specs) throw new BadParameterError(`unknown method ${JSON.stringify(method)}`, {});
  const input: Record<string, ParamValue | undefined> = { ...params };
  if (method === 'getInvoices') translateVendorFilter(input, version);
  const out: Record<string, string> = {};
  const fail = (name: string, problem: string): never => {
    throw new BadParameterError(`parameter ${name} ${problem}`, { method, parameter: name });
  };
  for (const name of Object.keys(input)) {
    const spec = specs[name];
    if (!spec) {
      const known = Object.keys(specs).filter((key) => !specs[key].versions || specs[key].versions.includes(version));
      fail(name, `is not a parameter of ${method} ${version}; known: ${known.join(', ')}`);
    } else if (spec.versions && !spec.versions.includes(version) && input[name] !== undefined) {
      fail(name, `is not taken by ${method} ${version} (only ${spec.versions.join(', ')})`);
    }
  }
  for (const [name, spec] of Object.entries(specs)) {
    const value = input[name];
    if (value === undefined || value === null) {
      if (spec.required) fail(name, `is required by ${method}`);
      continue;
    }
    const encoded = ENCODERS[spec.kind](value, timeZone);
    if (typeof encoded !== 'string') fail(name, encoded.problem);
    else out[name] = encoded;
  }
  return out;
}

function translateVendorFilter(input: Record<string, ParamValue | undefined>, version: MethodVersion): void {
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
}
