import { sql } from 'kysely';
import type { Db } from '../catalog/tables.js';
import type { Logger } from '../log/logger.js';
import { ACCOUNT_COLUMN, type SourceTable } from '../warehouse/schema.js';

/**
 * A stream's first load for an account: its parent table held none of the account's rows when
 * the run began (its first full load, a stream newly enabled). Its pages need no lookup of stored
 * keys or digests: the only rows there are those the run itself wrote, whose keys this process
 * holds. A page that names none of them is copied straight in; one that names a key written
 * before in the run (the source repeats records across pages) is looked up and merged as any
 * page. The keys are claimed before the page's transaction and kept should it roll back, so the
 * set only ever holds more than was written: a page wrongly taken for written is merged, which is
 * exact too. Another run (a resumed one, the next night) finds rows and merges from the start.
 */
export class FirstLoad {
  private readonly written = new Set<number>();

  /**
   * Claims the page's parent keys: true when none was claimed before (the page is the first
   * to hold each of them, and needs no lookup), false when one was.
   */
  claim(keys: readonly number[]): boolean {
    const first = keys.every((key) => !this.written.has(key));
    for (const key of keys) this.written.add(key);
    return first;
  }
}

/**
 * The first loads of one run, by stream: each stream's decided once, when its first unit starts,
 * by whether its parent table holds any of the account's rows (undefined: it does, so pages are
 * looked up and merged as always).
 */
export class FirstLoads {
  private readonly decided = new Map<string, Promise<FirstLoad | undefined>>();

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {}

  of(account: string, stream: string, parent: SourceTable): Promise<FirstLoad | undefined> {
    let decision = this.decided.get(parent.name);
    if (!decision) {
      decision = holdsRows(this.db, parent, account).then((holds) => {
        if (holds) return undefined;
        this.logger.info(
          { event: 'first_load', stream, table: parent.name },
          `${stream}: account ${account} has no rows in ${parent.name} yet; its pages are copied in without lookups`,
        );
        return new FirstLoad();
      });
      // A failed read is tried again by the next unit.
      decision.catch(() => this.decided.delete(parent.name));
      this.decided.set(parent.name, decision);
    }
    return decision;
  }
}

/** Whether the table holds any row of the account (marked deleted or not). */
async function holdsRows(db: Db, table: SourceTable, account: string): Promise<boolean> {
  const { rows } = await sql<{ holds: boolean }>`select exists (
    select 1 from ${sql.table(table.name)} where ${sql.ref(ACCOUNT_COLUMN)} = ${account}) as holds`.execute(
    db,
  );
  return rows[0].holds;
}
