/**
 * Issue 38 items 1 and 2, issue 36 item 7: `propsync status` leads with one line per account
 * (last run, outcome, freshness, calls today, quarantine), and `status --check` exits 0, 5, 6 or
 * 7 for fresh, warn, error and no warehouse, one line per problem saying what to do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const HOUR = 3_600_000;
let database: TestDatabase;
let folder: { dir: string; remove(): void };

const config = (url: string) => `database:
  url: ${url}
accounts:
  - id: north
    source: { url: 'https://north.example.com', auth: { type: basic, username: u, passwordEnv: NORTH_PW } }
  - id: south
    source: { url: 'https://south.example.com', auth: { type: basic, username: u, passwordEnv: SOUTH_PW } }
streams:
  units: { enabled: false }
`;

const ago = (hours: number) => new Date(Date.now() - hours * HOUR);

beforeAll(async () => {
  database = await createTestDatabase();
  const { db } = database;
  const run = (account: string, streams: string[], hours: number, status = 'succeeded', kind = 'sync') => ({
    account_id: account,
    kind,
    streams,
    status,
    started_at: ago(hours + 0.1),
    finished_at: ago(hours),
  });
  await db
    .insertInto('sync_runs')
    .values([
      run('north', ['properties', 'leases', 'invoices'], 1),
      run('south', ['properties', 'leases'], 30),
      run('south', ['invoices'], 60),
      run('south', ['invoices'], 2, 'failed'),
    ])
    .execute();
  // A backfill of north's leases run again: its three chunks were done by the first one.
  const backfill = await db
    .insertInto('sync_runs')
    .values({ ...run('north', ['leases'], 0.5, 'succeeded', 'backfill'), work_units_total: 3 })
    .returning('run_id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('sync_work_units')
    .values(
      [1, 2, 3].map((n) => ({
        account_id: 'north',
        run_id: backfill.run_id,
        stream: 'leases',
        kind: 'backfill',
        unit_key: `leases:backfill:${n}`,
        status: 'skipped',
      })),
    )
    .execute();
  await db
    .insertInto('sync_cursors')
    .values({ account_id: 'north', stream: 'leases', scope: '100', cursor: 'move_out', value: '2026-11-26' })
    .execute();
  folder = scratchFolder({ 'config/propsync.yaml': config(database.url) });
});
afterAll(async () => {
  folder?.remove();
  await database?.drop();
});

const propsync = (...args: string[]) => runPropsync(args, { cwd: folder.dir });

describe('propsync status --check', () => {
  it('exits 0 with one line when every stream checked is fresh', async () => {
    const result = await propsync('status', '--check', '--account', 'north');
    expect(result.stdout).toBe('ok: 3 streams fresh (the tightest warns after 1d2h)\n');
    expect(result.code).toBe(0);
  });

  it('exits 5 for a late stream, saying what to do', async () => {
    const result = await propsync('status', '--check', '--account', 'south', '--stream', 'leases');
    expect(result.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^WARN south\/leases: last success 1d6h\d*m?\d*s? ago \(warn after 1d2h, error after 2d2h \(from its schedule\)\); check that propsync schedule is running \(or its cron job\), or run propsync sync --account south --stream leases$/,
      ),
    ]);
    expect(result.code).toBe(5);
  });

  it('exits 6 when a stream is stale, one line per problem, errors first', async () => {
    const result = await propsync('status', '--check');
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^ERROR south\/invoices: last success 2d12h.* ago; its last run ended failed .*; read the last run's errors in propsync status --account south, fix the cause, then propsync sync --account south --stream invoices$/,
    );
    expect(
      lines
        .slice(1)
        .map((line) => line.split(':')[0])
        .sort(),
    ).toEqual(['WARN south/leases', 'WARN south/properties']);
    expect(result.code).toBe(6);
  });

  it('prints the judged streams as JSON with --json', async () => {
    const result = await propsync(
      'status',
      '--check',
      '--json',
      '--account',
      'south',
      '--stream',
      'invoices',
    );
    const body = JSON.parse(result.stdout) as { exitCode: number; freshness: Record<string, unknown>[] };
    expect(body.exitCode).toBe(6);
    expect(body.freshness).toEqual([
      expect.objectContaining({
        account: 'south',
        stream: 'invoices',
        state: 'error',
        warnAfterMs: 26 * HOUR,
      }),
    ]);
    expect(result.code).toBe(6);
  });

  it('exits 7 when the warehouse cannot be reached', async () => {
    const away = scratchFolder({ 'config/propsync.yaml': config('postgres://postgres@127.0.0.1:1/none') });
    try {
      const result = await runPropsync(['status', '--check'], { cwd: away.dir });
      expect(result.stdout).toMatch(/^ERROR warehouse: cannot reach the warehouse/);
      expect(result.code).toBe(7);
    } finally {
      away.remove();
    }
  });
});

describe('propsync status', () => {
  it('leads with one line per account, then the details with freshness and cursors', async () => {
    const result = await propsync('status');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[2]).toMatch(/^account\s+last run\s+outcome\s+freshness\s+calls today\s+quarantine$/);
    expect(lines[4]).toMatch(/^north\s+#\d+ backfill 3\dm ago\s+succeeded\s+ok\s+0\/\d+\s+0$/);
    expect(lines[5]).toMatch(/^south\s+#\d+ sync 2h(\d+m)? ago\s+failed\s+error: invoices\s+0\/\d+\s+0$/);
    const text = result.stdout;
    expect(text).toMatch(
      /last run: #\d+ backfill succeeded .*its 3 work units were already done by earlier runs/,
    );
    expect(text).toMatch(/freshness: warn: last success 1d6h.* ago \(warn after 1d2h/);
    expect(text).toContain('no cursors: the stream is read whole on every run');
  });
});
