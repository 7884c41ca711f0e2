import { sql } from 'kysely';
import type { Db } from '../../catalog/tables.js';
import type { PrivacyMode } from '../../config/privacy.js';
import { pathKeys, type PersonalDeclaration } from '../../streams/personal.js';
import { STREAM_MANIFESTS } from '../../streams/registry.js';
import {
  ACCOUNT_COLUMN,
  PERSONAL_CLASSES,
  digestColumnsOf,
  type PersonalClass,
  type SourceTable,
} from '../../warehouse/schema.js';
import { policyInForce, recordPolicy, type Applying } from './in-force.js';
import {
  describePolicy,
  protectRecord,
  samePolicy,
  type PolicyRecord,
  type PrivacyPolicy,
} from './policy.js';

/** Rows read and rewritten per statement (each batch its own transaction, with the progress). */
const BATCH_ROWS = 500;

/** What `propsync privacy apply` did to one account. */
export interface ApplyOutcome {
  account: string;
  from: PolicyRecord | null;
  to: PolicyRecord;
  /** Rows changed per table, in the order processed. */
  tables: { table: string; changed: number }[];
}

/** A change of policy the rows cannot follow without the source (a hash cannot be undone). */
export class PrivacyChangeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrivacyChangeError';
  }
}

/**
 * What each class must still undergo to go from `from` to `to`: nothing (`keep`) when it is
 * already there, `hash` or `drop` from kept values, `drop` from hashed ones. Anything else needs
 * the source's values again.
 */
export function changeOfModes(from: PolicyRecord, to: PolicyRecord): Record<PersonalClass, PrivacyMode> {
  const impossible: string[] = [];
  const change = Object.fromEntries(
    PERSONAL_CLASSES.map((name) => {
      const [was, will] = [from.modes[name], to.modes[name]];
      if (was === will && (will !== 'hash' || from.keyId === to.keyId)) return [name, 'keep'];
      if (was === 'keep' || (was === 'hash' && will === 'drop')) return [name, will];
      impossible.push(was === will ? `${name} (hashed under another key)` : `${name} (${was} → ${will})`);
      return [name, 'keep'];
    }),
  ) as Record<PersonalClass, PrivacyMode>;
  if (impossible.length)
    throw new PrivacyChangeError(
      `the rows hold ${impossible.join(', ')} in a form the new policy cannot be computed from: ` +
        `the source's values are needed again. Go back to the policy in force ` +
        `("${describePolicy(from)}"), or load the account again into an empty warehouse under ` +
        `the new one`,
    );
  return change;
}

/**
 * Rewrites an account's rows to the configured policy without calling the source: each row's
 * `raw` and personal columns, table by table in batches of keys, each batch committed with how
 * far it got, so that a run cut short resumes where it stopped. Parent rows lose their digests
 * (the next sync takes them again from the records it reads, writing nothing else). Quarantined
 * records are rewritten too. Ends by recording the policy in force.
 */
export async function applyPrivacy(
  db: Db,
  account: string,
  policy: PrivacyPolicy,
  options: { batchRows?: number } = {},
): Promise<ApplyOutcome> {
  const inForce = await policyInForce(db, account);
  const to = policy.record;
  const outcome: ApplyOutcome = { account, from: inForce.policy, to, tables: [] };
  if (inForce.policy === null || (!inForce.applying && samePolicy(inForce.policy, to))) {
    await recordPolicy(db, account, to);
    return outcome;
  }
  if (inForce.applying && !samePolicy(inForce.applying.target, to))
    throw new PrivacyChangeError(
      `an earlier propsync privacy apply toward "${describePolicy(inForce.applying.target)}" was ` +
        `cut short; configure that policy again and finish it first`,
    );
  const change: PrivacyPolicy = {
    record: { modes: changeOfModes(inForce.policy, to), keyId: to.keyId },
    keepsAll: false,
    hash: policy.hash,
  };
  const applying: Applying = inForce.applying ?? { target: to, progress: {} };
  await saveProgress(db, account, inForce.policy, applying);
  const batchRows = options.batchRows ?? BATCH_ROWS;
  for (const manifest of STREAM_MANIFESTS) {
    const [parent] = manifest.tables;
    for (const table of manifest.tables) {
      const changed = await rewriteTable(
        db,
        account,
        { table, parent, declaration: manifest.personal },
        change,
        {
          applying,
          from: inForce.policy,
          batchRows,
        },
      );
      outcome.tables.push({ table: table.name, changed });
    }
  }
  outcome.tables.push({
    table: 'quarantine',
    changed: await rewriteQuarantine(db, account, change, { applying, from: inForce.policy, batchRows }),
  });
  await recordPolicy(db, account, to);
  return outcome;
}

async function saveProgress(db: Db, account: string, from: PolicyRecord, applying: Applying): Promise<void> {
  await db
    .insertInto('privacy_policies')
    .values({
      account_id: account,
      modes: JSON.stringify(from.modes),
      key_id: from.keyId,
      applying: JSON.stringify(applying),
    })
    .onConflict((conflict) =>
      conflict.column('account_id').doUpdateSet({ applying: JSON.stringify(applying) }),
    )
    .execute();
}

interface Progress {
  applying: Applying;
  from: PolicyRecord;
  batchRows: number;
}

interface TableOfStream {
  table: SourceTable;
  parent: SourceTable;
  declaration: PersonalDeclaration;
}

/**
 * A child row's raw placed where it sits in its record, beside the parent's fields the
 * declaration's conditions read.
 */
function asRecord(raw: unknown, prefix: string | undefined, conditions: Record<string, unknown>): unknown {
  if (prefix === undefined) return raw;
  let nested: unknown = raw;
  for (const key of pathKeys(prefix).reverse()) nested = { [key]: nested };
  return { ...conditions, ...(nested as object) };
}

/**
 * Rewrites one table's rows of the account, batch by batch from where an earlier apply stopped;
 * returns the rows changed.
 */
async function rewriteTable(
  db: Db,
  account: string,
  { table, parent, declaration }: TableOfStream,
  change: PrivacyPolicy,
  { applying, from, batchRows }: Progress,
): Promise<number> {
  const isParent = table === parent;
  const prefix = isParent ? undefined : declaration.childRaw?.[table.name];
  // A child table none of whose fields the declaration places holds no personal data.
  if (!isParent && prefix === undefined) return 0;
  if (applying.progress[table.name] === 'done') return 0;
  const personal = Object.entries(table.columns).filter(([, column]) => column.personal);
  const conditionFields = (declaration.when ?? []).map((part) => part.field);
  const key = table.key;
  let last: number[] | null = applying.progress[table.name]
    ? (JSON.parse(applying.progress[table.name]) as number[])
    : null;
  let changed = 0;
  for (;;) {
    const after = last
      ? sql`and (${sql.join(key.map((k) => sql.ref(`t.${k}`)))}) > (${sql.join(last)})`
      : sql``;
    const conditions = isParent
      ? sql``
      : sql`, ${sql.join(
          conditionFields.length
            ? conditionFields.map((field, index) => sql`p.raw ->> ${field} as ${sql.ref(`when_${index}`)}`)
            : [sql`null as when_none`],
        )}`;
    const join = isParent
      ? sql``
      : sql`join ${sql.table(parent.name)} p on p.${sql.ref(ACCOUNT_COLUMN)} = t.${sql.ref(ACCOUNT_COLUMN)}
                and p.${sql.ref(parent.key[0])} = t.${sql.ref(table.parentColumn!)}`;
    const personalColumns = personal.length
      ? sql`, ${sql.join(personal.map(([name]) => sql.ref(`t.${name}`)))}`
      : sql``;
    const { rows } = await sql<Record<string, unknown>>`
      select ${sql.join(key.map((k) => sql.ref(`t.${k}`)))}, t.raw${personalColumns} ${conditions}
        from ${sql.table(table.name)} t ${join}
       where t.${sql.ref(ACCOUNT_COLUMN)} = ${account} ${after}
       order by ${sql.join(key.map((k) => sql.ref(`t.${k}`)))}
       limit ${batchRows}`.execute(db);
    if (rows.length === 0) break;
    const updates: Record<string, unknown>[] = [];
    for (const row of rows) {
      const touched = new Set<PersonalClass>();
      const whenValues = Object.fromEntries(
        conditionFields.map((field, index) => [field, row[`when_${index}`]]),
      );
      protectRecord(change, declaration, asRecord(row.raw, prefix, whenValues), touched);
      if (touched.size === 0) continue;
      const update: Record<string, unknown> = Object.fromEntries(key.map((k) => [k, row[k]]));
      update.raw = row.raw;
      for (const [name, column] of personal) {
        const mode = touched.has(column.personal!) ? change.record.modes[column.personal!] : 'keep';
        const value = row[name];
        update[name] =
          mode === 'drop' || value === null ? null : mode === 'hash' ? change.hash(String(value)) : value;
      }
      updates.push(update);
    }
    last = key.map((k) => Number(rows[rows.length - 1][k]));
    await db.transaction().execute(async (trx) => {
      if (updates.length)
        await writeUpdates(
          trx,
          account,
          table,
          personal.map(([name]) => name),
          updates,
        );
      applying.progress[table.name] = JSON.stringify(last);
      await saveProgress(trx, account, from, applying);
    });
    changed += updates.length;
  }
  applying.progress[table.name] = 'done';
  await saveProgress(db, account, from, applying);
  return changed;
}

/** Writes rewritten rows by key in one statement; their digests are cleared (the next sync takes them again). */
async function writeUpdates(
  db: Db,
  account: string,
  table: SourceTable,
  personal: readonly string[],
  updates: readonly Record<string, unknown>[],
): Promise<void> {
  const definitions = [
    ...table.key.map((k) => `${JSON.stringify(k)} bigint`),
    '"raw" jsonb',
    ...personal.map((name) => `${JSON.stringify(name)} text`),
  ].join(', ');
  const assignments = [
    sql`raw = v.raw`,
    ...personal.map((name) => sql`${sql.ref(name)} = v.${sql.ref(name)}`),
    ...digestColumnsOf(table).map((column) => sql`${sql.ref(column)} = null`),
  ];
  await sql`
    update ${sql.table(table.name)} t set ${sql.join(assignments)}
      from json_to_recordset(${JSON.stringify(updates)}::json) as v(${sql.raw(definitions)})
     where t.${sql.ref(ACCOUNT_COLUMN)} = ${account}
       and ${sql.join(
         table.key.map((k) => sql`t.${sql.ref(k)} = v.${sql.ref(k)}`),
         sql` and `,
       )}`.execute(db);
}

/** Rewrites the account's quarantined records (`raw`, and `raw_text` when set); returns the entries changed. */
async function rewriteQuarantine(
  db: Db,
  account: string,
  change: PrivacyPolicy,
  { applying, from, batchRows }: Progress,
): Promise<number> {
  const declarations = new Map(
    STREAM_MANIFESTS.map((manifest) => [manifest.name as string, manifest.personal]),
  );
  let last = applying.progress.quarantine === 'done' ? Infinity : Number(applying.progress.quarantine ?? 0);
  let changed = 0;
  while (Number.isFinite(last)) {
    const rows = await db
      .selectFrom('quarantine')
      .select(['quarantine_id', 'stream', 'raw', 'raw_text'])
      .where('account_id', '=', account)
      .where('quarantine_id', '>', last)
      .orderBy('quarantine_id')
      .limit(batchRows)
      .execute();
    if (rows.length === 0) break;
    await db.transaction().execute(async (trx) => {
      for (const row of rows) {
        const declaration = declarations.get(row.stream);
        if (!declaration) continue;
        const touched = new Set<PersonalClass>();
        const raw = protectRecord(change, declaration, row.raw, touched);
        const text =
          row.raw_text === null
            ? null
            : JSON.stringify(
                protectRecord(change, declaration, JSON.parse(row.raw_text) as unknown, touched),
              );
        if (touched.size === 0) continue;
        await trx
          .updateTable('quarantine')
          .set({ raw: JSON.stringify(raw), raw_text: text })
          .where('quarantine_id', '=', row.quarantine_id)
          .execute();
        changed += 1;
      }
      last = Number(rows[rows.length - 1].quarantine_id);
      applying.progress.quarantine = String(last);
      await saveProgress(trx, account, from, applying);
    });
  }
  applying.progress.quarantine = 'done';
  await saveProgress(db, account, from, applying);
  return changed;
}
