import { sql } from 'kysely';
import type { SimDataset } from '../../src/simulator/data/model.js';
import { expectedWarehouse } from '../../src/simulator/data/truth.js';
import type { Db } from '../../src/catalog/tables.js';

/**
 * What a complete warehouse must hold, computed straight from the simulator's data set (not
 * through the client or the streams): per table, live rows and exact money sums in cents.
 */
export type TableTotals = Record<string, { rows: number; cents?: Record<string, string> }>;

/** A source date `MM/DD/YYYY` as the warehouse's `YYYY-MM-DD` (null when absent), read by hand, not by the client. */
export function mdyToIso(value: unknown): string | null {
  return typeof value === 'string' && value
    ? `${value.slice(6, 10)}-${value.slice(0, 2)}-${value.slice(3, 5)}`
    : null;
}

/** Cents of a decimal string or number, exactly (no float arithmetic on strings). */
export function cents(value: unknown): bigint {
  if (typeof value === 'number') return BigInt(Math.round(value * 100));
  const text = String(value).replace('$', '');
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = text.replace(/^[-+]/, '').split('.');
  const result = BigInt(whole || '0') * 100n + BigInt((fraction + '00').slice(0, 2));
  return negative ? -result : result;
}

/**
 * Expected totals of every source table after a complete r2 sync of `dataset`, from the
 * simulator's own truth helper (which reads the data set, not the wire): r1's lease activities
 * are left out, since r2 does not send them.
 */
export function expectedTotals(dataset: SimDataset): TableTotals {
  const truth = expectedWarehouse(dataset);
  const out: TableTotals = {};
  for (const [table, want] of Object.entries(truth)) {
    if (table === 'lease_activities') continue;
    const sums: Record<string, string> = {};
    if (want.sumAmount !== undefined) sums.amount = String(cents(want.sumAmount));
    if (want.sumAmountDue !== undefined) sums.amount_due = String(cents(want.sumAmountDue));
    out[table] = { rows: want.count, ...(Object.keys(sums).length ? { cents: sums } : {}) };
  }
  return out;
}

/** The same totals read from the warehouse (rows not marked deleted), of one account's rows when `account` is given. */
export async function warehouseTotals(
  db: Db,
  expected: TableTotals,
  options: { account?: string } = {},
): Promise<TableTotals> {
  const ofAccount = options.account === undefined ? sql`true` : sql`account_id = ${options.account}`;
  const out: TableTotals = {};
  for (const [table, want] of Object.entries(expected)) {
    const sums = Object.keys(want.cents ?? {});
    const select = sums.length
      ? sql.join([
          sql`count(*)::int as rows`,
          ...sums.map(
            (column) => sql`coalesce(sum(${sql.ref(column)} * 100), 0)::bigint::text as ${sql.ref(column)}`,
          ),
        ])
      : sql`count(*)::int as rows`;
    const { rows } = await sql<
      Record<string, string | number>
    >`select ${select} from ${sql.table(table)} where deleted_at is null and ${ofAccount}`.execute(db);
    const row = rows[0];
    out[table] = {
      rows: Number(row.rows),
      ...(sums.length
        ? { cents: Object.fromEntries(sums.map((column) => [column, String(row[column])])) }
        : {}),
    };
  }
  return out;
}
