/**
 * A page's bookkeeping statements (its quarantine entries, the entries it resolves, the keys it
 * saw, its cursors, its checkpoint) sent together: one round trip, each statement a step of one
 * `with`. Steps see the tables as they were before the statement, not one another's writes, so a
 * statement that must read what a step wrote (marking unseen rows deleted reads the seen keys) runs
 * after `flush`.
 */
import { sql, type OperationNodeSource, type RawBuilder } from 'kysely';
import type { Db } from '../catalog/tables.js';

/** Steps gathered until a statement runs them. */
export class Bookkeeping {
  readonly #steps: OperationNodeSource[] = [];

  /** Adds the statements given (none: nothing). */
  add(...steps: (OperationNodeSource | undefined)[]): void {
    for (const step of steps) if (step) this.#steps.push(step);
  }

  /** Runs the steps gathered, in one statement, and forgets them. */
  async flush(db: Db): Promise<void> {
    const steps = this.#take();
    if (steps.length === 1) await sql`${steps[0]}`.execute(db);
    else if (steps.length > 1) await sql`${withSteps(steps)} select 1`.execute(db);
  }

  /**
   * Runs `last` with the steps gathered and, when given, `after(ran)`: a step that reads what `last`
   * returns (`ran` names it as a table). One statement.
   */
  async runWith(
    db: Db,
    last: OperationNodeSource,
    after?: (ran: RawBuilder<unknown>) => OperationNodeSource,
  ): Promise<void> {
    if (after) {
      const ran = sql.raw('last_step');
      this.add(after(ran));
      await sql`${withSteps(this.#take(), sql`${ran} as (${last})`)} select 1`.execute(db);
    } else {
      this.add(last);
      await this.flush(db);
    }
  }

  #take(): OperationNodeSource[] {
    return this.#steps.splice(0);
  }
}

/** `with step_0 as (...), step_1 as (...)`, after `first` when given. */
function withSteps(steps: readonly OperationNodeSource[], first?: RawBuilder<unknown>): RawBuilder<unknown> {
  const named = steps.map((step, index) => sql`${sql.raw(`step_${index}`)} as (${step})`);
  return sql`with ${sql.join(first ? [first, ...named] : named)}`;
}
