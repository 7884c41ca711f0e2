import { sql, type Kysely } from 'kysely';

/**
 * A unique index on every materialized view of `reporting`, so that the refresh after a sync
 * can run CONCURRENTLY: a BI reader's open transaction then blocks neither the refresh nor the
 * other readers. Each index is the view's grain, its GROUP BY (the property name follows from
 * the property id). The AR code, the vendor and an invoice line's property may be null, and
 * GROUP BY makes one row of each null: NULLS NOT DISTINCT (PostgreSQL 15) says so. The two plain
 * indexes replaced were prefixes of these.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ version: number; name: string }>`
    select current_setting('server_version_num')::int as version, current_setting('server_version') as name`.execute(
    db,
  );
  if (rows[0].version < 150000) {
    throw new Error(
      `propsync needs PostgreSQL 15 or later (this server runs ${rows[0].name}); upgrade the warehouse's server, then run \`propsync migrate\` again`,
    );
  }
  await sql`
    create unique index ar_activity_monthly_grain_idx
        on reporting.ar_activity_monthly (post_month, property_id, ar_code_id) nulls not distinct`.execute(
    db,
  );
  await sql`drop index reporting.ar_activity_monthly_month_idx`.execute(db);
  await sql`
    create unique index vendor_spend_monthly_grain_idx
        on reporting.vendor_spend_monthly (post_month, vendor_id, property_id) nulls not distinct`.execute(
    db,
  );
  await sql`drop index reporting.vendor_spend_monthly_month_idx`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index vendor_spend_monthly_month_idx on reporting.vendor_spend_monthly (post_month, vendor_id)`.execute(
    db,
  );
  await sql`drop index reporting.vendor_spend_monthly_grain_idx`.execute(db);
  await sql`create index ar_activity_monthly_month_idx on reporting.ar_activity_monthly (post_month, property_id)`.execute(
    db,
  );
  await sql`drop index reporting.ar_activity_monthly_grain_idx`.execute(db);
}
