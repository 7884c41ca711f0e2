import type { MaintainedView } from './maintained-groups.js';

/**
 * The shape of a reporting view's definition: one file per view under definitions/, holding its
 * SQL and every word said about it (the database comments and docs/reporting.md come from here).
 * `propsync migrate` brings the warehouse to these definitions (apply-definitions.ts); see
 * docs/reporting.md, "Adding or changing a view".
 */

/** One column of a view. */
export interface ReportingColumn {
  name: string;
  /** What the column holds, in words a dashboard user understands (the column's comment). */
  meaning: string;
  /**
   * The source column it carries (`table.column`), when that column holds personal data: the
   * view column is then personal, of that column's class (readers see it only when granted it).
   */
  from?: `${string}.${string}`;
}

/** One view of the reporting layer. */
export interface ReportingView {
  /** reporting.<name>, read through reporting_private.<name> (see docs/reporting.md, Accounts). */
  name: string;
  /** One line: what the view answers. */
  purpose: string;
  /** The rules behind the rows: what is left out, how "today" is taken, what it cannot know. */
  notes: string;
  columns: readonly ReportingColumn[];
  /** A typical dashboard query on the view. */
  example: string;
  /**
   * The query of reporting_private.<name>, with every relation schema-qualified. It starts with
   * account_id; the views it reads are named reporting_private.<view> (the order of creation
   * follows from them).
   */
  query: string;
  /** Materialized (refreshed at the end of each sync), when it is. */
  materialized?: {
    /** Why: what made the plain view too slow on the large data set. */
    reason: string;
    /** The columns of its grain: its unique index (<name>_grain_idx), which a concurrent refresh needs. */
    key: readonly string[];
    /** The grain may hold nulls (one row of each): NULLS NOT DISTINCT. */
    nullsNotDistinct?: boolean;
  };
  /**
   * A plain view over a table of sums kept group by group at the end of each sync (the groups a
   * sync wrote summed again), when it is: the table, its dirty groups and triggers are made by a
   * migration; the sums' statement is here.
   */
  maintained?: MaintainedView & {
    /** The groups, and the rows of theirs a sync writes: "(account and post month) whose invoices or invoice lines". */
    noted: string;
    /** What a refresh of the whole cost. */
    reason: string;
  };
}

/** The sentence that says a view is materialized, and why. */
export function materializedNote(view: ReportingView): string {
  return `Materialized view, refreshed at the end of each sync: ${view.materialized?.reason}.`;
}

/** The sentence that says a view's rows are kept group by group (or account by account), and why. */
function maintainedNote(view: ReportingView): string {
  const perAccount = view.maintained?.key.length === 1;
  const kept = perAccount
    ? `Kept account by account: its rows are kept in a table, and only the accounts ${view.maintained?.noted} `
    : `Maintained group by group: its sums are kept in a table, and only the groups ${view.maintained?.noted} `;
  return (
    kept +
    `a sync changed are refreshed at the end of each sync, since ${view.maintained?.reason}. ` +
    'Account and property names are read with the rows, so they are always current.'
  );
}

/** The sentence of a view's comment and docs on how it is kept, if it is not a plain view. */
export function keepingNote(view: ReportingView): string | undefined {
  if (view.maintained) return maintainedNote(view);
  return view.materialized ? materializedNote(view) : undefined;
}
