import { sql } from 'kysely';
import { SOURCE_TABLES, type Db } from '../../catalog/tables.js';
import { PERSONAL_CLASSES } from '../../warehouse/schema.js';
import { describePolicy, samePolicy, type PolicyRecord, type PrivacyPolicy } from './policy.js';

/** The policy of rows written before any was recorded: as the source sent them. */
export const KEPT: PolicyRecord = {
  modes: Object.fromEntries(PERSONAL_CLASSES.map((name) => [name, 'keep'])) as PolicyRecord['modes'],
  keyId: null,
};

/** What `propsync privacy apply` is doing to an account's rows: the policy it brings them to, and how far it got. */
export interface Applying {
  target: PolicyRecord;
  /** The last key done, as text, per table (absent: not started; `done`: finished). */
  progress: Record<string, string>;
}

/** What the warehouse records of an account's policy. */
export interface PolicyInForce {
  /** The policy the rows were written under; null for an account with no rows yet. */
  policy: PolicyRecord | null;
  /** A `propsync privacy apply` under way or cut short. */
  applying: Applying | null;
}

/** Refusal to write under a policy other than the one an account's rows were written under. */
export class PrivacyPolicyChangedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrivacyPolicyChangedError';
  }
}

/** The policy an account's rows were written under (keep for rows written before one was recorded). */
export async function policyInForce(db: Db, account: string): Promise<PolicyInForce> {
  const row = await db
    .selectFrom('privacy_policies')
    .select(['modes', 'key_id', 'applying'])
    .where('account_id', '=', account)
    .executeTakeFirst();
  if (row)
    return {
      policy: { modes: row.modes as PolicyRecord['modes'], keyId: row.key_id },
      applying: (row.applying as Applying | null) ?? null,
    };
  return { policy: (await hasRows(db, account)) ? KEPT : null, applying: null };
}

/** Whether any source table or the quarantine holds a row of the account. */
async function hasRows(db: Db, account: string): Promise<boolean> {
  const tables = [...SOURCE_TABLES.map((table) => table.name), 'quarantine'];
  const { rows } = await sql<{ found: boolean }>`select ${sql.join(
    tables.map((name) => sql`exists (select 1 from ${sql.table(name)} where account_id = ${account})`),
    sql` or `,
  )} as found`.execute(db);
  return rows[0]?.found === true;
}

/** Records the policy an account's rows are now written under (ending any `privacy apply`). */
export async function recordPolicy(db: Db, account: string, policy: PolicyRecord): Promise<void> {
  await db
    .insertInto('privacy_policies')
    .values({
      account_id: account,
      modes: JSON.stringify(policy.modes),
      key_id: policy.keyId,
      applying: null,
    })
    .onConflict((conflict) =>
      conflict.column('account_id').doUpdateSet({
        modes: JSON.stringify(policy.modes),
        key_id: policy.keyId,
        recorded_at: sql`now()`,
        applying: null,
      }),
    )
    .execute();
}

/**
 * Checks, before a run writes, that the configured policy is the one the account's rows were
 * written under, recording it for an account with no rows yet. Throws, saying what to run,
 * when it differs or a `propsync privacy apply` was cut short.
 */
export async function checkPolicyInForce(db: Db, account: string, policy: PrivacyPolicy): Promise<void> {
  const inForce = await policyInForce(db, account);
  if (inForce.applying)
    throw new PrivacyPolicyChangedError(
      `the rows of account ${account} are being brought to another privacy policy (propsync ` +
        `privacy apply was cut short or is running); run \`propsync privacy apply\` to finish, ` +
        `then sync again; nothing was written`,
    );
  if (inForce.policy === null) {
    await recordPolicy(db, account, policy.record);
    return;
  }
  if (!samePolicy(inForce.policy, policy.record)) {
    const key =
      inForce.policy.keyId !== null &&
      policy.record.keyId !== null &&
      inForce.policy.keyId !== policy.record.keyId
        ? ' (and the hash key differs from the one they were hashed with)'
        : '';
    throw new PrivacyPolicyChangedError(
      `the rows of account ${account} were written under privacy policy ` +
        `"${describePolicy(inForce.policy)}", the configuration says ` +
        `"${describePolicy(policy.record)}"${key}: run \`propsync privacy apply\` to rewrite them ` +
        `under the new policy first; nothing was written`,
    );
  }
}
