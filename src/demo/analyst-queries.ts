import { sql } from 'kysely';
import type { Db } from '../warehouse-schema.js';

/** Lease status type ids that occupy a unit: Current and Notice. */
const OCCUPYING_STATUSES = [4, 5];
/** Invoice type id of refunds to residents: money out, but not vendor spend. */
const CUSTOMER_REFUND_TYPE = 20;

/** One property's occupancy. */
export interface OccupancyRow {
  propertyId: number;
  propertyName: string | null;
  /** Units that any lease of the property has ever named (the warehouse has no unit list of its own). */
  units: number;
  /** Units with a Current or Notice lease. */
  occupied: number;
  /** occupied / units, in percent with one decimal, as a string. */
  occupancyPercent: string;
}

/**
 * Occupancy by property: units with a Current or Notice lease over the units that any lease
 * has named, leaving out other-income leases (parking, storage) and leases the source no
 * longer lists.
 */
export async function occupancyByProperty(db: Db): Promise<OccupancyRow[]> {
  const { rows } = await sql<{ property_id: number; property_name: string | null; units: number; occupied: number; occupancy_percent: string }>`
    select property_id,
           max(property_name) as property_name,
           count(distinct unit_id)::int as units,
           count(distinct unit_id) filter (where lease_status_type_id = any(${OCCUPYING_STATUSES}::int[]))::int as occupied,
           round(100.0 * count(distinct unit_id) filter (where lease_status_type_id = any(${OCCUPYING_STATUSES}::int[]))
                 / nullif(count(distinct unit_id), 0), 1)::text as occupancy_percent
      from leases
     where deleted_at is null and unit_id is not null and coalesce(is_other_income, false) = false
     group by property_id
     order by property_id`.execute(db);
  return rows.map((row) => ({ propertyId: row.property_id, propertyName: row.property_name, units: row.units, occupied: row.occupied, occupancyPercent: row.occupancy_percent ?? '0.0' }));
}

/** Aging buckets, in the order they are shown. */
export const AGING_BUCKETS = ['not yet due', '1-30 days', '31-60 days', '61-90 days', 'over 90 days'] as const;
export type AgingBucket = (typeof AGING_BUCKETS)[number];

/** Open AR in one aging bucket. */
export interface AgingRow {
  bucket: AgingBucket;
  transactions: number;
  /** Sum of `balance_due`, exact, as a string. */
  balance: string;
}

/**
 * AR balance by aging bucket: the open balance (`balance_due`) of AR transactions by days past
 * their due date, as of `asOf` (the source's today). Temporary and deleted transactions are
 * left out; every bucket is listed, empty ones with zero.
 */
export async function arAging(db: Db, asOf: string): Promise<AgingRow[]> {
  const { rows } = await sql<{ bucket: AgingBucket; transactions: number; balance: string }>`
    with open as (
      select balance_due,
             case
               when due_date is null or due_date >= ${asOf}::date then 'not yet due'
               when ${asOf}::date - due_date <= 30 then '1-30 days'
               when ${asOf}::date - due_date <= 60 then '31-60 days'
               when ${asOf}::date - due_date <= 90 then '61-90 days'
               else 'over 90 days'
             end as bucket
        from ar_transactions
       where deleted_at is null and coalesce(is_temporary, false) = false and balance_due <> 0
    )
    select b.bucket, count(o.balance_due)::int as transactions, coalesce(sum(o.balance_due), 0)::numeric(14,2)::text as balance
      from unnest(${[...AGING_BUCKETS]}::text[]) with ordinality as b(bucket, position)
      left join open o on o.bucket = b.bucket
     group by b.bucket, b.position
     order by b.position`.execute(db);
  return rows;
}

/** Vendor spend of one post month. */
export interface SpendRow {
  /** `YYYY-MM`. */
  month: string;
  invoices: number;
  vendors: number;
  /** Sum of invoice amounts (credit memos reduce it), exact, as a string. */
  spend: string;
  topVendor: string | null;
  topVendorSpend: string | null;
}

/**
 * Vendor spend by month: invoice amounts by post month for the latest `months` months that
 * have invoices, with the month's largest vendor. Refunds to residents are not vendor spend
 * and are left out, as are invoices the source no longer lists.
 */
export async function vendorSpendByMonth(db: Db, months = 6): Promise<SpendRow[]> {
  const { rows } = await sql<{ month: string; invoices: number; vendors: number; spend: string; top_vendor: string | null; top_vendor_spend: string | null }>`
    with spend as (
      select post_month, vendor_id, max(vendor_name) as vendor_name, count(*)::int as invoices, sum(amount) as amount
        from invoices
       where deleted_at is null and post_month is not null and invoice_type_id is distinct from ${CUSTOMER_REFUND_TYPE}
       group by post_month, vendor_id
    ),
    ranked as (
      select *, row_number() over (partition by post_month order by amount desc nulls last, vendor_id) as rank from spend
    ),
    latest as (
      select distinct post_month from spend order by post_month desc limit ${months}
    )
    select to_char(r.post_month, 'YYYY-MM') as month,
           sum(r.invoices)::int as invoices,
           count(distinct r.vendor_id)::int as vendors,
           coalesce(sum(r.amount), 0)::numeric(14,2)::text as spend,
           max(r.vendor_name) filter (where r.rank = 1) as top_vendor,
           (max(r.amount) filter (where r.rank = 1))::numeric(14,2)::text as top_vendor_spend
      from ranked r join latest l on l.post_month = r.post_month
     group by r.post_month
     order by r.post_month desc`.execute(db);
  return rows.map((row) => ({ month: row.month, invoices: row.invoices, vendors: row.vendors, spend: row.spend, topVendor: row.top_vendor, topVendorSpend: row.top_vendor_spend }));
}

/**
 * The day the answers are as of: the source's today of the latest run that recorded one,
 * else the database's date in the configured time zone.
 */
export async function asOfDay(db: Db, timeZone: string): Promise<string> {
  const { rows } = await sql<{ day: string }>`
    select coalesce(
      (select source_today::text from sync_runs where source_today is not null order by run_id desc limit 1),
      ((now() at time zone ${timeZone})::date)::text) as day`.execute(db);
  return rows[0].day;
}
