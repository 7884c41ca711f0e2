import { sql, type OperationNodeSource, type RawBuilder } from 'kysely';
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
 * The statement keeping bad records, raw, in `quarantine` (one for the page's entries), or none
 * for none. A record that `jsonb` cannot hold as is (NUL, lone surrogates) is kept sanitized in
 * `raw` and whole in `raw_text`. An entry whose key is among `loadedKeys` (the page also held a
 * good copy of the record, which loaded) is kept already resolved by the entry's run.
 */
export function quarantineInsert(
  db: Db,
  entries: readonly QuarantineEntry[],
  loadedKeys: ReadonlySet<string>,
): OperationNodeSource | undefined {
  if (entries.length === 0) return undefined;
  return db.insertInto('quarantine').values(
    entries.map((entry) => {
      const raw = storableJson(entry.raw ?? null);
      const resolved = entry.recordKey !== undefined && loadedKeys.has(entry.recordKey);
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
        ...(resolved && { resolved_at: sql<Date>`now()`, resolved_run_id: entry.runId }),
      };
    }),
  );
}

/**
 * The statement marking resolved the open quarantine entries of records that have now loaded
 * (by key), or none for no key. It does not see entries written in the same statement: those of
 * loaded keys are written resolved (`quarantineInsert`).
 */
export function resolveQuarantined(
  db: Db,
  args: { account: string; stream: string; keys: readonly string[]; runId: number },
): OperationNodeSource | undefined {
  if (args.keys.length === 0) return undefined;
  return db
    .updateTable('quarantine')
    .set({ resolved_at: sql<Date>`now()`, resolved_run_id: args.runId })
    .where('account_id', '=', args.account)
    .where('stream', '=', args.stream)
    .where('resolved_at', 'is', null)
    .where('record_key', '=', sql<string>`any(${args.keys as string[]}::text[])`);
}

/**
 * The statement resolving the keyless entries (records without a usable id) left by earlier units
 * of the same family (the unit key before its `@day` suffix) once a unit of that family loads
 * clean; `when`, a condition it runs under (the unit's checkpoint saying it is clean).
 */
export function resolveKeylessForUnit(
  db: Db,
  args: { account: string; unitKey: string; runId: number },
  when: RawBuilder<boolean>,
): OperationNodeSource {
  return db
    .updateTable('quarantine as q')
    .from('sync_work_units as u')
    .set({ resolved_at: sql<Date>`now()`, resolved_run_id: args.runId })
    .where('q.account_id', '=', args.account)
    .whereRef('q.account_id', '=', 'u.account_id')
    .whereRef('q.work_unit_id', '=', 'u.work_unit_id')
    .where('q.record_key', 'is', null)
    .where('q.resolved_at', 'is', null)
    .where(sql<string>`split_part(u.unit_key, '@', 1)`, '=', sql<string>`split_part(${args.unitKey}, '@', 1)`)
    .where(when);
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
