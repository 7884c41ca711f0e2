import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchemaFor } from '../../src/config/schema.js';
import {
  freshnessTargets,
  freshnessThresholds,
  readFreshness,
  scheduleIntervalMs,
} from '../../src/sync/freshness.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const HOUR = 3_600_000;

function configWith(streams: Record<string, unknown> = {}) {
  return configSchemaFor({}).parse({
    database: { url: 'postgres://propsync@127.0.0.1:5432/propsync' },
    source: { url: 'https://example.com', username: 'u', password: 'p' },
    streams,
  });
}

describe('freshness thresholds', () => {
  it('derives warn after one missed interval plus a grace and error after two from a daily schedule', () => {
    const t = freshnessThresholds(configWith(), 'leases', 'America/Denver');
    expect(t).toEqual({ warnAfterMs: 26 * HOUR, errorAfterMs: 50 * HOUR, from: 'schedule' });
  });

  it('takes streams.<name>.freshness durations from the configuration', () => {
    const config = configWith({ invoices: { freshness: { warnAfter: '3h', errorAfter: '1d12h' } } });
    expect(freshnessThresholds(config, 'invoices', 'UTC')).toEqual({
      warnAfterMs: 3 * HOUR,
      errorAfterMs: 36 * HOUR,
      from: 'config',
    });
  });

  it('refuses a duration without a unit and a warn threshold past the error one', () => {
    expect(() => configWith({ leases: { freshness: { warnAfter: '26' } } })).toThrow(/not a duration/);
    expect(() => configWith({ leases: { freshness: { warnAfter: '2d', errorAfter: '1d' } } })).toThrow(
      /warnAfter must be shorter/,
    );
  });

  it('judges a weekday schedule by its longest gap (the weekend)', () => {
    expect(scheduleIntervalMs('0 6 * * 1-5', 'UTC')).toBe(72 * HOUR);
    expect(scheduleIntervalMs('*/15 * * * *', 'UTC')).toBe(15 * 60_000);
  });
});

describe('readFreshness', () => {
  let database: TestDatabase;
  const finished = new Date('2026-11-20T09:30:00Z');

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    await db
      .insertInto('sync_runs')
      .values([
        {
          account_id: 'north',
          kind: 'sync',
          streams: ['leases', 'invoices'],
          status: 'succeeded',
          started_at: new Date(finished.getTime() - 60_000),
          finished_at: finished,
        },
        {
          account_id: 'north',
          kind: 'sync',
          streams: ['invoices'],
          status: 'failed',
          started_at: new Date(finished.getTime() + HOUR),
          finished_at: new Date(finished.getTime() + 2 * HOUR),
        },
        {
          account_id: 'south',
          kind: 'sync',
          streams: ['leases'],
          status: 'failed',
          started_at: finished,
          finished_at: finished,
        },
      ])
      .execute();
    await db
      .insertInto('sync_cursors')
      .values([
        { account_id: 'north', stream: 'leases', scope: '1', cursor: 'full_refresh', value: '2026-11-19' },
        { account_id: 'north', stream: 'leases', scope: '1', cursor: 'move_out', value: '2026-11-20' },
        { account_id: 'north', stream: 'leases', scope: '2', cursor: 'move_out', value: '2026-11-18' },
      ])
      .execute();
  });
  afterAll(async () => {
    await database?.drop();
  });

  const targets = () =>
    freshnessTargets(
      configWith(),
      [
        { id: 'north', timeZone: 'America/Denver' },
        { id: 'south', timeZone: 'America/Denver' },
      ],
      ['leases', 'invoices'],
    );

  it('a stale stream goes from ok to warn to error as the clock moves', async () => {
    const at = (hours: number) => new Date(finished.getTime() + hours * HOUR);
    const states = async (hours: number) =>
      (await readFreshness(database.db, targets(), { now: at(hours) })).filter((f) => f.account === 'north');
    const fresh = await states(1);
    expect(fresh.map((f) => [f.stream, f.state])).toEqual([
      ['leases', 'ok'],
      ['invoices', 'ok'],
    ]);
    expect(fresh[0]).toMatchObject({
      lastSuccessAt: finished.toISOString(),
      reachedDay: '2026-11-18',
      warnAfterMs: 26 * HOUR,
      errorAfterMs: 50 * HOUR,
    });
    const late = await states(27);
    expect(late.map((f) => f.state)).toEqual(['warn', 'warn']);
    expect(late[1].reason).toMatch(/last success 1d3h ago; its last run ended failed/);
    const stale = await states(51);
    expect(stale.map((f) => f.state)).toEqual(['error', 'error']);
  });

  it('a stream that never succeeded is an error that says what to do', async () => {
    const [south] = (await readFreshness(database.db, targets(), { now: finished })).filter(
      (f) => f.account === 'south' && f.stream === 'leases',
    );
    expect(south).toMatchObject({ state: 'error', lastSuccessAt: null, reachedDay: null });
    expect(south.reason).toBe('no successful run yet (its runs so far ended failed); run propsync sync');
  });

  it('judges by the database clock when no clock is given', async () => {
    await sql`select 1`.execute(database.db);
    const all = await readFreshness(database.db, targets());
    expect(all.filter((f) => f.account === 'north').every((f) => f.state === 'error')).toBe(
      Date.now() - finished.getTime() > 50 * HOUR,
    );
  });
});
