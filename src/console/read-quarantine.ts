import { sql, type RawBuilder } from 'kysely';
import type { ConsoleContext } from './context.js';

/** The filters of the quarantine page. */
export interface QuarantineFilter {
  account?: string;
  stream?: string;
  field?: string;
}

/** Open entries of one account, stream and field. */
export interface QuarantineGroup {
  account: string;
  stream: string;
  field: string;
  open: number;
  newest: Date;
}

/** An open entry, without its raw record (which may hold residents' data and stays in the table). */
export interface QuarantineRow {
  account: string;
  quarantineId: number;
  stream: string;
  entity: string;
  field: string;
  recordKey: string | null;
  propertyId: string | null;
  window: string | null;
  page: number | null;
  reason: string;
  runId: number | null;
  createdAt: Date;
}

/**
 * The field a reason names (`field leaseId: ...`, as the streams' readers and the column checks
 * word it), or `(record)` for a reason about the whole record.
 */
const FIELD = sql<string>`coalesce(substring(reason from 'field ([A-Za-z0-9_.$-]+)'), '(record)')`;

function whereOf(context: ConsoleContext, filter: QuarantineFilter): RawBuilder<unknown> {
  const all = context.accounts.map((account) => account.id);
  const accounts = filter.account ? all.filter((id) => id === filter.account) : all;
  const parts = [sql`account_id = any(${accounts}::text[])`, sql`resolved_at is null`];
  if (filter.stream) parts.push(sql`stream = ${filter.stream}`);
  if (filter.field) parts.push(sql`${FIELD} = ${filter.field}`);
  return sql.join(parts, sql` and `);
}

/** Open entries counted by account, stream and field (the largest groups first, 200 at most). */
export async function readQuarantineGroups(
  context: ConsoleContext,
  filter: QuarantineFilter,
): Promise<QuarantineGroup[]> {
  const { rows } = await sql<{
    account_id: string;
    stream: string;
    field: string;
    open: string;
    newest: Date;
  }>`
    select account_id, stream, ${FIELD} as field, count(*)::text as open, max(created_at) as newest
      from quarantine where ${whereOf(context, filter)}
     group by 1, 2, 3 order by count(*) desc, 1, 2, 3 limit 200`.execute(context.db);
  return rows.map((row) => ({
    account: row.account_id,
    stream: row.stream,
    field: row.field,
    open: Number(row.open),
    newest: row.newest,
  }));
}

/** A page of open entries, newest first. */
export async function readQuarantine(
  context: ConsoleContext,
  filter: QuarantineFilter,
  page: number,
  pageSize: number,
): Promise<{ entries: QuarantineRow[]; more: boolean }> {
  const { rows } = await sql<{
    account_id: string;
    quarantine_id: number;
    stream: string;
    entity: string;
    field: string;
    record_key: string | null;
    property_id: string | null;
    window_from: string | null;
    window_to: string | null;
    page: number | null;
    reason: string;
    run_id: number | null;
    created_at: Date;
  }>`
    select account_id, quarantine_id, stream, entity, ${FIELD} as field, record_key, property_id::text,
           window_from::text, window_to::text, page, reason, run_id, created_at
      from quarantine where ${whereOf(context, filter)}
     order by quarantine_id desc limit ${pageSize + 1} offset ${page * pageSize}`.execute(context.db);
  return {
    more: rows.length > pageSize,
    entries: rows.slice(0, pageSize).map((row) => ({
      account: row.account_id,
      quarantineId: Number(row.quarantine_id),
      stream: row.stream,
      entity: row.entity,
      field: row.field,
      recordKey: row.record_key,
      propertyId: row.property_id,
      window: row.window_from || row.window_to ? `${row.window_from ?? '…'}..${row.window_to ?? '…'}` : null,
      page: row.page,
      reason: row.reason,
      runId: row.run_id === null ? null : Number(row.run_id),
      createdAt: row.created_at,
    })),
  };
}
