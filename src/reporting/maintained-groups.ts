import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../catalog/tables.js';
import { REPORTING_PRIVATE_SCHEMA } from './schemas.js';

/**
 * A reporting view whose rows are kept group by group rather than refreshed: a plain view of
 * reporting_private over a table of sums, whose groups triggers on the tables it sums note in a
 * table of dirty groups (a migration makes the table and the triggers; the view's definition,
 * under definitions/, declares the view and its sums).
 */
export interface MaintainedView {
  /** The view of reporting_private over the sums, named by it in a refresh's outcome. */
  view: string;
  /** The table of reporting_private holding the sums. */
  groups: string;
  /** The table of reporting_private holding the groups noted since they were last summed. */
  dirty: string;
  /** The columns of a group, the dirty table's key: the sums' rows of a group share them. */
  key: readonly string[];
  /**
   * The fewest groups (summed and dirty) for which dirty ones from a quarter of them on are
   * summed from the whole source: below, either way takes milliseconds, when groups are small.
   */
  wholeMinGroups: number;
  /**
   * The statement (SQL text) that inserts into `groups` the sums of the groups in `dirty`, or of
   * the whole source when `whole`.
   */
  insertSums(whole: boolean): string;
  /**
   * The statement (SQL text) that notes in `dirty` the groups whose rows went stale with no write,
   * when some can: those that depend on the day.
   */
  noteStale?: string;
  /**
   * `dirty` is a log of notes (an identity and the key, a group noted any number of times), not a
   * set: an update locks `groups` against other updates instead of `dirty`, so a writing run never
   * waits for it, and forgets only the notes its snapshot saw.
   */
  log?: boolean;
}

/**
 * Dirty groups from this share of all groups on (a quarter) are summed again from the whole
 * source, in a warehouse of at least the view's `wholeMinGroups` groups.
 */
const WHOLE_SHARE = 4;

/**
 * Sums again the groups of `view` that its triggers noted since the last time, and forgets them;
 * returns how many. With `rebuild`, sums every group from the whole source, noted or not.
 *
 * `trx` is a REPEATABLE READ transaction that has taken no snapshot yet: the lock on the dirty
 * table (on the groups, for a log: see MaintainedView.log) comes first. It waits for every open
 * transaction that noted a group, so the snapshot
 * the next statement takes holds their rows, and holds back those that would note one until
 * this commits (they note it again then, for the next time); a second update waits for the
 * first and sees its rows. Readers see a group's old rows or its new ones, never a half.
 */
export async function updateGroups(trx: Db, view: MaintainedView, rebuild = false): Promise<number> {
  // The declarations' names, unquoted: the statements read as 0015's did (in pg_stat_activity too).
  const groups = sql.raw(`${REPORTING_PRIVATE_SCHEMA}.${view.groups}`);
  const dirtyTable = sql.raw(`${REPORTING_PRIVATE_SCHEMA}.${view.dirty}`);
  const key = view.key.map((column) => sql.raw(column));
  await sql`lock table ${view.log ? groups : dirtyTable} in share row exclusive mode`.execute(trx);
  if (view.noteStale) await sql.raw(view.noteStale).execute(trx);
  const { rows } = await sql<{ dirty: number }>`
    select count(*)::int as dirty from (select distinct ${sql.join(key)} from ${dirtyTable}) d`.execute(trx);
  const { dirty } = rows[0];
  if (dirty === 0 && !rebuild) return 0;
  // A good share of the groups (after a full load, all of them): the whole source summed once
  // costs less than a search of it per group. The groups there are, new ones counted, are at
  // most those summed last plus the dirty ones. Too few dirty groups for a whole sum: the groups
  // summed are not counted (a scan of them all).
  const total =
    dirty * WHOLE_SHARE < view.wholeMinGroups ? dirty : dirty + (await countGroups(trx, groups, key));
  const whole = rebuild || (total >= view.wholeMinGroups && dirty * WHOLE_SHARE >= total);
  if (whole) await sql`delete from ${groups}`.execute(trx);
  else {
    // The planner sees how many groups are dirty: a few after a nightly sync.
    await sql`analyze ${dirtyTable}`.execute(trx);
    const same = sql.join(
      key.map((column) => sql`g.${column} = d.${column}`),
      sql` and `,
    );
    await sql`delete from ${groups} g using ${dirtyTable} d where ${same}`.execute(trx);
  }
  await sql.raw(view.insertSums(whole)).execute(trx);
  if (whole) await sql`analyze ${groups}`.execute(trx);
  // Under the lock no group was noted since the snapshot: every row here was summed above. (A
  // log: the notes its snapshot saw only, all summed above; later ones stay for the next update.)
  await sql`delete from ${dirtyTable}`.execute(trx);
  return dirty;
}

/** How many groups `groups` holds. */
async function countGroups(
  trx: Db,
  groups: RawBuilder<unknown>,
  key: RawBuilder<unknown>[],
): Promise<number> {
  const { rows } = await sql<{ groups: number }>`
    select count(*)::int as groups from (select distinct ${sql.join(key)} from ${groups}) g`.execute(trx);
  return rows[0].groups;
}
