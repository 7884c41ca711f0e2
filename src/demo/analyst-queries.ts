import { sql } from 'kysely';
import { grantReader } from '../reporting/reader-role.js';
import type { Db } from '../catalog/tables.js';

/**
 * The demo's analyst questions, answered from the reporting views (schema `reporting`,
 * docs/reporting.md) as a BI dashboard would ask them: no source conventions in this file. A
 * vendor or property is its account and its id: two accounts may use the same ids.
 */

/** One account, side by side with the others. */
export interface PortfolioRow {
  accountId: string;
  /** The configured display name, if any. */
  accountName: string | null;
  properties: number;
  units: number;
  occupied: number;
  /** occupied / units, in percent with one decimal, as a string. */
  occupancyPercent: string;
  /** Current and Notice leases of homes. */
  currentLeases: number;
  /** Open AR balance, exact, as a string. */
  openAr: string;
  /** Its part past due. */
  pastDueAr: string;
  /** Open AP: invoices with an amount due, and that amount. */
  openApInvoices: number;
  openAp: string;
}

/** The accounts side by side, from `reporting.portfolio`. */
export async function portfolio(db: Db): Promise<PortfolioRow[]> {
  const { rows } = await sql<{
    account_id: string;
    account_name: string | null;
    properties: number;
    units_known: number;
    units_occupied: number;
    occupancy_percent: string | null;
    current_leases: number;
    open_ar_balance: string;
    past_due_ar_balance: string;
    open_ap_invoices: number;
    open_ap_amount: string;
  }>`select * from reporting.portfolio order by account_id`.execute(db);
  return rows.map((row) => ({
    accountId: row.account_id,
    accountName: row.account_name,
    properties: row.properties,
    units: row.units_known,
    occupied: row.units_occupied,
    occupancyPercent: row.occupancy_percent ?? '0.0',
    currentLeases: row.current_leases,
    openAr: row.open_ar_balance,
    pastDueAr: row.past_due_ar_balance,
    openApInvoices: row.open_ap_invoices,
    openAp: row.open_ap_amount,
  }));
}

/** One property's occupancy. */
export interface OccupancyRow {
  /** The account the property belongs to (property ids are unique within an account only). */
  accountId: string;
  propertyId: number;
  propertyName: string | null;
  /** Units that any lease of the property has ever named (the warehouse has no unit list of its own). */
  units: number;
  /** Units with a resident today (the view's current month). */
  occupied: number;
  /** occupied / units, in percent with one decimal, as a string. */
  occupancyPercent: string;
}

/** Occupancy by property: the current month of `reporting.occupancy_monthly`. */
export async function occupancyByProperty(db: Db): Promise<OccupancyRow[]> {
  const { rows } = await sql<{
    account_id: string;
    property_id: number;
    property_name: string | null;
    units_known: number;
    units_occupied: number;
    occupancy_percent: string | null;
  }>`
    select distinct on (account_id, property_id)
           account_id, property_id, property_name, units_known, units_occupied, occupancy_percent::text
      from reporting.occupancy_monthly
     order by account_id, property_id, month desc`.execute(db);
  return rows.map((row) => ({
    accountId: row.account_id,
    propertyId: row.property_id,
    propertyName: row.property_name,
    units: row.units_known,
    occupied: row.units_occupied,
    occupancyPercent: row.occupancy_percent ?? '0.0',
  }));
}

/** Aging buckets, in the order they are shown, with the `reporting.ar_aging_as_of` column of each. */
const BUCKET_COLUMNS = [
  ['not yet due', 'not_yet_due'],
  ['1-30 days', 'days_1_30'],
  ['31-60 days', 'days_31_60'],
  ['61-90 days', 'days_61_90'],
  ['over 90 days', 'over_90'],
] as const;
export const AGING_BUCKETS = BUCKET_COLUMNS.map(([bucket]) => bucket);
export type AgingBucket = (typeof BUCKET_COLUMNS)[number][0];

/** Open AR in one aging bucket. */
export interface AgingRow {
  bucket: AgingBucket;
  /** Leases with an open balance in the bucket. */
  leases: number;
  /** Open balance in the bucket, exact, as a string. */
  balance: string;
}

/**
 * Residents' AR by aging bucket as it stood at the end of `day` (a month end, as finance closes a
 * month): `reporting.ar_aging_as_of` with the session's reporting.now at noon that day in the views'
 * time zone, applications (cancelled or not yet moved in) left out; every bucket listed, empty ones
 * with zero.
 */
export async function arAging(db: Db, day: string): Promise<AgingRow[]> {
  return db.connection().execute(async (session) => {
    await sql`
      select set_config('reporting.now',
                        ((${day}::date + time '12:00') at time zone (select time_zone from reporting.settings))::text,
                        false)`.execute(session);
    try {
      const sums = BUCKET_COLUMNS.map(
        ([, column], index) =>
          sql`count(*) filter (where ${sql.ref(column)} <> 0)::int as ${sql.ref(`leases_${index}`)},
              coalesce(sum(${sql.ref(column)}), 0)::numeric(14,2)::text as ${sql.ref(`balance_${index}`)}`,
      );
      const { rows } = await sql<
        Record<string, number | string>
      >`select ${sql.join(sums)} from reporting.ar_aging_as_of where not is_application`.execute(session);
      return BUCKET_COLUMNS.map(([bucket], index) => ({
        bucket,
        leases: Number(rows[0][`leases_${index}`]),
        balance: String(rows[0][`balance_${index}`]),
      }));
    } finally {
      await sql`select set_config('reporting.now', '', false)`.execute(session);
    }
  });
}

/** The last day of the month before `day`'s (`YYYY-MM-DD`): the month end finance last closed. */
export function lastMonthEnd(day: string): string {
  const [year, month] = day.split('-').map(Number);
  return new Date(Date.UTC(year, month - 1, 0)).toISOString().slice(0, 10);
}

/** Vendor spend of one post month. */
export interface SpendRow {
  /** `YYYY-MM`. */
  month: string;
  /** Invoices and credit memos (an invoice charged to several properties counts once for each). */
  invoices: number;
  /** Vendors (of each account: accounts may use the same vendor ids). */
  vendors: number;
  /** Net spend (credit memos reduce it), exact, as a string. */
  spend: string;
  topVendor: string | null;
  topVendorSpend: string | null;
}

/**
 * Vendor spend by month from `reporting.vendor_spend_monthly` (refunds to residents and reversed
 * invoices left out, credit memos netted): the latest `months` post months, with each month's
 * largest vendor.
 */
export async function vendorSpendByMonth(db: Db, months = 6): Promise<SpendRow[]> {
  const { rows } = await sql<{
    month: string;
    invoices: number;
    vendors: number;
    spend: string;
    top_vendor: string | null;
    top_vendor_spend: string | null;
  }>`
    with by_vendor as (
      select post_month, account_id, vendor_id, max(vendor_name) as vendor_name,
             sum(invoices + credit_memos)::int as invoices, sum(amount) as amount
        from reporting.vendor_spend_monthly
       where post_month in (select distinct post_month from reporting.vendor_spend_monthly
                             order by post_month desc limit ${months})
       group by post_month, account_id, vendor_id
    ),
    ranked as (
      select *,
             row_number() over (partition by post_month order by amount desc nulls last, account_id, vendor_id) as rank
        from by_vendor
    )
    select to_char(post_month, 'YYYY-MM') as month,
           sum(invoices)::int as invoices,
           count(vendor_id)::int as vendors,
           coalesce(sum(amount), 0)::numeric(14,2)::text as spend,
           max(vendor_name) filter (where rank = 1) as top_vendor,
           (max(amount) filter (where rank = 1))::numeric(14,2)::text as top_vendor_spend
      from ranked
     group by post_month
     order by post_month desc`.execute(db);
  return rows.map((row) => ({
    month: row.month,
    invoices: row.invoices,
    vendors: row.vendors,
    spend: row.spend,
    topVendor: row.top_vendor,
    topVendorSpend: row.top_vendor_spend,
  }));
}

/** The day the views answer as of: `reporting.today()` (the source's today in the configured time zone). */
export async function asOfDay(db: Db): Promise<string> {
  const { rows } = await sql<{ day: string }>`select reporting.today()::text as day`.execute(db);
  return rows[0].day;
}

/** The read-only role the demo makes for BI tools, and its local demo-only password. */
export const DEMO_READER = { role: 'propsync_demo_reader', password: 'demo-reader' } as const;

/**
 * Makes the demo's BI reader role (a login, select on the reporting views) as
 * `propsync grant-reader --login` would; returns its name.
 */
export async function ensureDemoReader(db: Db): Promise<string> {
  await grantReader(db, { role: DEMO_READER.role, login: true, password: DEMO_READER.password });
  return DEMO_READER.role;
}

/** One property's box score. */
export interface BoxScoreRow {
  accountId: string;
  propertyId: number;
  propertyName: string | null;
  /** Homes' unit spaces, and of them occupied (on notice or not), vacant, on notice and pre-leased. */
  units: number;
  occupied: number;
  vacant: number;
  onNotice: number;
  preleased: number;
  /** Percent with one decimal, as strings. */
  occupiedPercent: string;
  leasedPercent: string;
  /** Average market rent and average rent of current leases, exact, as strings. */
  marketRent: string | null;
  leaseRent: string | null;
}

/** The box score by property, from `reporting.box_score` (the unit inventory, as of the source's today). */
export async function boxScore(db: Db): Promise<BoxScoreRow[]> {
  const { rows } = await sql<{
    account_id: string;
    property_id: number;
    property_name: string | null;
    total_units: number;
    occupied: number;
    vacant: number;
    on_notice: number;
    preleased: number;
    occupied_percent: string | null;
    leased_percent: string | null;
    avg_market_rent: string | null;
    avg_lease_rent: string | null;
  }>`select * from reporting.box_score order by account_id, property_id`.execute(db);
  return rows.map((row) => ({
    accountId: row.account_id,
    propertyId: row.property_id,
    propertyName: row.property_name,
    units: row.total_units,
    occupied: row.occupied,
    vacant: row.vacant,
    onNotice: row.on_notice,
    preleased: row.preleased,
    occupiedPercent: row.occupied_percent ?? '0.0',
    leasedPercent: row.leased_percent ?? '0.0',
    marketRent: row.avg_market_rent,
    leaseRent: row.avg_lease_rent,
  }));
}
