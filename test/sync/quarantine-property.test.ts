/**
 * A property test of the quarantine (a small seeded generator: fast-check is not among the
 * project's packages): lease and invoice records damaged in every way a column can refuse a
 * value go through normalize and load against the real Postgres. No page ever fails, every
 * damaged record is in quarantine with a reason naming its field, every clean record loads.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import invoicesStream from '../../src/streams/invoices/stream.js';
import { LEASES } from '../../src/streams/leases/tables.js';
import leasesStream from '../../src/streams/leases/stream.js';
import type { StreamDefinition } from '../../src/streams/types.js';
import { loadPage } from '../../src/sync/load-page.js';
import type { SourceTable } from '../../src/warehouse/schema.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

type Tree = Record<string, unknown>;
const fixture = (path: string): Tree[] =>
  JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as Tree[];

/** A damage: the value it puts in place of the clean one. */
const DAMAGES = {
  nul: (clean: unknown) => `${String(clean).slice(0, 2)}\u0000${String(clean).slice(2)}`,
  loneSurrogate: (clean: unknown) => `${String(clean)}\uD800`,
  smallint: () => '987654',
  moneyWhole: () => '1234567890123456.00',
  moneyScale: () => '1470.125',
  year0: () => '01/15/0000',
  idPastSafe: () => '9007199254740993',
  idPastBigint: () => '9223372036854775808',
  id25: () => '1234567890123456789012345',
} as const;
type Damage = keyof typeof DAMAGES;

/** Where each damage can go in a record, and the field its quarantine reason must name. */
interface Site {
  path: string;
  field: string;
  damages: Damage[];
}
const TEXT: Damage[] = ['nul', 'loneSurrogate'];
const ID: Damage[] = ['idPastSafe', 'idPastBigint', 'id25'];
const MONEY: Damage[] = ['moneyWhole', 'moneyScale'];
const SITES: Record<'leases' | 'invoices', Site[]> = {
  leases: [
    { path: 'propertyName', field: 'propertyName', damages: TEXT },
    { path: 'customers.customer.0.firstName', field: 'customer.firstName', damages: TEXT },
    { path: 'unmappedNote', field: 'unmappedNote', damages: TEXT },
    { path: 'occupancyTypeId', field: 'occupancyTypeId', damages: ['smallint'] },
    { path: 'leaseStatusTypeId', field: 'leaseStatusTypeId', damages: ['smallint'] },
    { path: 'scheduledCharges.scheduledCharge.0.amount', field: 'scheduledCharge.amount', damages: MONEY },
    { path: 'moveInDate', field: 'moveInDate', damages: ['year0'] },
    { path: 'floorPlanId', field: 'floorPlanId', damages: ID },
    { path: 'customers.customer.0.id', field: 'customer.id', damages: ID },
  ],
  invoices: [
    { path: 'invoiceNumber', field: 'invoiceNumber', damages: TEXT },
    { path: 'vendor.name', field: 'vendor.name', damages: TEXT },
    { path: 'invoiceTypeId', field: 'invoiceTypeId', damages: ['smallint'] },
    { path: 'amount', field: 'amount', damages: MONEY },
    { path: 'lineItems.lineItem.amount', field: 'lineItem.amount', damages: MONEY },
    { path: 'postDate', field: 'postDate', damages: ['year0'] },
    { path: 'vendor.id', field: 'vendor.id', damages: ID },
  ],
};

/** mulberry32: a small seeded generator, so that a failure replays from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function setPath(record: Tree, path: string, damage: Damage): void {
  const steps = path.split('.');
  let node: Tree = record;
  // A list of one may come as a bare object: `0` then stands for that object.
  for (const step of steps.slice(0, -1))
    node = (step === '0' && !Array.isArray(node) ? node : node[step]) as Tree;
  const last = steps[steps.length - 1];
  node[last] = DAMAGES[damage](node[last] ?? 'note');
}

interface Generated {
  record: Tree;
  id: string;
  /** The field the quarantine must name, for a damaged record. */
  field?: string;
  damage?: Damage;
}

/** A page of records: clean copies of fixtures under fresh ids, about half damaged by one damage at one site. */
function generatePage(
  next: () => number,
  stream: 'leases' | 'invoices',
  fixtures: Tree[],
  firstId: number,
  size: number,
): Generated[] {
  return Array.from({ length: size }, (_, n) => {
    const record = structuredClone(fixtures[Math.floor(next() * fixtures.length)]);
    const id = String(firstId + n);
    record.id = id;
    if (next() < 0.5) return { record, id };
    const site = SITES[stream][Math.floor(next() * SITES[stream].length)];
    const damage = site.damages[Math.floor(next() * site.damages.length)];
    setPath(record, site.path, damage);
    return { record, id, field: site.field, damage };
  });
}

let t: TestDatabase;
let runId: number;
let unitId: number;
beforeAll(async () => {
  t = await createTestDatabase();
  const run = await t.db
    .insertInto('sync_runs')
    .values({ account_id: 'default', kind: 'sync', streams: ['leases', 'invoices'] })
    .returning('run_id')
    .executeTakeFirstOrThrow();
  runId = run.run_id;
  const unit = await t.db
    .insertInto('sync_work_units')
    .values({ account_id: 'default', run_id: runId, stream: 'leases', kind: 'test', unit_key: 'test' })
    .returning('work_unit_id')
    .executeTakeFirstOrThrow();
  unitId = unit.work_unit_id;
});
afterAll(async () => {
  await t?.drop();
});

async function loadGenerated(stream: StreamDefinition, pages: Generated[][]) {
  for (const [index, page] of pages.entries()) {
    const loaded = await loadPage(t.db, {
      account: 'default',
      stream,
      plan: {
        stream: stream.name,
        kind: 'test',
        unitKey: `test-${stream.name}`,
        propertyIds: ['100001'],
        request: { method: stream.method, params: {} },
        trackSeen: false,
        onComplete: [],
      },
      runId,
      unitId,
      pageNo: index + 1,
      records: page.map((generated) => generated.record),
      version: 'r2',
      calls: 1,
      retries: 0,
      bytes: 0,
      nextPage: index + 2,
      complete: false,
    });
    expect(loaded.quarantined, loaded.problems.join('\n')).toBe(
      page.filter((generated) => generated.field).length,
    );
  }
}

async function expectOutcome(streamName: string, parentTable: 'leases' | 'invoices', pages: Generated[][]) {
  const all = pages.flat();
  const entries = await t.db
    .selectFrom('quarantine')
    .selectAll()
    .where('stream', '=', streamName)
    .where('resolved_at', 'is', null)
    .execute();
  const byKey = new Map(entries.map((entry) => [entry.record_key, entry]));
  const column = parentTable === 'leases' ? 'lease_id' : 'invoice_id';
  const loaded = new Set(
    (await t.db.selectFrom(parentTable).select(column).execute()).map((row) =>
      String((row as Record<string, unknown>)[column]),
    ),
  );
  for (const generated of all) {
    if (generated.field) {
      const entry = byKey.get(generated.id);
      expect(entry, `${generated.id}: ${generated.damage} at ${generated.field}`).toBeDefined();
      expect(entry!.reason, `${generated.damage}`).toMatch(
        new RegExp(`^field ${generated.field.replace(/\./g, '\\.')}: `),
      );
      expect(entry!.page).toBeGreaterThanOrEqual(1);
      expect(loaded.has(generated.id)).toBe(false);
      // Nothing the source sent is lost: a text jsonb cannot hold is whole in raw_text.
      if (generated.damage === 'nul' || generated.damage === 'loneSurrogate')
        expect(JSON.parse(entry!.raw_text!)).toEqual(generated.record);
      else
        expect({ raw: entry!.raw, raw_text: entry!.raw_text }).toEqual({
          raw: generated.record,
          raw_text: null,
        });
    } else {
      expect(loaded.has(generated.id), `clean ${generated.id}`).toBe(true);
    }
  }
  expect(entries).toHaveLength(all.filter((generated) => generated.field).length);
}

describe('records damaged in every way a column refuses', () => {
  it('never fail a page: each damaged lease or invoice is quarantined naming its field, each clean one loads', async () => {
    const generated = new Set<string>();
    for (const seed of [1, 2, 3]) {
      const next = random(seed);
      const leasePages = Array.from({ length: 4 }, (_, page) =>
        generatePage(
          next,
          'leases',
          fixture('../streams/leases/fixtures/getLeases-r2.json'),
          seed * 1_000_000 + page * 1000,
          24,
        ),
      );
      const invoicePages = Array.from({ length: 4 }, (_, page) =>
        generatePage(
          next,
          'invoices',
          fixture('../streams/invoices/fixtures/getInvoices-r2.json'),
          seed * 1_000_000 + page * 1000,
          24,
        ),
      );
      await loadGenerated(leasesStream, leasePages);
      await loadGenerated(invoicesStream, invoicePages);
      await expectOutcome('leases', 'leases', leasePages);
      await expectOutcome('invoices', 'invoices', invoicePages);
      for (const item of [...leasePages, ...invoicePages].flat()) if (item.damage) generated.add(item.damage);
      await t.db.deleteFrom('quarantine').execute();
    }
    // The seeds cover every damage.
    expect([...generated].sort()).toEqual(Object.keys(DAMAGES).sort());
  });

  it('a value Postgres still refuses quarantines only its record, with Postgres\u2019s message, by reloading the page record by record', async () => {
    // A declaration that (wrongly) allows an integer where the table holds a smallint: only Postgres catches it.
    const lax: SourceTable = {
      ...LEASES,
      columns: {
        ...LEASES.columns,
        occupancy_type_id: { ...LEASES.columns.occupancy_type_id, type: 'integer' },
      },
    };
    const stream: StreamDefinition = { ...leasesStream, tables: [lax, ...leasesStream.tables.slice(1)] };
    const leases = fixture('../streams/leases/fixtures/getLeases-r2.json');
    const page: Generated[] = Array.from({ length: 10 }, (_, n) => ({
      record: { ...leases[n % leases.length], id: String(9_000_000 + n) },
      id: String(9_000_000 + n),
    }));
    page[3].record.occupancyTypeId = '987654';
    page[3].field = 'occupancyTypeId';
    await loadGenerated(stream, [page]);
    const entries = await t.db
      .selectFrom('quarantine')
      .selectAll()
      .where('record_key', '=', page[3].id)
      .execute();
    expect(entries).toHaveLength(1);
    expect(entries[0].reason).toMatch(
      /^Postgres refused the record: .*(smallint out of range|out of range for type smallint)/,
    );
    const loaded = await t.db
      .selectFrom('leases')
      .select('lease_id')
      .where(
        'lease_id',
        'in',
        page.map((generated) => Number(generated.id)),
      )
      .execute();
    expect(loaded).toHaveLength(9);
  });
});
