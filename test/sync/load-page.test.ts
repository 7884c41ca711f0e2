/**
 * Pages of records the warehouse has never held are copied straight into their tables, and
 * their children are not searched for rows to mark deleted; pages that meet rows already there
 * (changed leases, a transaction that moved to another lease, a lease marked deleted) are merged
 * as always. What the warehouse holds afterwards is what the source said, either way.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPage } from '../../src/sync/load-page.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { leasesPage } from './leases-page.js';

type Tree = Record<string, unknown>;
const [template] = JSON.parse(
  readFileSync(new URL('../streams/leases/fixtures/getLeases-r2.json', import.meta.url), 'utf8'),
) as Tree[];

/** A lease of the fixture's shape with its own id and exactly these AR transaction ids. */
function lease(id: number, arIds: number[], extra: Tree = {}): Tree {
  const record = structuredClone(template);
  const [transaction] = (record.arTransactions as { arTransaction: Tree[] }).arTransaction;
  return {
    ...record,
    id: String(id),
    // One id space for every child: the fixture's own children would be shared by every lease.
    customers: '',
    unitSpaces: '',
    leaseIntervals: '',
    scheduledCharges: '',
    leaseHistory: '',
    arTransactions: {
      arTransaction: arIds.map((arId) => ({ ...transaction, id: String(arId), leaseIntervalId: '' })),
    },
    ...extra,
  };
}

let t: TestDatabase;
let runId: number;
let unitId: number;
let pageNo = 0;
beforeAll(async () => {
  t = await createTestDatabase();
  runId = (
    await t.db
      .insertInto('sync_runs')
      .values({ account_id: 'default', kind: 'sync', streams: ['leases'] })
      .returning('run_id')
      .executeTakeFirstOrThrow()
  ).run_id;
  unitId = (
    await t.db
      .insertInto('sync_work_units')
      .values({ account_id: 'default', run_id: runId, stream: 'leases', kind: 'test', unit_key: 'test' })
      .returning('work_unit_id')
      .executeTakeFirstOrThrow()
  ).work_unit_id;
});
afterAll(async () => {
  await t?.drop();
});

function load(records: Tree[]) {
  pageNo += 1;
  return loadPage(t.db, leasesPage({ runId, unitId }, pageNo, records));
}

/** AR transactions as (id, lease, deleted), by id. */
async function ledger(): Promise<[number, number, boolean][]> {
  const { rows } = await sql<{ id: number; lease: number; deleted: boolean }>`
    select ar_transaction_id as id, lease_id as lease, deleted_at is not null as deleted from ar_transactions order by ar_transaction_id`.execute(
    t.db,
  );
  return rows.map((row) => [row.id, row.lease, row.deleted]);
}

describe('loading a page', () => {
  it('writes a page of new leases with all their children', async () => {
    const loaded = await load([lease(1, [11, 12]), lease(2, [21])]);
    expect(loaded).toMatchObject({
      records: 2,
      rowsInserted: 5,
      rowsUpdated: 0,
      rowsDeleted: 0,
      quarantined: 0,
    });
    expect(await ledger()).toEqual([
      [11, 1, false],
      [12, 1, false],
      [21, 2, false],
    ]);
  });

  it('marks deleted a child its lease no longer lists, once the lease is known', async () => {
    const loaded = await load([lease(1, [11], { leaseSubStatus: 'changed' })]);
    expect(loaded).toMatchObject({ rowsDeleted: 1 });
    expect(await ledger()).toEqual([
      [11, 1, false],
      [12, 1, true],
      [21, 2, false],
    ]);
  });

  it('moves a transaction to a new lease without doubling it or marking anything else deleted', async () => {
    const loaded = await load([lease(3, [21, 31])]);
    expect(loaded).toMatchObject({ rowsInserted: 2, rowsUpdated: 1, rowsDeleted: 0, quarantined: 0 });
    expect(await ledger()).toEqual([
      [11, 1, false],
      [12, 1, true],
      [21, 3, false],
      [31, 3, false],
    ]);
  });

  it('revives a lease marked deleted, and marks deleted the children it no longer lists', async () => {
    await sql`update leases set deleted_at = now() where lease_id = 2`.execute(t.db);
    const loaded = await load([lease(2, [22])]);
    expect(loaded).toMatchObject({ rowsInserted: 1, rowsUpdated: 1, quarantined: 0 });
    const revived = await t.db
      .selectFrom('leases')
      .select('deleted_at')
      .where('lease_id', '=', 2)
      .executeTakeFirstOrThrow();
    expect(revived.deleted_at).toBeNull();
    expect(await ledger()).toEqual([
      [11, 1, false],
      [12, 1, true],
      [21, 3, false],
      [22, 2, false],
      [31, 3, false],
    ]);
  });
});
