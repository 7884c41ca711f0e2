import { sql, type Kysely } from 'kysely';

/** A record that failed validation, with where it came from. */
export interface QuarantineEntry {
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

/** Keeps bad records, raw, in `quarantine` (one statement for the page's entries). */
export async function quarantineRecords(db: Kysely<any>, entries: readonly QuarantineEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('quarantine')
    .values(
      entries.map((entry) => ({
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
        raw: JSON.stringify(entry.raw ?? null),
      })),
    )
    .execute();
}

/** Marks resolved the open quarantine entries of records that have now loaded (by key). */
export async function resolveQuarantined(db: Kysely<any>, args: { stream: string; keys: readonly string[]; runId: number }): Promise<number> {
  if (args.keys.length === 0) return 0;
  const result = await sql`
    update quarantine set resolved_at = now(), resolved_run_id = ${args.runId}
    where stream = ${args.stream} and resolved_at is null and record_key = any(${args.keys as string[]}::text[])
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Resolves the keyless entries (records without a usable id) left by earlier units of the same
 * family (the unit key before its `@day` suffix) once a unit of that family loads clean.
 */
export async function resolveKeylessForUnit(db: Kysely<any>, args: { unitKey: string; runId: number }): Promise<void> {
  await sql`
    update quarantine q set resolved_at = now(), resolved_run_id = ${args.runId}
    from sync_work_units u
    where q.work_unit_id = u.work_unit_id and q.record_key is null and q.resolved_at is null
      and split_part(u.unit_key, '@', 1) = split_part(${args.unitKey}, '@', 1)
  `.execute(db);
}
