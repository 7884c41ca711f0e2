import { Migrator, sql } from 'kysely';
import pg from 'pg';
import { expect } from 'vitest';
import type { Db, Warehouse } from '../../src/catalog/tables.js';
import { grantReader } from '../../src/reporting/reader-role.js';
import { refreshReporting } from '../../src/reporting/refresh.js';
import { connect } from '../../src/warehouse/db.js';
import { migrationProvider } from '../../src/warehouse/migrate.js';
import { waitFor } from '../cli/support.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { insertFixture, SOUTH } from './fixture.js';

// What the tests of the views maintained group by group (src/reporting/maintained-groups.ts)
// share: ar-activity-groups.test.ts and vendor-spend-groups.test.ts name their view, and keep
// the tests of what only their view does.

/** The time zone the tests refresh in. */
export const ZONE = 'America/Denver';

/** Every view a refresh names when none is skipped, in its order. */
export const REFRESHED = ['properties', 'ar_activity_monthly', 'occupancy_monthly', 'vendor_spend_monthly'];

/** A view maintained group by group, as its tests name it (literally: not from the code under test). */
export interface MaintainedViewCase {
  /** The view of reporting_private over the groups, and of reporting over it: `ar_activity_monthly`. */
  view: string;
  /** The table of reporting_private holding the sums. */
  groups: string;
  /** The table of reporting_private holding the groups noted dirty. */
  dirty: string;
  /** What the migration makes starts with this (tables, `note_` functions, triggers): `ar_activity`. */
  stem: string;
  /** The SQL expression naming a dirty group in `dirty()`'s answer, such as account/month. */
  label: string;
  /** The grain's order: `order by account_id, ...`. */
  order: string;
  /** The view's rows as migration 0014 computed them: the whole source summed, then named. */
  full: string;
  /** The migration before the one that makes the view maintained: the database the migration's test starts from. */
  previousMigration: string;
  /** The update of the groups under test. */
  update(trx: Db): Promise<number>;
}

/**
 * A database of the test file's own with the two accounts of the fixture, north and south, and
 * the views refreshed; migrated to `migratedTo` only when said, and read by `reader`, limited to
 * account north, when said.
 */
export async function openWarehouse(
  options: { migratedTo?: string; reader?: string } = {},
): Promise<TestDatabase> {
  const database = await createTestDatabase({ migrate: options.migratedTo === undefined });
  try {
    if (options.migratedTo)
      expect((await migrator(database.db).migrateTo(options.migratedTo)).error).toBeUndefined();
    await insertFixture(database.db, 'north');
    await insertFixture(database.db, 'south', SOUTH);
    await sql`insert into accounts (account_id, name) values ('north', 'North Homes'), ('south', 'South Estates')`.execute(
      database.db,
    );
    if (options.reader)
      await grantReader(database.db, { role: options.reader, accounts: ['north'], personal: true });
    await refreshReporting(database.db, { timeZone: ZONE });
    return database;
  } catch (error) {
    await dropWarehouse(database, options.reader);
    throw error;
  }
}

/** Drops what `openWarehouse` made: the database, and the reader's role when there is one. */
export async function dropWarehouse(database: TestDatabase | undefined, reader?: string): Promise<void> {
  if (database && reader) {
    await sql`drop owned by ${sql.id(reader)}`.execute(database.db).catch(() => {});
    await sql`drop role if exists ${sql.id(reader)}`.execute(database.db);
  }
  await database?.drop();
}

/** A migrator over the project's migrations. */
export function migrator(db: Db): Migrator {
  return new Migrator({ db, provider: migrationProvider() });
}

/** Runs statements written as SQL text (they carry no values from outside), one after the other. */
async function run(db: Db, statements: readonly string[]): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

/** The helpers and the shared tests of one view maintained group by group, over the file's database. */
export function maintainedViewTests(view: MaintainedViewCase, database: () => TestDatabase) {
  const db = () => database().db;

  /** The groups noted dirty, as `view.label` names them. */
  async function dirty(on: Db = db()): Promise<string[]> {
    const { rows } = await sql<{ group: string }>`
      select ${sql.raw(view.label)} as group from ${sql.raw(`reporting_private.${view.dirty}`)} order by 1`.execute(
      on,
    );
    return rows.map((row) => row.group);
  }

  /** The maintained rows and the full query's, each in the grain's order. */
  async function bothWays(on: Db = db()): Promise<{ maintained: unknown[]; full: unknown[] }> {
    const maintained = (
      await sql.raw(`select * from reporting_private.${view.view} ${view.order}`).execute(on)
    ).rows;
    const full = (await sql.raw(`select * from (${view.full}) f ${view.order}`).execute(on)).rows;
    return { maintained, full };
  }

  /** Expects the maintained rows to be the full query's, and nothing left dirty. */
  async function expectSameAsFull(): Promise<unknown[]> {
    const { maintained, full } = await bothWays();
    expect(maintained).toEqual(full);
    expect(await dirty()).toEqual([]);
    return maintained;
  }

  /**
   * Refreshes as the end of a sync does, then expects the maintained rows to be the full query's, and
   * nothing left dirty.
   */
  async function expectMaintained(): Promise<unknown[]> {
    expect(await refreshReporting(db(), { timeZone: ZONE })).toEqual({ refreshed: REFRESHED, skipped: [] });
    return expectSameAsFull();
  }

  /** The row versions (ctid) of the groups `where` selects: the same ones when those groups were not summed again. */
  function rowVersions(where: string): () => Promise<{ ctid: string }[]> {
    const query = sql.raw<{ ctid: string }>(
      `select ctid::text from reporting_private.${view.groups} where ${where} ${view.order}`,
    );
    return async () => (await query.execute(db())).rows;
  }

  /** A connection of its own, as another process would hold. */
  async function session(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: database().url, application_name: 'other-process' });
    await client.connect();
    return client;
  }

  /** Whether a statement of this database like `pattern` waits for a lock. */
  const waitingOn = (pattern: string) => async () =>
    (
      await sql`select 1 from pg_stat_activity where datname = current_database() and query ilike ${pattern} and wait_event_type = 'Lock'`.execute(
        db(),
      )
    ).rows.length > 0;

  /** The view is a plain one, and holds the full query's rows of both accounts (more than `moreThan`); returns them. */
  async function expectPlainView(moreThan: number): Promise<unknown[]> {
    const { rows } = await sql<{
      kind: string;
    }>`select relkind::text as kind from pg_class where oid = ${`reporting_private.${view.view}`}::regclass`.execute(
      db(),
    );
    expect(rows).toEqual([{ kind: 'v' }]);
    const maintained = await expectMaintained();
    expect(maintained.length).toBeGreaterThan(moreThan);
    expect(new Set(maintained.map((row: any) => row.account_id))).toEqual(new Set(['north', 'south']));
    return maintained;
  }

  /**
   * The names of north's rows `where` selects follow a renamed account at once, and a renamed property after
   * a refresh, no group noted.
   */
  async function expectNamesAsNow(where: string): Promise<void> {
    await sql`update accounts set name = 'North Homes LLC' where account_id = 'north'`.execute(db());
    const names = sql.raw<{ account_name: string; property_name: string }>(
      `select distinct account_name, property_name from reporting.${view.view} where ${where}`,
    );
    expect((await names.execute(db())).rows).toEqual([
      { account_name: 'North Homes LLC', property_name: 'Maple Court' },
    ]);
    await sql`insert into properties (account_id, property_id, marketing_name, raw) values ('north', 100, 'Maple Court Residences', '{}')`.execute(
      db(),
    );
    expect(await dirty()).toEqual([]);
    await expectMaintained();
    expect((await names.execute(db())).rows).toEqual([
      { account_name: 'North Homes LLC', property_name: 'Maple Court Residences' },
    ]);
  }

  /** A truncate of each of `tables` (undone) notes more than `moreThan` groups, and the update empties the groups. */
  async function expectTruncateNotesAll(tables: readonly string[], moreThan: number): Promise<void> {
    for (const table of tables) {
      await db()
        .transaction()
        .execute(async (trx) => {
          await sql`truncate ${sql.table(table)}`.execute(trx);
          expect((await dirty(trx)).length).toBeGreaterThan(moreThan);
          expect(await view.update(trx)).toBeGreaterThan(moreThan);
          expect(
            (await sql`select 1 from ${sql.raw(`reporting_private.${view.groups}`)}`.execute(trx)).rows,
          ).toEqual([]);
          throw new Error('undo');
        })
        .catch((error: Error) => {
          if (error.message !== 'undo') throw error;
        });
    }
    const { maintained, full } = await bothWays();
    expect(maintained).toEqual(full);
  }

  /**
   * `writes` of south on ids north has too note south's groups only (`noted`): the rows of the
   * groups `untouched` selects keep their versions, and south's sums (`sums`) change.
   */
  async function expectOtherAccountUntouched(step: {
    untouched: string;
    sums: () => Promise<unknown>;
    writes: string[];
    noted: string[];
  }): Promise<void> {
    const rows = rowVersions(step.untouched);
    const before = await rows();
    const southBefore = await step.sums();
    await run(db(), step.writes);
    expect(await dirty()).toEqual(step.noted);
    await expectMaintained();
    // The same row versions: not deleted and inserted again.
    expect(await rows()).toEqual(before);
    expect(await step.sums()).not.toEqual(southBefore);
  }

  /**
   * `load` makes `groups` groups dirty at once, most of them new: every group is written again,
   * those `untouched` selects too; then `write` notes a few among hundreds (`noted`): those only.
   */
  async function expectWholeSumAfterFullLoad(step: {
    untouched: string;
    load: string[];
    groups: number;
    write: string;
    noted: string[];
  }): Promise<void> {
    const rows = rowVersions(step.untouched);
    const before = await rows();
    await run(db(), step.load);
    expect((await dirty()).length).toBe(step.groups);
    await expectMaintained();
    // Every row written again, those of groups no row of which changed too.
    expect(await rows()).not.toEqual(before);
    // A few groups among hundreds: those only.
    const after = await rows();
    await run(db(), [step.write]);
    expect(await dirty()).toEqual(step.noted);
    await expectMaintained();
    expect(await rows()).toEqual(after);
  }

  /**
   * A refresh waits for a sync's open transaction (`writes`, after `dirtyFirst` noted a group
   * they note again) and, once it commits, sums its rows (`expectSummed`) and forgets their groups.
   */
  async function expectWaitForNotingSync(step: {
    dirtyFirst: string;
    writes: string[];
    expectSummed: () => Promise<void>;
  }): Promise<void> {
    const sync = await session();
    const refreshing: Db = connect<Warehouse>(database().url, { maxConnections: 1 });
    let done: Promise<unknown> | undefined;
    try {
      // A group is dirty already: the sync's note of it is the row there (on conflict do nothing).
      await run(db(), [step.dirtyFirst]);
      await sync.query('begin');
      for (const write of step.writes) await sync.query(write);
      done = refreshReporting(refreshing, { timeZone: ZONE, lockTimeoutMs: 60_000 });
      await waitFor(
        // (or first that of another view the writes noted: the refresh waits there first)
        waitingOn('lock table reporting_private.%_dirty%'),
        20_000,
        'the update to wait for the dirty groups',
      );
      await sync.query('commit');
      expect(await done).toEqual({ refreshed: REFRESHED, skipped: [] });
      // Its snapshot came after the lock: the committed rows are summed, and their groups forgotten.
      await step.expectSummed();
      await expectSameAsFull();
    } finally {
      await sync.end().catch(() => {});
      await done?.catch(() => {});
      await refreshing.destroy();
    }
  }

  /**
   * While an update (of what `dirtyFirst` noted) is under way, a sync's `write` waits for it and
   * then notes its group (`noted`) for the next one; a second update cannot have the lock and is
   * skipped, the other views refreshed.
   */
  async function expectNotedDuringUpdate(step: {
    dirtyFirst: string;
    write: string;
    writeWaiting: string;
    noted: string[];
  }): Promise<void> {
    const sync = await session();
    const updating: Db = connect<Warehouse>(database().url, { maxConnections: 1 });
    let written: Promise<unknown> | undefined;
    try {
      await run(db(), [step.dirtyFirst]);
      await updating
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          expect(await view.update(trx)).toBe(1);
          // A sync writes meanwhile: it waits for this update to end, then notes its group.
          written = sync.query(step.write);
          await waitFor(waitingOn(step.writeWaiting), 20_000, 'the sync to wait for the update');
          // A second update cannot have the lock: skipped, the others refreshed (but those whose
          // dirty table the waiting sync holds already: the sync noted their accounts first).
          const outcome = await refreshReporting(db(), { timeZone: ZONE, lockTimeoutMs: 200 });
          expect(outcome.skipped).toContain(view.view);
          expect([...outcome.refreshed, ...outcome.skipped].sort()).toEqual([...REFRESHED].sort());
        });
      await written;
      expect(await dirty()).toEqual(step.noted);
      await expectMaintained();
    } finally {
      await written?.catch(() => {});
      await sync.end().catch(() => {});
      await updating.destroy();
    }
  }

  /** Two processes updating at once (after `dirtyFirst`) take turns: none skipped, no group doubled, none lost. */
  async function expectTurnsTaken(dirtyFirst: string): Promise<void> {
    await run(db(), [dirtyFirst]);
    const pools = [0, 1].map(() => connect<Warehouse>(database().url, { maxConnections: 2 }));
    try {
      const outcomes = await Promise.all(
        pools.map((pool) => refreshReporting(pool, { timeZone: ZONE, parallel: true })),
      );
      for (const outcome of outcomes) expect(outcome.skipped).toEqual([]);
    } finally {
      for (const pool of pools) await pool.destroy();
    }
    await expectSameAsFull();
  }

  return {
    dirty,
    bothWays,
    expectMaintained,
    rowVersions,
    session,
    waitingOn,
    expectPlainView,
    expectNamesAsNow,
    expectTruncateNotesAll,
    expectOtherAccountUntouched,
    expectWholeSumAfterFullLoad,
    expectWaitForNotingSync,
    expectNotedDuringUpdate,
    expectTurnsTaken,
  };
}

/**
 * The shape and the rows of the view, before and after its migration, in a database of its own
 * migrated to the migration before (`open()` makes it, `close()` drops it), read by a role named
 * from `readerPrefix` and limited to account north.
 */
export function migrationTests(view: MaintainedViewCase, readerPrefix: string) {
  const reader = `${readerPrefix}_${Math.random().toString(16).slice(2, 10)}`;
  let old: TestDatabase | undefined;
  const db = (): Db => {
    if (!old) throw new Error('migrationTests: open() first');
    return old.db;
  };

  /** Makes the database of the migration before, with the fixture's two accounts and the reader. */
  async function open(): Promise<void> {
    old = await openWarehouse({ migratedTo: view.previousMigration, reader });
  }

  /** Drops the database and the reader's role. */
  async function close(): Promise<void> {
    await dropWarehouse(old, reader);
  }

  /**
   * The reader view and the view behind it as Postgres has them: kind, options, columns with types, indexes,
   * who may read them.
   */
  async function shape(): Promise<unknown[]> {
    const { rows } = await sql`
      select c.oid::regclass::text as relation, c.relkind::text as kind, c.reloptions::text[] as options,
             array(select a.attname || ' ' || format_type(a.atttypid, a.atttypmod) from pg_attribute a
                    where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as columns,
             array(select pg_get_indexdef(x.indexrelid) from pg_index x where x.indrelid = c.oid order by 1) as indexes,
             array(select distinct pg_get_userbyid(acl.grantee)::text from aclexplode(c.relacl) acl where acl.grantee <> c.relowner order by 1) as readers
        from pg_class c
       where c.oid in (${`reporting.${view.view}`}::regclass, ${`reporting_private.${view.view}`}::regclass)
       order by 1`.execute(db());
    return rows;
  }

  /** Every row of the reader view, as its owner and as the reader limited to account north. */
  async function rows(): Promise<{ owner: unknown[]; reader: unknown[] }> {
    const all = `select * from reporting.${view.view} ${view.order}`;
    const owner = (await sql.raw(all).execute(db())).rows;
    const limited = await db()
      .transaction()
      .execute(async (trx) => {
        await sql`set local role ${sql.id(reader)}`.execute(trx);
        return (await sql.raw(all).execute(trx)).rows;
      });
    return { owner, reader: limited };
  }

  /** What the migration makes besides the view: tables, functions, triggers. */
  async function made(): Promise<unknown[]> {
    const like = (suffix: string) => `${view.stem}${suffix}`;
    return (
      await sql`
        select relname as name from pg_class where relnamespace = 'reporting_private'::regnamespace and relname like ${like('_%')} and relkind <> 'i'
        union all select proname from pg_proc where proname like ${`note_${view.stem}%`}
        union all select tgname || ' on ' || tgrelid::regclass::text from pg_trigger where tgname like ${like('%')}
        order by 1`.execute(db())
    ).rows;
  }

  /**
   * Before the migration: a materialized view behind the reader view, whose reader sees some of its rows;
   * returns its shape and rows.
   */
  async function expectMaterialized(): Promise<{
    shape: unknown[];
    rows: { owner: unknown[]; reader: unknown[] };
  }> {
    const before = await shape();
    const rowsBefore = await rows();
    expect(rowsBefore.owner.length).toBeGreaterThan(rowsBefore.reader.length);
    expect(rowsBefore.reader.length).toBeGreaterThan(0);
    expect(before).toEqual([
      expect.objectContaining({
        relation: `reporting.${view.view}`,
        kind: 'v',
        options: ['security_barrier=true'],
        readers: [reader],
      }),
      expect.objectContaining({
        relation: `reporting_private.${view.view}`,
        kind: 'm',
        indexes: [expect.stringContaining(`${view.view}_grain_idx`)],
      }),
    ]);
    return { shape: before, rows: rowsBefore };
  }

  /**
   * After it: a plain view without indexes in place of the materialized one, the same rows (the
   * comments are current state, written by `propsync migrate` after the migrations).
   */
  async function expectMaintainedAfterUp(before: { shape: unknown[]; rows: unknown }): Promise<void> {
    const [readerView, privateView] = before.shape as { kind: string; indexes: string[] }[];
    expect(await shape()).toEqual([readerView, { ...privateView, kind: 'v', indexes: [] }]);
    expect(await rows()).toEqual(before.rows);
  }

  /**
   * Down to the migration before: the materialized view again, of the same shape and rows, and nothing the
   * migration made left.
   */
  async function expectMaterializedAfterDown(before: { shape: unknown[]; rows: unknown }): Promise<void> {
    expect((await migrator(db()).migrateTo(view.previousMigration)).error).toBeUndefined();
    expect(await shape()).toEqual(before.shape);
    expect(await rows()).toEqual(before.rows);
    expect(await made()).toEqual([{ name: view.view }]);
  }

  return {
    reader,
    db,
    open,
    close,
    shape,
    rows,
    made,
    expectMaterialized,
    expectMaintainedAfterUp,
    expectMaterializedAfterDown,
  };
}
