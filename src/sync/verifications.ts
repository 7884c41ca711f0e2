import { sql } from 'kysely';
import type { Db } from '../catalog/tables.js';

/** Keys of each kind kept in the bookkeeping per table (the command prints and returns them all). */
export const KEPT_KEYS = 20;

/** One table of a verification as recorded: counts, and the first keys of each kind. */
export interface RecordedTable {
  stream: string;
  table: string;
  checked: number;
  missing: number;
  extra: number;
  differing: number;
  missingKeys: string[];
  extraKeys: string[];
  differingKeys: { key: string; columns: string[] }[];
}

/** A verification as `sync_verifications` holds it. */
export interface VerificationRecord {
  verificationId: number;
  runId: number | null;
  pass: 'check' | 'recheck';
  selection: string;
  streams: string[];
  propertyIds: string[];
  startedAt: string;
  finishedAt: string | null;
  status: string;
  clean: boolean;
  driftRows: number;
  tables: RecordedTable[];
  error: string | null;
}

/** Records a finished verification of an account; returns its id. */
export async function recordVerification(
  db: Db,
  account: string,
  record: Omit<VerificationRecord, 'verificationId' | 'finishedAt'> & { startedAt: string },
): Promise<number> {
  const row = await db
    .insertInto('sync_verifications')
    .values({
      account_id: account,
      run_id: record.runId,
      pass: record.pass,
      selection: record.selection,
      streams: record.streams,
      property_ids: record.propertyIds.map(Number),
      started_at: record.startedAt,
      finished_at: new Date(),
      status: record.status,
      clean: record.clean,
      drift_rows: record.driftRows,
      tables: JSON.stringify(record.tables),
      error: record.error,
    })
    .returning('verification_id')
    .executeTakeFirstOrThrow();
  return row.verification_id;
}

/** The latest verification of an account, or null when it was never verified. */
export async function lastVerification(db: Db, account: string): Promise<VerificationRecord | null> {
  const row = await db
    .selectFrom('sync_verifications')
    .selectAll()
    .where('account_id', '=', account)
    .orderBy('verification_id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  return {
    verificationId: row.verification_id,
    runId: row.run_id,
    pass: row.pass as VerificationRecord['pass'],
    selection: row.selection,
    streams: row.streams,
    propertyIds: row.property_ids.map(String),
    startedAt: row.started_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
    status: row.status,
    clean: row.clean,
    driftRows: row.drift_rows,
    tables: row.tables as RecordedTable[],
    error: row.error,
  };
}

/**
 * The candidates ordered least recently verified first (never verified first of all, then by
 * the end of their latest verification, then by id): where a sample starts.
 */
export async function leastRecentlyVerified(
  db: Db,
  account: string,
  candidates: readonly string[],
): Promise<string[]> {
  const { rows } = await sql<{ property_id: string }>`
    select c.property_id::text from unnest(${candidates.map(Number)}::bigint[]) as c(property_id)
    left join (
      select p.property_id, max(v.finished_at) as verified_at
      from sync_verifications v, unnest(v.property_ids) as p(property_id)
      where v.account_id = ${account}
      group by p.property_id
    ) last on last.property_id = c.property_id
    order by last.verified_at nulls first, c.property_id`.execute(db);
  return rows.map((row) => row.property_id);
}

/** How many properties a sample of `percent` takes of `count`: at least one (when there is one). */
export function sampleSize(count: number, percent: number): number {
  return Math.min(count, Math.max(1, Math.ceil((count * percent) / 100)));
}

/**
 * The drifted rows of each account's latest verification, by stream, table and kind (zero rows included),
 * for the metrics.
 */
export async function latestDrift(
  db: Db,
  accounts: readonly string[],
): Promise<
  { account: string; stream: string; table: string; kind: 'missing' | 'extra' | 'differing'; rows: number }[]
> {
  const out = [];
  for (const account of accounts) {
    const last = await lastVerification(db, account);
    for (const table of last?.tables ?? []) {
      for (const kind of ['missing', 'extra', 'differing'] as const)
        out.push({ account, stream: table.stream, table: table.table, kind, rows: table[kind] });
    }
  }
  return out;
}
