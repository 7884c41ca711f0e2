import { sql } from 'kysely';
import type { Db } from '../catalog/tables.js';
import { storableJson } from '../warehouse/column-domains.js';

/** A record that failed validation, with where it came from. */
export interface QuarantineEntry {
  account: string;
  runId: number;
  workUnitId: number;
  stream: string;
  entity: string;
  recordKey: string | undefined;
  propertyId: number | undefined;
  windowFrom: string | undefined;
  windowTo: string | undefined;
  page: number;
  reason: string;
  raw: unknown;
}

/**
 * Keeps bad records, raw, in `quarantine` (one statement for the page's entries). A record that
 * `jsonb` cannot hold as is (NUL, lone surrogates) is kept sanitized in `raw` and whole in `raw_text`.
 */
export async function quarantineRecords(db: Db, entries: readonly QuarantineEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('quarantine')
    .values(
      entries.map((entry) => {
        const raw = storableJson(entry.raw ?? null);
        return {
          account_id: entry.account,
          run_id: entry.runId,
          work_unit_id: entry.workUnitId,
          stream: entry.stream,
          entity: entry.entity,
          record_key: entry.recordKey ?? null,
          property_id: entry.propertyId ?? null,
          window_from: entry.windowFrom ?? null,
          window_to: entry.windowTo ?? null,
          page: entry.page,
          reason: entry.reason,
          raw: JSON.stringify(raw.value),
          // JSON text escapes NUL and lone surrogates (\u0000, \ud800): text holds them all.
          raw_text: raw.changed ? JSON.stringify(entry.raw) : null,
        };
      }),
    )
    .execute();
}

/** Marks resolved the open quarantine entries of records that have now loaded (by key). */
export async function resolveQuarantined(
  db: Db,
  args: { account: string; stream: string; keys: readonly string[]; runId: number },
): Promise<number> {
  if (args.keys.length === 0) return 0;
  const result = await db
    .updateTable('quarantine')
    .set({ resolved_at: sql<Date>`now()`, resolved_run_id: args.runId })
    .where('account_id', '=', args.account)
    .where('stream', '=', args.stream)
    .where('resolved_at', 'is', null)
    .where('record_key', '=', sql<string>`any(${args.keys as string[]}::text[])`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Resolves the keyless entries (records without a usable id) left by earlier units of the same
 * family (the unit key before its `@day` suffix) once a unit of that family loads clean.
 */
export async function resolveKeylessForUnit(
  db: Db,
  args: { account: string; unitKey: string; runId: number },
): Promise<void> {
  await db
    .updateTable('quarantine as q')
    .from('sync_work_units as u')
    .set({ resolved_at: sql<Date>`now()`, resolved_run_id: args.runId })
    .where('q.account_id', '=', args.account)
    .whereRef('q.account_id', '=', 'u.account_id')
    .whereRef('q.work_unit_id', '=', 'u.work_unit_id')
    .where('q.record_key', 'is', null)
    .where('q.resolved_at', 'is', null)
    .where(sql<string>`split_part(u.unit_key, '@', 1)`, '=', sql<string>`split_part(${args.unitKey}, '@', 1)`)
    .execute();
}

/** Quarantine entries no later run has resolved yet, by account (every given account, 0 included). */
export async function countOpenQuarantine(db: Db, accounts: readonly string[]): Promise<Map<string, number>> {
  const open = new Map(accounts.map((account) => [account, 0]));
  if (accounts.length === 0) return open;
  const rows = await db
    .selectFrom('quarantine')
    .select(['account_id', (eb) => eb.fn.countAll<string>().as('open')])
    .where('resolved_at', 'is', null)
    .where('account_id', 'in', [...accounts])
    .groupBy('account_id')
    .execute();
  for (const row of rows) open.set(row.account_id, Number(row.open));
  return open;
}
