/**
 * The statements one page of leases sends (its lookups, and its transaction from begin to commit),
 * counted through the connection: a first load's page and an incremental's. Each round trip is a
 * statement here, a COPY's included. Printed, and held to what they are now.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../../src/catalog/tables.js';
import { FirstLoad } from '../../src/sync/first-load.js';
import type { CompletionAction } from '../../src/streams/types.js';
import { loadPage } from '../../src/sync/load-page.js';
import { connect } from '../../src/warehouse/db.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { leasesPage } from './leases-page.js';

type Tree = Record<string, unknown>;
const fixture = JSON.parse(
  readFileSync(new URL('../streams/leases/fixtures/getLeases-r2.json', import.meta.url), 'utf8'),
) as Tree[];

let t: TestDatabase;
let db: Db;
const sent: string[] = [];
let runId: number;
let unitId: number;
beforeAll(async () => {
  t = await createTestDatabase();
  db = connect(t.url, { onStatement: (text) => sent.push(text) });
  runId = (
    await db
      .insertInto('sync_runs')
      .values({ account_id: 'default', kind: 'sync', streams: ['leases'] })
      .returning('run_id')
      .executeTakeFirstOrThrow()
  ).run_id;
  unitId = await newUnit('test');
});
afterAll(async () => {
  await db?.destroy();
  await t?.drop();
});

/** A work unit of the run. */
async function newUnit(key: string): Promise<number> {
  const row = await db
    .insertInto('sync_work_units')
    .values({ account_id: 'default', run_id: runId, stream: 'leases', kind: 'test', unit_key: key })
    .returning('work_unit_id')
    .executeTakeFirstOrThrow();
  return row.work_unit_id;
}

/** Seen keys stored, of every unit. */
async function seenRows(): Promise<number> {
  const row = await db
    .selectFrom('sync_work_unit_seen')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Loads the page and returns the statements it sent. */
async function statementsOf(
  pageNo: number,
  records: Tree[],
  {
    unit = unitId,
    ...options
  }: { firstLoad?: FirstLoad; onComplete?: CompletionAction[]; unit?: number } = {},
): Promise<string[]> {
  sent.length = 0;
  await loadPage(db, leasesPage({ runId, unitId: unit }, pageNo, records, { trackSeen: true, ...options }));
  return [...sent];
}

it('sends few statements for a page, first load or incremental', async () => {
  const first = await statementsOf(1, fixture, { firstLoad: new FirstLoad() });
  const changed = fixture.map((lease, index) => (index === 0 ? { ...lease, unitNumber: 'moved' } : lease));
  const incremental = await statementsOf(2, changed);
  // A nightly unit's last page: its cursor set and the leases it did not see marked deleted.
  const again = fixture.map((lease, index) =>
    index === 0 ? { ...lease, unitNumber: 'moved again' } : lease,
  );
  const last = await statementsOf(3, again, {
    onComplete: [
      { type: 'cursor', scope: '100001', cursor: 'test', value: '2026-01-01' },
      { type: 'mark-unseen-deleted', scope: { column: 'property_id', values: [100001] } },
    ],
  });
  // Another unit read whole on its first page, one lease gone from the listing: that lease is marked deleted.
  const seenBefore = await seenRows();
  const [gone, ...listed] = again;
  const whole = await statementsOf(1, listed, {
    onComplete: [{ type: 'mark-unseen-deleted', scope: { column: 'property_id', values: [100001] } }],
    unit: await newUnit('whole'),
  });
  const deleted = await db
    .selectFrom('leases')
    .select(['lease_id', 'deleted_at'])
    .where('property_id', '=', 100001)
    .orderBy('lease_id')
    .execute();
  expect(deleted.filter((row) => row.deleted_at !== null).map((row) => String(row.lease_id))).toEqual([
    String(gone.id),
  ]);
  expect(deleted.filter((row) => row.deleted_at === null)).toHaveLength(listed.length);
  // Its keys were read from the statement, not stored.
  expect(await seenRows()).toBe(seenBefore);
  console.log(
    `statements of a page of ${fixture.length} leases: first load ${first.length}, incremental ${incremental.length}, ` +
      `a unit's last ${last.length}, a unit read whole on one page ${whole.length}`,
  );
  expect(whole.length).toBeLessThanOrEqual(WHOLE_PAGE);
  expect(first.length).toBeLessThanOrEqual(FIRST_LOAD_PAGE);
  expect(incremental.length).toBeLessThanOrEqual(INCREMENTAL_PAGE);
  expect(last.length).toBeLessThanOrEqual(LAST_PAGE);
  const cursor = await db
    .selectFrom('sync_cursors')
    .select('value')
    .where('cursor', '=', 'test')
    .executeTakeFirst();
  expect(cursor?.value).toBe('2026-01-01');
});

/**
 * The counts today: a first load's page is its transaction's begin, a COPY a table and its
 * bookkeeping in one statement, with no lookup (26 before, when it looked its keys up and each
 * COPY had a savepoint of its own; 15 before the bookkeeping went in one statement; 13 before the
 * savepoint around its rows went); an incremental's page is its lookup, one merge statement for
 * all tables and one of bookkeeping (9, then 7 with the savepoint and its release); a unit's last
 * page adds marking the unseen deleted, after the seen keys are written (12, then 9). A unit read
 * whole on its first page (a nightly full listing of a property) marks the unseen deleted against
 * the page's own keys, storing none: 11 with one lease and its children marked deleted (12 before).
 */
const FIRST_LOAD_PAGE = 11;
const INCREMENTAL_PAGE = 5;
const LAST_PAGE = 7;
const WHOLE_PAGE = 11;

it('keeps resolved the entry of a record whose page also held a good copy of it, and open that of one without', async () => {
  const [lease, other] = fixture;
  const bad = (record: Tree) => ({ ...record, moveInDate: 'not a date' });
  await statementsOf(4, [bad(lease), lease, bad(other)]);
  const entries = await db
    .selectFrom('quarantine')
    .select(['record_key', 'run_id', 'resolved_run_id'])
    .where('page', '=', 4)
    .orderBy('quarantine_id')
    .execute();
  expect(entries).toEqual([
    { record_key: String(lease.id), run_id: runId, resolved_run_id: runId },
    { record_key: String(other.id), run_id: runId, resolved_run_id: null },
  ]);
});
