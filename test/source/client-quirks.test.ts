/**
 * Every quirk of the source, as the simulator serves it, read through the quirk helpers:
 * every documented field of every record of both methods and both versions decodes, and each
 * quirk was actually met along the way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asBoolean,
  asDate,
  asDateTime,
  asId,
  asList,
  asMoney,
  asPostMonth,
  asText,
} from '../../src/source/field-readers.js';
import type { SourceRequest } from '../../src/source/types.js';
import { allPages, clientFor, sourceConfig, startProxy, startSim } from './support.js';
import { GET_PROPERTIES } from '../../src/streams/properties/manifest.js';
import { GET_INVOICES } from '../../src/streams/invoices/manifest.js';
import { GET_LEASES } from '../../src/streams/leases/manifest.js';

let sim: Awaited<ReturnType<typeof startSim>>;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(async () => {
  await sim.close();
});

type Reader = (value: unknown, field: string) => unknown;
type Record_ = Record<string, unknown>;

/** What was met while reading: raw spellings per helper, list shapes. */
class Seen {
  readonly spellings = new Map<string, Set<string>>();
  bareLists = 0;
  arrayLists = 0;
  note(kind: string, value: unknown): void {
    if (!this.spellings.has(kind)) this.spellings.set(kind, new Set());
    this.spellings.get(kind)!.add(String(value));
  }
  has(kind: string, test: (value: string) => boolean): boolean {
    return [...(this.spellings.get(kind) ?? [])].some(test);
  }
}

const READERS: Record<string, Reader> = {
  id: asId,
  date: asDate,
  dateTime: asDateTime,
  money: asMoney,
  boolean: asBoolean,
  postMonth: asPostMonth,
  text: asText,
};

/** Fields of a record by the helper that reads them, and its lists by container and item. */
interface Shape {
  fields: Partial<Record<keyof typeof READERS, string[]>>;
  lists?: Record<string, [item: string, shape: Shape]>;
  objects?: Record<string, Shape>;
}

const applicationShape: Shape = {
  fields: { id: ['id', 'applicationStatusTypeId'], dateTime: ['applicationDateTime'] },
};
const intervalShape: Shape = {
  fields: {
    id: ['id', 'leaseIntervalTypeId', 'leaseIntervalStatusTypeId', 'applicationId'],
    date: ['startDate', 'endDate'],
    dateTime: ['intervalDateTime', 'applicationCompletedOn'],
  },
  lists: { applications: ['application', applicationShape] },
};
const leaseShape: Shape = {
  fields: {
    id: [
      'id',
      'leaseStatusTypeId',
      'propertyId',
      'leaseIntervalId',
      'floorPlanId',
      'unitId',
      'occupancyTypeId',
      'unitSpaceId',
    ],
    date: ['moveInDate', 'moveOutDate', 'transferDate'],
    boolean: ['isMonthToMonth', 'isOtherIncomeLease'],
    text: ['propertyName', 'unitNumber', 'buildingName', 'leaseIntervalStatus'],
  },
  objects: { moveOutReason: { fields: { id: ['id', 'moveOutTypeId'], text: ['name'] } } },
  lists: {
    customers: [
      'customer',
      {
        fields: { id: ['id'], date: ['moveInDate', 'moveOutDate'], text: ['nameFull'] },
        lists: {
          phones: ['phone', { fields: { id: ['phoneTypeId'] } }],
          addresses: ['address', { fields: { text: ['city'] } }],
          customerContacts: ['customerContact', { fields: { id: ['id'] } }],
        },
      },
    ],
    unitSpaces: ['unitSpace', { fields: { id: ['unitSpaceId'], text: ['unitSpace'] } }],
    scheduledCharges: [
      'scheduledCharge',
      {
        fields: {
          id: ['id', 'leaseIntervalId', 'chargeCodeId', 'applicationId'],
          date: ['startDate', 'endDate'],
          money: ['amount'],
        },
      },
    ],
    leaseIntervals: ['leaseInterval', intervalShape],
    leaseHistory: ['leaseInterval', intervalShape],
    leaseActivities: ['leaseActivity', { fields: { id: ['id', 'eventTypeId'], date: ['eventDate'] } }],
    arTransactions: [
      'arTransaction',
      {
        fields: {
          id: ['id', 'transactionTypeId', 'arCodeId', 'leaseIntervalId', 'scheduledChargeId', 'arPaymentId'],
          date: ['transactionDate', 'postDate', 'dueDate'],
          postMonth: ['postMonth'],
          money: ['amount', 'amountPaid', 'balanceDue'],
          boolean: ['isTemporary', 'isReversed'],
        },
      },
    ],
  },
};
const lineShape: Shape = {
  fields: {
    id: ['id', 'departmentId'],
    money: ['quantity', 'rate', 'amount', 'amountDue'],
    boolean: ['is1099', 'billback'],
  },
  objects: { property: { fields: { id: ['id'] } }, glAccount: { fields: { id: ['id'] } } },
};
const invoiceShape: Shape = {
  fields: {
    id: ['id', 'invoiceTypeId', 'reversalInvoiceId', 'routingTagId'],
    date: ['date', 'postDate', 'dueDate'],
    postMonth: ['postMonth'],
    boolean: ['isPosted', 'isOnHold', 'isExported'],
    money: ['subTotal', 'taxAmount', 'shippingAmount', 'discountAmount', 'retention', 'amount', 'amountDue'],
  },
  objects: {
    vendor: { fields: { id: ['id'] } },
    remittance: { fields: { id: ['id', 'apPaymentTypeId'] } },
    account: { fields: { id: ['id'] } },
  },
  lists: {
    lineItems: ['lineItem', lineShape],
    invoicePayments: [
      'invoicePayment',
      {
        fields: {
          id: ['paymentId'],
          date: ['paymentDate', 'postDate'],
          postMonth: ['postMonth'],
          money: ['paymentAmount'],
          boolean: ['isReversed'],
        },
      },
    ],
    voidedPayments: [
      'voidedPayment',
      { fields: { id: ['paymentId'], date: ['paymentDate', 'voidedOn'], money: ['paymentAmount'] } },
    ],
  },
};
const propertyShape: Shape = {
  fields: { id: ['PropertyID'], boolean: ['IsDisabled'], text: ['MarketingName', 'Type'] },
};

/** Reads a record by its shape; every helper must accept what it meets. Returns fields read. */
function read(record: Record_, shape: Shape, seen: Seen, path: string): number {
  let count = 0;
  for (const [kind, fields] of Object.entries(shape.fields)) {
    for (const field of fields ?? []) {
      if (!(field in record)) continue;
      READERS[kind](record[field], `${path}.${field}`);
      seen.note(kind, record[field]);
      count += 1;
    }
  }
  for (const [name, inner] of Object.entries(shape.objects ?? {})) {
    if (record[name] !== undefined) count += read(record[name] as Record_, inner, seen, `${path}.${name}`);
  }
  for (const [container, [item, inner]] of Object.entries(shape.lists ?? {})) {
    const holder = record[container] as Record_ | undefined;
    if (holder === undefined) continue;
    // r1 invoices spell the line item key in lower case.
    const key =
      item in holder ? item : Object.keys(holder).find((k) => k.toLowerCase() === item.toLowerCase())!;
    const raw = holder[key];
    if (Array.isArray(raw)) seen.arrayLists += 1;
    else seen.bareLists += 1;
    for (const child of asList<Record_>(raw))
      count += read(child, inner, seen, `${path}.${container}.${key}`);
  }
  return count;
}

async function readAll(
  version: 'r1' | 'r2',
  format: 'json' | 'xml',
  request: SourceRequest,
  shape: Shape,
  seen: Seen,
): Promise<number> {
  const { client } = clientFor(
    sourceConfig(sim.url, { format, pageSize: 200, versions: { getLeases: version, getInvoices: version } }),
  );
  let records = 0;
  try {
    for (const page of await allPages(client, request)) {
      for (const record of page.records) {
        expect(read(record as Record_, shape, seen, request.method.name)).toBeGreaterThan(3);
        records += 1;
      }
    }
  } finally {
    await client.close();
  }
  return records;
}

describe('every quirk, read through the helpers', () => {
  const seen = new Seen();
  it('reads every lease, invoice and property of both versions', async () => {
    const propertyId = String(sim.dataset.properties[0].PropertyID);
    for (const version of ['r1', 'r2'] as const) {
      const leases = await readAll(
        version,
        'json',
        {
          method: GET_LEASES,
          params: {
            propertyId,
            leaseStatusTypeIds: [1, 2, 3, 4, 5, 6],
            includeOtherIncomeLeases: true,
            includeLeaseHistory: true,
            includeArTransactions: true,
          },
        },
        leaseShape,
        seen,
      );
      const invoices = await readAll(
        version,
        'json',
        {
          method: GET_INVOICES,
          params: { includeExported: true, customerRefunds: true, includeVoidedPayments: true },
        },
        invoiceShape,
        seen,
      );
      expect(leases).toBeGreaterThan(50);
      expect(invoices).toBeGreaterThan(50);
    }
    expect(await readAll('r1', 'xml', { method: GET_PROPERTIES, params: {} }, propertyShape, seen)).toBe(
      sim.dataset.properties.length,
    );
  });

  it('met each quirk on the way', () => {
    // One-element lists as bare objects, and as arrays.
    expect(seen.bareLists).toBeGreaterThan(0);
    expect(seen.arrayLists).toBeGreaterThan(0);
    // Booleans in every spelling: 0/1 (JSON integers and strings), t/f, true/false.
    for (const spelling of ['0', '1', 't', 'f', 'true', 'false'])
      expect(seen.has('boolean', (v) => v === spelling)).toBe(true);
    // Money: decimal strings, r1's dollar sign with a negative after it, JSON numbers without decimals.
    expect(seen.has('money', (v) => /^\d+\.\d{2}$/.test(v))).toBe(true);
    expect(seen.has('money', (v) => v.startsWith('$-'))).toBe(true);
    expect(seen.has('money', (v) => /^-?\d+$/.test(v))).toBe(true);
    // Datetimes in daylight and in standard time.
    expect(seen.has('dateTime', (v) => v.endsWith(' MDT'))).toBe(true);
    expect(seen.has('dateTime', (v) => v.endsWith(' MST'))).toBe(true);
    expect(seen.has('postMonth', (v) => /^\d{2}\/01\/\d{4}$/.test(v))).toBe(true);
    expect(seen.has('date', (v) => /^\d{2}\/\d{2}\/\d{4}$/.test(v))).toBe(true);
  });

  it('reads "No records found" as an empty last page, in both formats', async () => {
    for (const format of ['json', 'xml'] as const) {
      const { client } = clientFor(sourceConfig(sim.url, { format }));
      const pages = await allPages(client, {
        method: GET_LEASES,
        params: { propertyId: sim.dataset.properties[0].PropertyID, leaseIds: [1] },
      });
      await client.close();
      expect(pages).toHaveLength(1);
      expect(pages[0].records).toEqual([]);
      expect(pages[0].isLast).toBe(true);
    }
  });

  it('reads a one-record result sent bare as a one-record list', async () => {
    // Each lease alone, by id: the simulator sends a seeded share of one-record results bare.
    const bodies: string[] = [];
    const proxy = await startProxy(sim.url, (reply) => {
      bodies.push(reply.body.toString('utf8'));
      return reply;
    });
    const { client } = clientFor(sourceConfig(proxy.url));
    const propertyId = sim.dataset.properties[0].PropertyID;
    const ids = sim.dataset.leases
      .filter((lease) => lease._propertyId === propertyId && lease._status === 4)
      .slice(0, 12)
      .map((lease) => lease.id);
    try {
      for (const id of ids) {
        const pages = await allPages(client, { method: GET_LEASES, params: { propertyId, leaseIds: [id] } });
        expect(pages.map((page) => page.records.length)).toEqual([1]);
        expect((pages[0].records[0] as Record_).id).toBe(id);
      }
    } finally {
      await client.close();
      await proxy.close();
    }
    expect(bodies.some((body) => body.includes('"lease":{'))).toBe(true);
    expect(bodies.some((body) => body.includes('"lease":[{'))).toBe(true);
  });
});
