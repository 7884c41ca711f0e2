/**
 * The statements one page of leases sends (its lookups, and its transaction from begin to commit),
 * counted through the connection: a first load's page and an incremental's. Each round trip is a
 * statement here, a COPY's included. Printed, and held to what they are now.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../../src/catalog/tables.js';
import { FirstLoad } from '../../src/sync/first-load.js';
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
  unitId = (
    await db
      .insertInto('sync_work_units')
      .values({ account_id: 'default', run_id: runId, stream: 'leases', kind: 'test', unit_key: 'test' })
      .returning('work_unit_id')
      .executeTakeFirstOrThrow()
  ).work_unit_id;
});
afterAll(async () => {
  await db?.destroy();
  await t?.drop();
});

/** Loads the page and returns the statements it sent. */
async function statementsOf(pageNo: number, records: Tree[], firstLoad?: FirstLoad): Promise<string[]> {
  sent.length = 0;
  await loadPage(db, leasesPage({ runId, unitId }, pageNo, records, { trackSeen: true, firstLoad }));
  return [...sent];
}

it('sends few statements for a page, first load or incremental', async () => {
  const first = await statementsOf(1, fixture, new FirstLoad());
  const changed = fixture.map((lease, index) => (index === 0 ? { ...lease, unitNumber: 'moved' } : lease));
  const incremental = await statementsOf(2, changed);
  console.log(
    `statements of a page of ${fixture.length} leases: first load ${first.length}, incremental ${incremental.length}`,
  );
  expect(first.length).toBeLessThanOrEqual(FIRST_LOAD_PAGE);
  expect(incremental.length).toBeLessThanOrEqual(INCREMENTAL_PAGE);
});

/**
 * The counts today: a first load's page is its transaction's begin, savepoints, a COPY a table and
 * bookkeeping, with no lookup (26 before, when it looked its keys up and each COPY had a savepoint
 * of its own); an incremental's page is its lookup and its transaction, one merge statement for all
 * tables.
 */
const FIRST_LOAD_PAGE = 15;
const INCREMENTAL_PAGE = 9;
