/** Faults on demand: each kind, the count and rate forms, seeding, bad records per record. */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BAD_DATE,
  BAD_MONEY,
  BAD_NUMBER,
  BAD_RECORD_KINDS,
  BIG_ID,
  BIG_INT,
  parseFaultSpec,
  YEAR_ZERO_DATE,
} from '../../src/simulator/server/faults.js';
import type { Simulator } from '../../src/simulator/server/simulator.js';
import { INVOICE, LEASE, PROPERTY_A } from './fixtures/dataset.js';
import {
  asList,
  buildRequest,
  call,
  invoicesOf,
  leasesOf,
  startFixtureSimulator,
  type CallOptions,
} from './support.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startFixtureSimulator();
});
afterAll(async () => {
  await sim.close();
});

const LEASES: CallOptions = {
  method: 'getLeases',
  version: 'r2',
  params: {
    propertyId: String(PROPERTY_A),
    leaseStatusTypeIds: '1,2,3,4,5,6',
    includeOtherIncomeLeases: '1',
  },
};
const INVOICES: CallOptions = {
  method: 'getInvoices',
  version: 'r2',
  params: { includeExported: '1', customerRefunds: '1' },
};

async function rawCall(
  target: Simulator,
  options: CallOptions,
  signal?: AbortSignal,
): Promise<{ status: number; text: string; length: string | null }> {
  const { url, init } = buildRequest(target, options);
  const res = await fetch(url, { ...init, signal });
  const text = await res.text();
  return { status: res.status, text, length: res.headers.get('content-length') };
}

describe('call faults', () => {
  it('500x2: the next two calls fail with HTTP 500 and an error envelope, then the service answers', async () => {
    sim.setFaults('500x2');
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const reply = await call(sim, LEASES);
      statuses.push(reply.status);
      if (reply.status === 500)
        expect(reply.body.response).toMatchObject({ requestId: '15', error: { code: 500 } });
    }
    expect(statuses).toEqual([500, 500, 200]);
    sim.setFaults(undefined);
  });

  it('502 and 503, in spec order, each carrying the envelope', async () => {
    sim.setFaults('502x1,503x1');
    const first = await call(sim, LEASES);
    const second = await call(sim, { ...LEASES, format: 'xml' });
    expect(first.status).toBe(502);
    expect(first.body.response.error.code).toBe(500);
    expect(second.status).toBe(503);
    expect(second.body.response.error.code).toBe('500');
    expect((await call(sim, LEASES)).status).toBe(200);
    sim.setFaults(undefined);
  });

  it('429 count form: that many throttled calls with Retry-After; rate form: bursts', async () => {
    sim.setFaults('429x2:retry=3');
    const replies = [await call(sim, LEASES), await call(sim, LEASES), await call(sim, LEASES)];
    expect(replies.map((r) => r.status)).toEqual([429, 429, 200]);
    expect(replies[0]!.headers.get('retry-after')).toBe('3');
    expect(replies[0]!.body.response.error.code).toBe(429);
    sim.setFaults('429@1:burst=2:retry=1');
    expect((await call(sim, LEASES)).status).toBe(429);
    sim.setFaults('429@0.2:burst=4,seed=11');
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await call(sim, LEASES)).status);
    // Throttled calls come in runs of at least four.
    const runs = statuses
      .join(',')
      .split(/,?200,?/)
      .filter((run) => run !== '')
      .map((run) => run.split(',').length);
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs.slice(0, -1)) expect(run).toBeGreaterThanOrEqual(4);
    sim.setFaults(undefined);
  });

  it('method= limits a fault to one method', async () => {
    sim.setFaults('500x1:method=getInvoices');
    expect((await call(sim, LEASES)).status).toBe(200);
    expect((await call(sim, INVOICES)).status).toBe(500);
    expect((await call(sim, INVOICES)).status).toBe(200);
    sim.setFaults(undefined);
  });

  it('slow: the reply waits past a client timeout, then comes whole to a patient client', async () => {
    sim.setFaults('slowx2:ms=1200');
    const started = Date.now();
    await expect(rawCall(sim, LEASES, AbortSignal.timeout(300))).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1000);
    const patient = Date.now();
    const reply = await rawCall(sim, LEASES);
    expect(Date.now() - patient).toBeGreaterThanOrEqual(1100);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text).response.code).toBe(200);
    const quick = Date.now();
    await rawCall(sim, LEASES);
    expect(Date.now() - quick).toBeLessThan(1000);
    sim.setFaults(undefined);
  });

  it('reset: the connection drops mid-body', async () => {
    sim.setFaults('resetx1');
    await expect(rawCall(sim, LEASES)).rejects.toThrow();
    expect((await rawCall(sim, LEASES)).status).toBe(200);
    expect(sim.stats().faults.reset).toBeGreaterThanOrEqual(1);
    sim.setFaults(undefined);
  });

  it('truncate: a complete HTTP reply whose body is cut short', async () => {
    const whole = await rawCall(sim, LEASES);
    sim.setFaults('truncatex2');
    const cut = await rawCall(sim, LEASES);
    expect(cut.status).toBe(200);
    expect(Number(cut.length)).toBe(Buffer.byteLength(cut.text));
    expect(cut.text.length).toBeLessThan(whole.text.length);
    expect(whole.text.startsWith(cut.text)).toBe(true);
    expect(() => JSON.parse(cut.text)).toThrow();
    const xml = await rawCall(sim, { ...LEASES, format: 'xml' });
    expect(XMLValidator.validate(xml.text)).not.toBe(true);
    sim.setFaults(undefined);
  });

  it('malformed: HTTP 200 with a body that does not parse, JSON and XML', async () => {
    sim.setFaults('malformedx2');
    const json = await rawCall(sim, LEASES);
    expect(json.status).toBe(200);
    expect(() => JSON.parse(json.text)).toThrow();
    const xml = await rawCall(sim, { ...LEASES, format: 'xml' });
    expect(XMLValidator.validate(xml.text)).not.toBe(true);
    expect(() => new XMLParser().parse(xml.text, true)).toThrow();
    expect(JSON.parse((await rawCall(sim, LEASES)).text).response.code).toBe(200);
    sim.setFaults(undefined);
  });

  it('rate form: seeded, so the same spec and calls give the same failures', async () => {
    const run = async (target: Simulator) => {
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await call(target, LEASES)).status);
      return statuses;
    };
    sim.setFaults('500@0.3,503@0.2,seed=42');
    const first = await run(sim);
    sim.setFaults('500@0.3,503@0.2,seed=42');
    const second = await run(sim);
    expect(second).toEqual(first);
    expect(first).toContain(200);
    expect(first.some((status) => status >= 500)).toBe(true);
    sim.setFaults('500@0.3,503@0.2,seed=43');
    expect(await run(sim)).not.toEqual(first);
    // Without seed= the simulator's seed decides.
    const other = await startFixtureSimulator({ faults: '500@0.5' });
    const twin = await startFixtureSimulator({ faults: '500@0.5' });
    try {
      expect(await run(twin)).toEqual(await run(other));
    } finally {
      await other.close();
      await twin.close();
    }
    sim.setFaults(undefined);
  });
});

describe('bad records', () => {
  it('damages a seeded share of records, the same records on every call, clean once off', async () => {
    const clean = leasesOf(await call(sim, LEASES));
    sim.setFaults('badrecord@0.3');
    const first = leasesOf(await call(sim, LEASES));
    const second = leasesOf(await call(sim, LEASES));
    expect(second).toEqual(first);
    const damaged = first.filter((lease, i) => JSON.stringify(lease) !== JSON.stringify(clean[i]));
    expect(damaged.length).toBeGreaterThan(0);
    expect(damaged.length).toBeLessThan(first.length);
    const kinds = new Set<string>();
    for (const lease of damaged) {
      if (lease.id === undefined) kinds.add('id');
      else if (lease.moveInDate === BAD_DATE) kinds.add('date');
      else if (lease.leaseIntervalId === BAD_NUMBER) kinds.add('number');
    }
    expect(kinds.size).toBeGreaterThan(1);
    // The page is otherwise valid, and each bad record is the clean one with one field damaged.
    expect(first).toHaveLength(clean.length);
    // Paging does not change which records are bad.
    const paged = leasesOf(await call(sim, { ...LEASES, query: { per_page: 5, page_no: 2 } }));
    expect(paged).toEqual(first.slice(5, 10));
    sim.setFaults(undefined);
    expect(leasesOf(await call(sim, LEASES))).toEqual(clean);
  });

  it('ids= and kind= pick exactly which records and how', async () => {
    sim.setFaults(`badrecord:ids=${LEASE.current}|${LEASE.notice}:kind=date`);
    const leases = leasesOf(await call(sim, LEASES));
    const bad = leases.filter((lease) => lease.moveInDate === BAD_DATE).map((lease) => Number(lease.id));
    expect(bad).toEqual([LEASE.current, LEASE.notice]);
    sim.setFaults(`badrecord:ids=${INVOICE.standard}:kind=number`);
    const invoices = invoicesOf(await call(sim, INVOICES));
    expect(invoices.find((invoice) => invoice.id === String(INVOICE.standard)).amount).toBe(BAD_NUMBER);
    expect(invoices.filter((invoice) => invoice.amount === BAD_NUMBER)).toHaveLength(1);
    sim.setFaults(`badrecord:ids=${INVOICE.standard}:kind=id`);
    const xml = invoicesOf(await call(sim, { ...INVOICES, format: 'xml' }));
    expect(xml.filter((invoice) => invoice.id === undefined)).toHaveLength(1);
    expect(xml.find((invoice) => invoice.invoiceNumber === `INV-${INVOICE.standard}`)).not.toHaveProperty(
      'id',
    );
    sim.setFaults(undefined);
  });

  it('badrecord with method= leaves the other method clean', async () => {
    const cleanInvoices = (await call(sim, INVOICES)).text;
    const cleanLeases = leasesOf(await call(sim, LEASES));
    sim.setFaults('badrecord@1:method=getLeases');
    expect((await call(sim, INVOICES)).text).toBe(cleanInvoices);
    const leases = leasesOf(await call(sim, LEASES));
    expect(leases.every((lease, i) => JSON.stringify(lease) !== JSON.stringify(cleanLeases[i]))).toBe(true);
    sim.setFaults(undefined);
  });

  /** Where each damage kind goes, and what a damaged value looks like, in a lease and an invoice. */
  const DAMAGE: Record<
    string,
    {
      lease: (record: any) => unknown;
      invoice: (record: any) => unknown;
      check: (value: unknown, clean: unknown) => void;
    }
  > = {
    date: {
      lease: (r) => r.moveInDate,
      invoice: (r) => r.postDate,
      check: (value) => expect(value).toBe(BAD_DATE),
    },
    id: { lease: (r) => r.id, invoice: (r) => r.id, check: (value) => expect(value).toBeUndefined() },
    number: {
      lease: (r) => r.leaseIntervalId,
      invoice: (r) => r.amount,
      check: (value) => expect(value).toBe(BAD_NUMBER),
    },
    nul: {
      lease: (r) => r.propertyName,
      invoice: (r) => r.invoiceNumber,
      check: (value, clean) => {
        expect(value).toContain('\u0000');
        expect(String(value).replace('\u0000', '')).toBe(clean);
      },
    },
    int: {
      lease: (r) => r.occupancyTypeId,
      invoice: (r) => r.invoiceTypeId,
      check: (value) => expect(String(value)).toBe(String(BIG_INT)),
    },
    money: {
      lease: (r) => asList(r.scheduledCharges.scheduledCharge)[0].amount,
      invoice: (r) => r.amount,
      check: (value) => expect(BAD_MONEY).toContain(value),
    },
    year0: {
      lease: (r) => r.moveInDate,
      invoice: (r) => r.postDate,
      check: (value) => expect(value).toBe(YEAR_ZERO_DATE),
    },
    bigid: {
      lease: (r) => r.floorPlanId,
      invoice: (r) => r.vendor.id,
      check: (value) => expect(value).toBe(BIG_ID),
    },
  };

  it('every damage kind, in JSON and XML: the chosen record damaged where specified, the others clean', async () => {
    expect(Object.keys(DAMAGE).sort()).toEqual([...BAD_RECORD_KINDS].sort());
    for (const format of ['json', 'xml'] as const) {
      const cleanLeases = leasesOf(await call(sim, { ...LEASES, format }));
      const cleanInvoices = invoicesOf(await call(sim, { ...INVOICES, format }));
      const cleanLease = cleanLeases.find((lease) => lease.id === String(LEASE.current));
      const cleanInvoice = cleanInvoices.find((invoice) => invoice.id === String(INVOICE.standard));
      const changed = (records: any[], clean: any[]) =>
        records.filter((record, i) => JSON.stringify(record) !== JSON.stringify(clean[i])).length;
      for (const kind of BAD_RECORD_KINDS) {
        const where = DAMAGE[kind]!;
        sim.setFaults(`badrecord:ids=${LEASE.current}|${INVOICE.standard}:kind=${kind}`);
        const leases = leasesOf(await call(sim, { ...LEASES, format }));
        const lease =
          kind === 'id'
            ? leases.find((l) => l.propertyName === cleanLease.propertyName && l.id === undefined)
            : leases.find((l) => l.id === String(LEASE.current));
        where.check(where.lease(lease), where.lease(cleanLease));
        const invoices = invoicesOf(await call(sim, { ...INVOICES, format }));
        const invoice =
          kind === 'id'
            ? invoices.find((i) => i.invoiceNumber === cleanInvoice.invoiceNumber)
            : invoices.find((i) => i.id === String(INVOICE.standard));
        where.check(where.invoice(invoice), where.invoice(cleanInvoice));
        // The other records of the page are as clean.
        expect([changed(leases, cleanLeases), changed(invoices, cleanInvoices)]).toEqual([1, 1]);
      }
      sim.setFaults(undefined);
      // The stored records are untouched: clean again once the fault is off.
      expect(
        leasesOf(await call(sim, { ...LEASES, format })).find((lease) => lease.id === String(LEASE.current)),
      ).toEqual(cleanLease);
      expect(
        invoicesOf(await call(sim, { ...INVOICES, format })).find(
          (invoice) => invoice.id === String(INVOICE.standard),
        ),
      ).toEqual(cleanInvoice);
    }
  });

  it('money damage is past numeric(14,2) both ways, and the choice is fixed per record', async () => {
    expect(BAD_MONEY.some((amount) => amount.split('.')[0]!.length > 12)).toBe(true);
    expect(BAD_MONEY.some((amount) => (amount.split('.')[1] ?? '').length > 2)).toBe(true);
    sim.setFaults('badrecord@1:kind=money:method=getInvoices');
    const first = invoicesOf(await call(sim, INVOICES)).map((invoice) => invoice.amount);
    expect(new Set(first)).toEqual(new Set(BAD_MONEY));
    expect(invoicesOf(await call(sim, INVOICES)).map((invoice) => invoice.amount)).toEqual(first);
    sim.setFaults(undefined);
  });

  it('kind= takes a list; any (the default) spreads every kind over the records', async () => {
    expect(parseFaultSpec('badrecord@0.1:kind=nul|int').rules[0]!.badKinds).toEqual(['nul', 'int']);
    expect(parseFaultSpec('badrecord@0.1').rules[0]!.badKinds).toEqual(BAD_RECORD_KINDS);
    expect(parseFaultSpec('badrecord@0.1:kind=any').rules[0]!.badKinds).toEqual(BAD_RECORD_KINDS);
    sim.setFaults('badrecord@1:kind=nul|year0:method=getLeases');
    const leases = leasesOf(await call(sim, LEASES));
    const kinds = leases.map((lease) =>
      String(lease.propertyName).includes('\u0000')
        ? 'nul'
        : lease.moveInDate === YEAR_ZERO_DATE
          ? 'year0'
          : 'clean',
    );
    expect(new Set(kinds)).toEqual(new Set(['nul', 'year0']));
    sim.setFaults(undefined);
  });
});

describe('fault SPEC', () => {
  it('parses every form', () => {
    const spec = parseFaultSpec(
      '500@0.1, 502x2, 429@5%:burst=2:retry=4, slow@0.05:ms=5000:method=getLeases, reset@0.01, truncate@0.01, malformed@0.01, badrecord@0.02:kind=date, seed=9',
    );
    expect(spec.seed).toBe(9);
    expect(spec.rules.map((rule) => rule.kind)).toEqual([
      '500',
      '502',
      '429',
      'slow',
      'reset',
      'truncate',
      'malformed',
      'badrecord',
    ]);
    expect(spec.rules[0]).toMatchObject({ rate: 0.1 });
    expect(spec.rules[1]).toMatchObject({ count: 2 });
    expect(spec.rules[2]).toMatchObject({ rate: 0.05, burst: 2, retryAfter: 4 });
    expect(spec.rules[3]).toMatchObject({ ms: 5000, method: 'getLeases' });
    expect(spec.rules[7]).toMatchObject({ rate: 0.02, badKinds: ['date'] });
    expect(parseFaultSpec('503').rules[0]).toMatchObject({ rate: 1 });
  });

  it('rejects what it cannot read, naming the item', () => {
    for (const bad of [
      '404@0.1',
      '500@2',
      '500@x',
      'slow:ms=soon',
      'badrecordx2',
      'badrecord@0.1:ids=1',
      '500:ids=1',
      'badrecord:kind=color',
      'badrecord:kind=nul|color',
      '500:colour=red',
    ]) {
      expect(() => parseFaultSpec(bad)).toThrow(/invalid fault/);
    }
  });

  it('startSimulator refuses a bad spec', async () => {
    await expect(startFixtureSimulator({ faults: 'explode@1' })).rejects.toThrow(/invalid fault/);
  });
});
