import { sql } from 'kysely';
import { SOURCE_TABLE_NAMES } from '../../src/catalog/tables.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cursorsToReset, resetCursors } from '../../src/sync/reset.js';
import { readStatus, scopeProperties } from '../../src/sync/status.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  const db = database.db;
  await db
    .insertInto('sync_cursors')
    .values([
      { account_id: 'default', stream: 'leases', scope: '100', cursor: 'move_out', value: '2024-06-01' },
      { account_id: 'default', stream: 'leases', scope: '100', cursor: 'full_refresh', value: '2024-05-30' },
      { account_id: 'default', stream: 'leases', scope: '200', cursor: 'move_out', value: '2024-06-01' },
      {
        account_id: 'default',
        stream: 'invoices',
        scope: '100,200',
        cursor: 'post_date',
        value: '2024-06-10',
      },
      { account_id: 'default', stream: 'invoices', scope: '100,200', cursor: 'paid', value: '2024-06-10' },
      { account_id: 'default', stream: 'invoices', scope: '300', cursor: 'post_date', value: '2024-06-10' },
      // Another account with the same scopes: never reported, selected or reset with `default`.
      { account_id: 'other', stream: 'leases', scope: '100', cursor: 'move_out', value: '2023-01-01' },
      { account_id: 'other', stream: 'invoices', scope: '100,200', cursor: 'post_date', value: '2023-01-01' },
    ])
    .execute();
});
afterAll(async () => {
  await database?.drop();
});

describe('status queries', () => {
  it('splits scopes into property ids', () => {
    expect(scopeProperties('100,200')).toEqual(['100', '200']);
    expect(scopeProperties('100')).toEqual(['100']);
  });

  it('reports runs, cursors, rows, calls today and quarantine', async () => {
    const db = database.db;
    const old = await db
      .insertInto('sync_runs')
      .values({
        account_id: 'default',
        kind: 'sync',
        streams: ['leases', 'invoices'],
        status: 'succeeded',
        started_at: new Date(Date.now() - 3 * 86_400_000),
        finished_at: new Date(Date.now() - 3 * 86_400_000 + 1000),
        calls: 500,
      })
      .returning('run_id')
      .executeTakeFirstOrThrow();
    const run = await db
      .insertInto('sync_runs')
      .values({
        account_id: 'default',
        kind: 'sync',
        streams: ['leases'],
        status: 'partial',
        started_at: new Date(Date.now() - 60_000),
        finished_at: new Date(),
        calls: 12,
        work_units_total: 2,
        work_units_done: 1,
        work_units_failed: 1,
        quarantined: 1,
        error: 'boom',
      })
      .returning('run_id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('sync_work_units')
      .values([
        {
          account_id: 'default',
          run_id: old.run_id,
          stream: 'leases',
          kind: 'live',
          unit_key: 'leases:100:live',
          property_ids: [100],
          status: 'done',
          calls: 250,
          started_at: new Date(Date.now() - 3 * 86_400_000),
        },
        {
          account_id: 'default',
          run_id: run.run_id,
          stream: 'leases',
          kind: 'live',
          unit_key: 'leases:100:live',
          property_ids: [100],
          status: 'done',
          calls: 4,
          started_at: new Date(Date.now() - 50_000),
          finished_at: new Date(),
        },
        {
          account_id: 'default',
          run_id: run.run_id,
          stream: 'leases',
          kind: 'live',
          unit_key: 'leases:200:live',
          property_ids: [200],
          status: 'failed',
          calls: 6,
          error: 'HTTP 500',
          started_at: new Date(Date.now() - 50_000),
        },
      ])
      .execute();
    await db
      .insertInto('leases')
      .values([
        { account_id: 'default', lease_id: 1, property_id: 100, raw: {} },
        { account_id: 'default', lease_id: 2, property_id: 100, raw: {}, deleted_at: new Date() },
      ])
      .execute();
    await db
      .insertInto('quarantine')
      .values([
        {
          account_id: 'default',
          run_id: run.run_id,
          stream: 'leases',
          entity: 'lease',
          record_key: '77',
          property_id: 100,
          reason: 'moveInDate: not a date',
          raw: { id: '77' },
          page: 1,
        },
        {
          account_id: 'default',
          run_id: run.run_id,
          stream: 'leases',
          entity: 'lease',
          record_key: '78',
          property_id: 100,
          reason: 'fixed',
          raw: {},
          resolved_at: new Date(),
        },
      ])
      .execute();
    // Account `other` ran today too, holds the same lease id and has an open quarantine entry: none of it is
    // `default`'s.
    const otherRun = await db
      .insertInto('sync_runs')
      .values({
        account_id: 'other',
        kind: 'sync',
        streams: ['leases'],
        status: 'failed',
        started_at: new Date(Date.now() - 30_000),
        finished_at: new Date(),
        calls: 300,
      })
      .returning('run_id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('sync_work_units')
      .values({
        account_id: 'other',
        run_id: otherRun.run_id,
        stream: 'leases',
        kind: 'live',
        unit_key: 'leases:100:live',
        property_ids: [100],
        status: 'failed',
        calls: 300,
        started_at: new Date(Date.now() - 20_000),
      })
      .execute();
    await db
      .insertInto('leases')
      .values({ account_id: 'other', lease_id: 1, property_id: 100, raw: {} })
      .execute();
    await db
      .insertInto('quarantine')
      .values({
        account_id: 'other',
        run_id: otherRun.run_id,
        stream: 'leases',
        entity: 'lease',
        record_key: '99',
        property_id: 100,
        reason: 'other',
        raw: {},
        page: 1,
      })
      .execute();

    // The call gate's row is the one count of the day's calls (every process books there); yesterday's is
    // another day's, and another account's is its own.
    await sql`
      insert into source_budget (account_id, day, spent)
      values ('default', (now() at time zone 'America/Denver')::date, 12),
             ('default', (now() at time zone 'America/Denver')::date - 1, 300),
             ('other', (now() at time zone 'America/Denver')::date, 40)`.execute(db);
    const report = await readStatus(db, {
      account: 'default',
      dailyCallBudget: 1000,
      timeZone: 'America/Denver',
    });
    expect(report.account).toBe('default');
    expect(report.today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(report.budget).toEqual({ dailyCallBudget: 1000, callsToday: 12, left: 988 });
    const leases = report.streams.find((stream) => stream.stream === 'leases')!;
    expect(leases.lastRun).toMatchObject({
      runId: run.run_id,
      status: 'partial',
      workUnits: { total: 2, done: 1, failed: 1 },
      quarantined: 1,
      error: 'boom',
    });
    expect(leases.lastSuccess?.runId).toBe(old.run_id);
    // the old run covered both streams: under leases it counts the leases work units only
    expect(leases.lastSuccess).toMatchObject({ calls: 250, workUnits: { total: 1, done: 1, failed: 0 } });
    expect(leases.callsToday).toBe(10);
    expect(leases.openQuarantine).toBe(1);
    expect(leases.scopes.map((scope) => scope.scope)).toEqual(['100', '200']);
    expect(leases.scopes[0].cursors.map((cursor) => [cursor.cursor, cursor.value])).toEqual([
      ['full_refresh', '2024-05-30'],
      ['move_out', '2024-06-01'],
    ]);
    expect(leases.scopes[0].lastWorkUnit).toMatchObject({ runId: run.run_id, status: 'done' });
    expect(leases.scopes[1].lastWorkUnit).toMatchObject({ status: 'failed', error: 'HTTP 500' });
    const invoices = report.streams.find((stream) => stream.stream === 'invoices')!;
    expect(invoices.lastRun).toMatchObject({
      runId: old.run_id,
      calls: 0,
      workUnits: { total: 0, done: 0, failed: 0 },
    });
    expect(invoices.scopes.map((scope) => scope.propertyIds)).toEqual([['100', '200'], ['300']]);
    expect(report.tables.find((table) => table.table === 'leases')).toEqual({
      table: 'leases',
      rows: 2,
      deleted: 1,
    });
    expect(report.tables).toHaveLength(SOURCE_TABLE_NAMES.length);
    expect(report.quarantine.open).toBe(1);
    expect(report.quarantine.entries).toEqual([
      expect.objectContaining({
        recordKey: '77',
        reason: 'moveInDate: not a date',
        propertyId: 100,
        page: 1,
      }),
    ]);
    expect(JSON.stringify(report)).not.toContain('"raw"');

    const other = await readStatus(db, {
      account: 'other',
      dailyCallBudget: 1000,
      timeZone: 'America/Denver',
    });
    expect(other.budget).toEqual({ dailyCallBudget: 1000, callsToday: 40, left: 960 });
    const otherLeases = other.streams.find((stream) => stream.stream === 'leases')!;
    expect(otherLeases.lastRun?.runId).toBe(otherRun.run_id);
    expect(otherLeases.lastSuccess).toBeNull();
    expect(
      otherLeases.scopes.map((scope) => [scope.scope, scope.cursors.map((cursor) => cursor.value)]),
    ).toEqual([['100', ['2023-01-01']]]);
    expect(other.tables.find((table) => table.table === 'leases')).toEqual({
      table: 'leases',
      rows: 1,
      deleted: 0,
    });
    expect(other.quarantine.entries.map((entry) => entry.recordKey)).toEqual(['99']);
  });
});

describe('reset queries', () => {
  it('selects a property’s lease scope, and the invoice groups holding a property', async () => {
    const db = database.db;
    expect(
      (await cursorsToReset(db, { account: 'default', stream: 'leases', propertyId: '100' })).map(
        (c) => `${c.scope}/${c.cursor}`,
      ),
    ).toEqual(['100/full_refresh', '100/move_out']);
    expect(
      (await cursorsToReset(db, { account: 'default', stream: 'invoices', propertyId: '200' })).map(
        (c) => `${c.scope}/${c.cursor}`,
      ),
    ).toEqual(['100,200/paid', '100,200/post_date']);
    expect(await cursorsToReset(db, { account: 'default', stream: 'invoices', propertyId: '20' })).toEqual(
      [],
    );
    expect(
      (await cursorsToReset(db, { account: 'other', stream: 'leases', propertyId: '100' })).map(
        (c) => `${c.scope}/${c.cursor}/${c.value}`,
      ),
    ).toEqual(['100/move_out/2023-01-01']);
  });

  it('forgets only the selected cursors', async () => {
    const db = database.db;
    const forgotten = await resetCursors(db, { account: 'default', stream: 'leases', propertyId: '100' });
    expect(forgotten.map((c) => `${c.scope}/${c.cursor}/${c.value}`)).toEqual([
      '100/full_refresh/2024-05-30',
      '100/move_out/2024-06-01',
    ]);
    const left = await db
      .selectFrom('sync_cursors')
      .select(['stream', 'scope', 'cursor'])
      .where('account_id', '=', 'default')
      .orderBy('stream')
      .orderBy('scope')
      .orderBy('cursor')
      .execute();
    expect(left.map((c) => `${c.stream}/${c.scope}/${c.cursor}`)).toEqual([
      'invoices/100,200/paid',
      'invoices/100,200/post_date',
      'invoices/300/post_date',
      'leases/200/move_out',
    ]);
    expect((await resetCursors(db, { account: 'default', stream: 'invoices' })).length).toBe(3);
    expect(
      await db.selectFrom('sync_cursors').select('scope').where('account_id', '=', 'default').execute(),
    ).toEqual([{ scope: '200' }]);
    // The other account's cursors of the same streams and scopes stay.
    const others = await db
      .selectFrom('sync_cursors')
      .select(['stream', 'scope', 'value'])
      .where('account_id', '=', 'other')
      .orderBy('stream')
      .execute();
    expect(others).toEqual([
      { stream: 'invoices', scope: '100,200', value: '2023-01-01' },
      { stream: 'leases', scope: '100', value: '2023-01-01' },
    ]);
  });
});
