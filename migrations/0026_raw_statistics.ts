import { sql, type Kysely } from 'kysely';

/**
 * Issue 42, item 2. No statistics on the source tables' `raw` column: no statement filters,
 * joins or groups on the whole record, and ANALYZE spent a fifth of its time on a table's sample
 * detoasting and comparing the records (docs/benchmark.md). The SQL here is frozen.
 */
const TABLES = [
  'ar_transactions',
  'invoice_line_items',
  'invoice_payments',
  'invoices',
  'lease_activities',
  'lease_customers',
  'lease_intervals',
  'lease_scheduled_charges',
  'lease_unit_spaces',
  'leases',
  'properties',
  'unit_inventories',
  'unit_spaces',
  'units',
  'voided_payments',
];

async function setStatistics(db: Kysely<unknown>, target: number): Promise<void> {
  for (const table of TABLES)
    await sql`alter table ${sql.table(table)} alter column raw set statistics ${sql.lit(target)}`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await setStatistics(db, 0);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await setStatistics(db, -1);
}
