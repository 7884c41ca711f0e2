/**
 * Issue 22, part 8: two source accounts in one warehouse, over real HTTP and real Postgres.
 * Account `north` reads one simulator with Basic auth, account `south` another (another seed,
 * the same property, lease and invoice ids) through the API-key gateway; both are synced by
 * the app (`openPropsync` + `run`) into ONE warehouse, and each account must equal its own
 * source, row for row and cent for cent, whatever the other holds. Then: a run of one account
 * touches nothing of the other; one account failing does not stop the other, and no secret
 * shows; and a warehouse of before 0010 is upgraded in place, its rows account `default`.
 */
import { Writable } from 'node:stream';
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPropsync, type AccountRun } from '../../src/app/propsync.js';
import { worstExitCode } from '../../src/app/run-summary.js';
import { EXIT } from '../../src/app/exit-codes.js';
import { SOURCE_TABLE_NAMES, WAREHOUSE_TABLES, type Db } from '../../src/catalog/tables.js';
import type { StatusReport } from '../../src/sync/status.js';
import { configSchemaFor, type Config } from '../../src/config/schema.js';
import { createLogger, type Logger } from '../../src/log/logger.js';
import { startSimulator, type AdvanceSummary, type Simulator } from '../../src/simulator/index.js';
import { migrationProvider } from '../../src/warehouse/migrate.js';
import { migrateWarehouse } from '../../src/app/migrate-warehouse.js';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';

const TODAY = '2026-06-15';
const NORTH_USER = 'north-api-user';
// Distinctive secrets: none may show, whole, in any log line, error or outcome.
const NORTH_PASSWORD = 'N0rth-pw-7c1f9e-Acc';
const SOUTH_ORG = 'south-org';
const SOUTH_KEY = 'S0uth-key-4b8d2a-Acc';
const WRONG_KEY = 'Wr0ng-key-9e3a61-Acc';
const SECRETS = [NORTH_PASSWORD, SOUTH_KEY, WRONG_KEY];

/** What every account inherits: fast retries, the simulated today trusted whatever this machine's clock says. */
const SOURCE_DEFAULTS = {
  format: 'json',
  maxClockSkewHours: 0,
  pageSize: 200,
  concurrency: 3,
  retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 200, maxTotalWaitMs: 2_000 },
};

/** The accounts form of issue 22, as a configuration file holds it (no secret: the variables it names hold them). */
function twoAccountFile(databaseUrl: string, north: Simulator, south: Simulator) {
  return {
    database: { url: databaseUrl },
    source: SOURCE_DEFAULTS,
    accounts: [
      {
        id: 'north',
        name: 'North portfolio',
        source: {
          url: north.url,
          auth: { type: 'basic', username: NORTH_USER, passwordEnv: 'NORTH_API_PASSWORD' },
        },
      },
      {
        id: 'south',
        source: { url: south.url, auth: { type: 'apikey', org: SOUTH_ORG, apiKeyEnv: 'SOUTH_API_KEY' } },
      },
    ],
    logLevel: 'info',
  };
}

/** The accounts form of issue 22, secrets read from the variables it names. */
function twoAccountConfig(
  databaseUrl: string,
  north: Simulator,
  south: Simulator,
  env: { SOUTH_API_KEY: string },
): Config {
  return configSchemaFor({ NORTH_API_PASSWORD: NORTH_PASSWORD, ...env }).parse(
    twoAccountFile(databaseUrl, north, south),
  );
}

/** A logger writing into memory: every line of every run, as text. */
function memoryLogger(): { logger: Logger; text: () => string } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), text: () => chunks.join('') };
}

/** One `propsync sync` (of the accounts named, or all), as the CLI runs it: open, run, close. */
async function syncAccounts(config: Config, logger: Logger, accounts?: string[]): Promise<AccountRun[]> {
  const propsync = await openPropsync(config, { logger, accounts });
  try {
    return await propsync.run({ kind: 'sync' });
  } finally {
    await propsync.close();
  }
}

/** The account's rows equal its own source's data set: live rows and exact money sums, per table. */
async function expectAccountEqualsSource(db: Db, account: string, sim: Simulator, omit: string[] = []) {
  const expected = expectedTotals(sim.dataset);
  for (const table of omit) delete (expected as Record<string, unknown>)[table];
  expect(await warehouseTotals(db, expected, { account }), `account ${account}`).toEqual(expected);
}

/**
 * Everything the warehouse holds of one account, bookkeeping included, as one comparable value:
 * every row of every table (with when and by which run it was last written), so that any write
 * to any row of the account shows.
 */
async function accountSnapshot(db: Db, account: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const { name } of WAREHOUSE_TABLES) {
    if (name === 'accounts') continue;
    const { rows } = await sql<{ n: number; digest: string | null }>`
      select count(*)::int as n, md5(string_agg(to_jsonb(t)::text, '|' order by to_jsonb(t)::text)) as digest
        from ${sql.table(name)} t where t.account_id = ${account}`.execute(db);
    out[name] = `${rows[0].n}:${rows[0].digest}`;
  }
  return out;
}

describe('two accounts in one warehouse (issue 22)', () => {
  let north: Simulator<AdvanceSummary>;
  let south: Simulator<AdvanceSummary>;
  let warehouse: TestDatabase;
  let config: Config;
  const log = memoryLogger();

  beforeAll(async () => {
    north = await startSimulator({
      port: 0,
      scale: 'small',
      seed: 11,
      today: TODAY,
      username: NORTH_USER,
      password: NORTH_PASSWORD,
      rateLimit: 'off',
    });
    // The gateway alone: south is reachable with its API key only.
    south = await startSimulator({
      port: 0,
      scale: 'small',
      seed: 29,
      today: TODAY,
      apiKey: SOUTH_KEY,
      org: SOUTH_ORG,
      rateLimit: 'off',
    });
    warehouse = await createTestDatabase();
    config = twoAccountConfig(warehouse.url, north, south, { SOUTH_API_KEY: SOUTH_KEY });
  });
  afterAll(async () => {
    await north?.close();
    await south?.close();
    await warehouse?.drop();
  });

  it('the two sources list the same property, lease and invoice ids, with different data behind them', () => {
    const ids = (sim: Simulator, of: 'leases' | 'invoices') =>
      new Set(sim.dataset[of].map((record) => String(record.id)));
    expect(north.dataset.properties.map((property) => property.PropertyID)).toEqual(
      south.dataset.properties.map((property) => property.PropertyID),
    );
    const northLeases = ids(north, 'leases');
    expect([...ids(south, 'leases')].filter((id) => northLeases.has(id)).length).toBeGreaterThan(100);
    const northInvoices = ids(north, 'invoices');
    expect([...ids(south, 'invoices')].filter((id) => northInvoices.has(id)).length).toBeGreaterThan(100);
    // Else "equal to its own source" could not tell the accounts apart.
    expect(expectedTotals(north.dataset)).not.toEqual(expectedTotals(south.dataset));
    expect(north.dataset.properties.map((property) => property.MarketingName)).not.toEqual(
      south.dataset.properties.map((property) => property.MarketingName),
    );
  });

  it('a full load of both accounts, side by side: each account equals its own source', async () => {
    const runs = await syncAccounts(config, log.logger);
    expect(
      runs.map((run) => [run.account, run.summary?.account, run.summary?.status, run.exitCode, run.error]),
    ).toEqual([
      ['north', 'north', 'succeeded', EXIT.ok, undefined],
      ['south', 'south', 'succeeded', EXIT.ok, undefined],
    ]);
    for (const run of runs) expect(run.summary!.rowsInserted).toBeGreaterThan(0);
    await expectAccountEqualsSource(warehouse.db, 'north', north);
    await expectAccountEqualsSource(warehouse.db, 'south', south);

    // The same property id, once per account, each with its own source's name.
    const shared = north.dataset.properties[0].PropertyID;
    const rows = await warehouse.db
      .selectFrom('properties')
      .select(['account_id', 'marketing_name'])
      .where('property_id', '=', shared)
      .orderBy('account_id')
      .execute();
    expect(rows).toEqual([
      { account_id: 'north', marketing_name: north.dataset.properties[0].MarketingName },
      { account_id: 'south', marketing_name: south.dataset.properties[0].MarketingName },
    ]);
    // Each account's run, units and cursors are its own.
    const runsByAccount = await warehouse.db
      .selectFrom('sync_runs')
      .select(['account_id', 'run_id'])
      .orderBy('run_id')
      .execute();
    expect(runsByAccount.map((run) => run.account_id).sort()).toEqual(['north', 'south']);
    for (const run of runs)
      expect(runsByAccount).toContainEqual({ account_id: run.account, run_id: run.summary!.runId });
    const { rows: mixed } = await sql<{ n: number }>`
      select count(*)::int as n from sync_work_units w join sync_runs r on r.run_id = w.run_id where r.account_id <> w.account_id`.execute(
      warehouse.db,
    );
    expect(mixed[0].n).toBe(0);
    const cursors = await warehouse.db
      .selectFrom('sync_cursors')
      .select('account_id')
      .distinct()
      .orderBy('account_id')
      .execute();
    expect(cursors.map((cursor) => cursor.account_id)).toEqual(['north', 'south']);
    const accounts = await warehouse.db
      .selectFrom('accounts')
      .select(['account_id', 'name'])
      .orderBy('account_id')
      .execute();
    expect(accounts).toEqual([
      { account_id: 'north', name: 'North portfolio' },
      { account_id: 'south', name: null },
    ]);
  });

  it('a week later (both sources moved 7 days), an incremental sync keeps each account equal to its source', async () => {
    north.advance(7);
    south.advance(7);
    const runs = await syncAccounts(config, log.logger);
    expect(runs.map((run) => [run.account, run.summary?.status, run.exitCode])).toEqual([
      ['north', 'succeeded', EXIT.ok],
      ['south', 'succeeded', EXIT.ok],
    ]);
    for (const run of runs)
      expect(
        run.summary!.rowsInserted + run.summary!.rowsUpdated + run.summary!.rowsDeleted,
        `changes of ${run.account}`,
      ).toBeGreaterThan(0);
    await expectAccountEqualsSource(warehouse.db, 'north', north);
    await expectAccountEqualsSource(warehouse.db, 'south', south);
  });

  it('a sync of account north alone touches nothing of south: rows, runs, units and cursors unchanged', async () => {
    north.advance(3);
    south.advance(3);
    const southBefore = await accountSnapshot(warehouse.db, 'south');
    const southCalls = south.stats();
    const runs = await syncAccounts(config, log.logger, ['north']);
    expect(runs.map((run) => [run.account, run.summary?.status, run.exitCode])).toEqual([
      ['north', 'succeeded', EXIT.ok],
    ]);
    expect(
      runs[0].summary!.rowsInserted + runs[0].summary!.rowsUpdated + runs[0].summary!.rowsDeleted,
    ).toBeGreaterThan(0);
    await expectAccountEqualsSource(warehouse.db, 'north', north);
    expect(await accountSnapshot(warehouse.db, 'south')).toEqual(southBefore);
    // Not a call to south's source either.
    expect(south.stats()).toEqual(southCalls);

    // South, synced in turn, catches up with its three days.
    const later = await syncAccounts(config, log.logger, ['south']);
    expect(later.map((run) => [run.account, run.summary?.status])).toEqual([['south', 'succeeded']]);
    await expectAccountEqualsSource(warehouse.db, 'south', south);
  });

  it('one account failing (a wrong API key for south) does not stop north; south says why; no secret shows anywhere', async () => {
    north.advance(2);
    south.advance(2);
    const southBefore = await accountSnapshot(warehouse.db, 'south');
    const failing = memoryLogger();
    const wrong = twoAccountConfig(warehouse.url, north, south, { SOUTH_API_KEY: WRONG_KEY });
    const runs = await syncAccounts(wrong, failing.logger);
    const [northRun, southRun] = runs;
    expect(northRun).toMatchObject({ account: 'north', exitCode: EXIT.ok, summary: { status: 'succeeded' } });
    await expectAccountEqualsSource(warehouse.db, 'north', north);

    expect(southRun.account).toBe('south');
    expect(southRun.exitCode).toBe(EXIT.workFailed);
    const why = southRun.error ?? southRun.summary?.errors.join('\n') ?? '';
    expect(why).toMatch(/401|auth|API key|rejected|credential/i);
    expect(worstExitCode(runs.map((run) => run.exitCode))).toBe(EXIT.workFailed);
    // South's rows stay as they were (its run is recorded, failed, and nothing else).
    const southAfter = await accountSnapshot(warehouse.db, 'south');
    for (const table of SOURCE_TABLE_NAMES) expect(southAfter[table], table).toBe(southBefore[table]);
    expect(southAfter.sync_cursors).toBe(southBefore.sync_cursors);
    const lastSouth = await warehouse.db
      .selectFrom('sync_runs')
      .select(['status', 'error'])
      .where('account_id', '=', 'south')
      .orderBy('run_id', 'desc')
      .executeTakeFirstOrThrow();
    expect(lastSouth.status).toBe('failed');

    const everything = [failing.text(), log.text(), JSON.stringify(runs), lastSouth.error ?? ''].join('\n');
    expect(everything).toContain('south');
    for (const secret of SECRETS)
      expect(everything, 'a secret in the logs, the outcome or the run row').not.toContain(secret);
  });

  it('the CLI: sync --account south catches south up alone; status --json reports each account; an unknown account is a usage error', async () => {
    const folder = scratchFolder({
      'config/propsync.yaml': JSON.stringify(twoAccountFile(warehouse.url, north, south)),
    });
    const env = { NORTH_API_PASSWORD: NORTH_PASSWORD, SOUTH_API_KEY: SOUTH_KEY };
    try {
      const northBefore = await accountSnapshot(warehouse.db, 'north');
      const sync = await runPropsync(['sync', '--account', 'south'], { env, cwd: folder.dir });
      expect(sync.code, sync.stderr).toBe(0);
      // Several accounts configured: the summary names its account.
      expect(sync.stdout).toMatch(
        /^account south: run \d+ \(sync: leases, invoices, properties, units\) succeeded/m,
      );
      expect(sync.stdout).not.toContain('account north');
      // Every log line of the run names its account, once.
      const lines = sync.stderr.split('\n').filter((line) => line.startsWith('{'));
      expect(lines.filter((line) => line.includes('"runId"')).length).toBeGreaterThan(0);
      for (const line of lines.filter((line) => line.includes('"runId"')))
        expect(line.match(/"account":/g), line).toEqual(['"account":']);
      await expectAccountEqualsSource(warehouse.db, 'south', south);
      expect(await accountSnapshot(warehouse.db, 'north')).toEqual(northBefore);

      const [all, one] = await Promise.all([
        runPropsync(['status', '--json'], { env, cwd: folder.dir }),
        runPropsync(['status', '--account', 'north', '--json'], { env, cwd: folder.dir }),
      ]);
      expect(all.code, all.stderr).toBe(0);
      const document = JSON.parse(all.stdout) as { generatedAt: string; accounts: StatusReport[] };
      expect(document.accounts.map((report) => report.account)).toEqual(['north', 'south']);
      for (const report of document.accounts) {
        const leases = report.tables.find((table) => table.table === 'leases')!;
        const sim = report.account === 'north' ? north : south;
        expect(leases.rows - leases.deleted, `live leases of ${report.account}`).toBe(
          expectedTotals(sim.dataset).leases.rows,
        );
      }
      expect(
        (JSON.parse(one.stdout) as { accounts: StatusReport[] }).accounts.map((report) => report.account),
      ).toEqual(['north']);

      const unknown = await runPropsync(['sync', '--account', 'west'], { env, cwd: folder.dir });
      expect(unknown.code).toBe(EXIT.usage);
      expect(unknown.stderr).toContain("unknown account 'west'");
      for (const result of [sync, all, one, unknown])
        for (const secret of SECRETS) expect(result.stdout + result.stderr).not.toContain(secret);
    } finally {
      folder.remove();
    }
  });
});

describe('a warehouse of before accounts (migration 0009), upgraded in place', () => {
  let sim: Simulator<AdvanceSummary>;
  let loaded: TestDatabase;
  let old: TestDatabase;
  let config: (url: string) => Config;
  const log = memoryLogger();

  beforeAll(async () => {
    sim = await startSimulator({
      port: 0,
      scale: 'small',
      seed: 23,
      today: TODAY,
      username: NORTH_USER,
      password: NORTH_PASSWORD,
      rateLimit: 'off',
    });
    loaded = await createTestDatabase();
    old = await createTestDatabase({ migrate: false });
    // The one-account form: its account is `default`.
    config = (url) =>
      configSchemaFor({ PROPSYNC_API_PASSWORD: NORTH_PASSWORD }).parse({
        database: { url },
        source: { ...SOURCE_DEFAULTS, url: sim.url, username: NORTH_USER, password: NORTH_PASSWORD },
        logLevel: 'info',
      });
  });
  afterAll(async () => {
    await sim?.close();
    await loaded?.drop();
    await old?.drop();
  });

  it('keeps every row, as account default, keys led by account_id, without rewriting a table; the next incremental rewrites no row', async () => {
    // What a sync at 0009 leaves: 0010 adds `account_id` and nothing else to those tables, and
    // the engine's rows are otherwise the same, so a full sync's rows (this code's, into a
    // migrated warehouse) are copied column for column, minus `account_id`, into a warehouse
    // migrated to 0009 only, the sequences moved past them as the sync would have.
    const [first] = await syncAccounts(config(loaded.url), log.logger);
    expect(first.summary?.status).toBe('succeeded');
    const { error } = await new Migrator({ db: old.db, provider: migrationProvider() }).migrateTo(
      '0009_reporting_unique_indexes',
    );
    expect(error).toBeUndefined();
    const { rows: before0010 } = await sql<{
      n: number;
    }>`select count(*)::int as n from information_schema.columns where table_schema = current_schema() and column_name = 'account_id'`.execute(
      old.db,
    );
    expect(before0010[0].n).toBe(0);
    const { rows: unitTables } = await sql<{ name: string }>`
      select unnest(${SOURCE_TABLE_NAMES}::text[]) as name
      except select table_name from information_schema.tables where table_schema = current_schema()`.execute(
      old.db,
    );
    const UNIT_TABLES: string[] = unitTables.map((row) => row.name);
    const tables = [
      'sync_runs',
      'sync_work_units',
      'sync_work_unit_seen',
      'sync_cursors',
      'quarantine',
      ...SOURCE_TABLE_NAMES.filter((table) => !UNIT_TABLES.includes(table)),
    ];
    const counts: Record<string, number> = {};
    for (const table of tables) {
      const { rows } = await sql<{ rows: string; n: number }>`
        select coalesce(jsonb_agg(to_jsonb(t) - 'account_id'), '[]'::jsonb)::text as rows, count(*)::int as n from ${sql.table(table)} t`.execute(
        loaded.db,
      );
      counts[table] = rows[0].n;
      await sql`insert into ${sql.table(table)} select * from jsonb_populate_recordset(null::${sql.table(table)}, ${rows[0].rows}::jsonb)`.execute(
        old.db,
      );
    }
    for (const [table, column] of [
      ['sync_runs', 'run_id'],
      ['sync_work_units', 'work_unit_id'],
      ['quarantine', 'quarantine_id'],
    ]) {
      await sql`select setval(pg_get_serial_sequence(${table}, ${column}), greatest((select max(${sql.ref(column)}) from ${sql.table(table)}), 1))`.execute(
        old.db,
      );
    }
    expect(counts.leases).toBeGreaterThan(0);
    expect(counts.sync_cursors).toBeGreaterThan(0);
    const files = async () =>
      new Map(
        (
          await sql<{
            table: string;
            file: string;
          }>`select relname as table, pg_relation_filenode(oid)::text as file from pg_class where relname = any(${tables}) and relkind = 'r'`.execute(
            old.db,
          )
        ).rows.map((row) => [row.table, row.file]),
      );
    const filesBefore = await files();

    // `propsync migrate`.
    expect((await migrateWarehouse(old.db)).applied).toEqual([
      '0010_accounts',
      '0011_reporting_accounts',
      '0012_queue',
      '0013_verifications_property_fields',
      '0014_account_load_costs',
      '0015_ar_activity_groups',
      '0016_vendor_spend_groups',
      '0017_run_unread',
      '0018_reporting_definitions',
      '0019_account_days',
      '0020_advisory_locks_owner_only',
      '0021_units',
      '0022_alert_state',
      '0024_privacy_policies',
      '0025_reporting_account_rows',
      '0026_raw_statistics',
      '0027_ready_queues',
      '0028_unit_row_hashes',
    ]);

    // Every row is account `default`, none lost; no table was rewritten to get there.
    for (const table of tables) {
      const { rows } = await sql<{
        account: string | null;
        n: number;
      }>`select account_id as account, count(*)::int as n from ${sql.table(table)} group by account_id`.execute(
        old.db,
      );
      expect(rows, table).toEqual(counts[table] ? [{ account: 'default', n: counts[table] }] : []);
    }
    expect(await files()).toEqual(filesBefore);
    // Every primary key (and the foreign keys between runs, units and seen keys) leads with account_id.
    const { rows: keys } = await sql<{ table: string; columns: string[] }>`
      select t.relname as table, array_agg(a.attname::text order by k.ord) as columns
        from pg_index x join pg_class t on t.oid = x.indrelid
        join pg_namespace n on n.oid = t.relnamespace and n.nspname = current_schema()
        cross join lateral unnest(x.indkey) with ordinality as k(attnum, ord)
        join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
       where x.indisprimary group by t.relname`.execute(old.db);
    for (const table of tables)
      expect(keys.find((key) => key.table === table)?.columns[0], `primary key of ${table}`).toBe(
        'account_id',
      );
    const { rows: foreign } = await sql<{ name: string; definition: string }>`
      select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint where contype = 'f' and connamespace = current_schema()::regnamespace`.execute(
      old.db,
    );
    expect(foreign.map((key) => key.definition).sort()).toEqual([
      'FOREIGN KEY (account_id, run_id) REFERENCES sync_runs(account_id, run_id)',
      'FOREIGN KEY (account_id, work_unit_id) REFERENCES sync_work_units(account_id, work_unit_id) ON DELETE CASCADE',
    ]);
    expect(await old.db.selectFrom('accounts').select('account_id').execute()).toEqual([
      { account_id: 'default' },
    ]);
    await expectAccountEqualsSource(old.db, 'default', sim, UNIT_TABLES);

    // The next incremental of account `default` carries on from the old cursors and rewrites nothing
    // but the property rows, which gain the getProperties fields that migration 0013 added.
    // The unit inventory, which 0009 never had, is left out of what "no row rewritten" means.
    const nextConfig = config(old.url);
    nextConfig.streams.units.enabled = false;
    const [next] = await syncAccounts(nextConfig, log.logger);
    expect(next).toMatchObject({
      account: 'default',
      exitCode: EXIT.ok,
      summary: {
        status: 'succeeded',
        rowsInserted: 0,
        rowsUpdated: sim.dataset.properties.length,
        rowsDeleted: 0,
      },
    });
    expect(next.summary!.records).toBeGreaterThan(0);
    await expectAccountEqualsSource(old.db, 'default', sim, UNIT_TABLES);
    const runs = await old.db
      .selectFrom('sync_runs')
      .select(['account_id', 'run_id'])
      .orderBy('run_id')
      .execute();
    expect(runs.at(-1)).toEqual({ account_id: 'default', run_id: next.summary!.runId });
    expect(next.summary!.runId).toBeGreaterThan(first.summary!.runId);
    expect(log.text()).not.toContain(NORTH_PASSWORD);
  });
});
