import { sql } from 'kysely';
import type { RecordedTable } from '../sync/verifications.js';
import type { ConsoleContext } from './context.js';

/** One pass of `propsync verify`, with the keys it found drifted. */
export interface VerifyRow {
  account: string;
  verificationId: number;
  runId: number | null;
  pass: string;
  selection: string;
  streams: string[];
  properties: number;
  startedAt: Date;
  finishedAt: Date | null;
  status: string;
  clean: boolean;
  driftRows: number;
  tables: RecordedTable[];
  error: string | null;
}

/** A page of verify passes, newest first (the index on (account_id, finished_at) bounds it). */
export async function readVerifications(
  context: ConsoleContext,
  account: string | undefined,
  page: number,
  pageSize: number,
): Promise<{ passes: VerifyRow[]; more: boolean }> {
  const all = context.accounts.map((known) => known.id);
  const accounts = account ? all.filter((id) => id === account) : all;
  const { rows } = await sql<{
    account_id: string;
    verification_id: number;
    run_id: number | null;
    pass: string;
    selection: string;
    streams: string[];
    properties: number;
    started_at: Date;
    finished_at: Date | null;
    status: string;
    clean: boolean;
    drift_rows: number;
    tables: RecordedTable[];
    error: string | null;
  }>`
    select account_id, verification_id, run_id, pass, selection, streams, cardinality(property_ids) as properties,
           started_at, finished_at, status, clean, drift_rows, tables, error
      from sync_verifications where account_id = any(${accounts}::text[])
     order by finished_at desc nulls first, verification_id desc
     limit ${pageSize + 1} offset ${page * pageSize}`.execute(context.db);
  return {
    more: rows.length > pageSize,
    passes: rows.slice(0, pageSize).map((row) => ({
      account: row.account_id,
      verificationId: Number(row.verification_id),
      runId: row.run_id === null ? null : Number(row.run_id),
      pass: row.pass,
      selection: row.selection,
      streams: row.streams,
      properties: row.properties,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      status: row.status,
      clean: row.clean,
      driftRows: row.drift_rows,
      tables: row.tables,
      error: row.error,
    })),
  };
}
