import type { Db } from '../../catalog/tables.js';
import type { PrivacyConfig } from '../../config/privacy.js';
import { PERSONAL_CLASSES } from '../../warehouse/schema.js';
import { policyInForce } from './in-force.js';
import { describePolicy, privacyPolicy, samePolicy, type PolicyRecord } from './policy.js';

/** What `status` says of an account's personal-data policy. */
export interface PrivacyStatus {
  /** The policy the account's rows were written under; null when it has no rows yet. */
  inForce: (PolicyRecord & { description: string }) | null;
  /** The policy of the configuration (its key id when the key is set). */
  configured: PolicyRecord & { description: string };
  /**
   * `in force`: the rows are under the configured policy; `differs`: a sync refuses until
   * `propsync privacy apply` has run; `applying`: an apply is under way or was cut short;
   * `no rows`: the next sync records the configured policy.
   */
  state: 'in force' | 'differs' | 'applying' | 'no rows';
  /** While applying: the policy the rows are being brought to, and the tables done. */
  applying: { target: string; tablesDone: string[] } | null;
}

/** The configured policy as a record; its key id only when the key is at hand (status runs without it). */
function configuredRecord(config: PrivacyConfig): PolicyRecord {
  const hashes = PERSONAL_CLASSES.some((name) => config.modes[name] === 'hash');
  if (!hashes || config.hashKey) return privacyPolicy(config).record;
  return { modes: { ...config.modes }, keyId: null };
}

/** The account's policy in force, beside the configured one, read from the warehouse alone. */
export async function readPrivacyStatus(
  db: Db,
  account: string,
  config: PrivacyConfig,
): Promise<PrivacyStatus> {
  const found = await policyInForce(db, account);
  const configured = configuredRecord(config);
  const inForce = found.policy && { ...found.policy, description: describePolicy(found.policy) };
  // Without the key at hand (status needs none), only the modes are compared.
  const comparable = inForce && configured.keyId === null ? { ...inForce, keyId: null } : inForce;
  const state = found.applying
    ? 'applying'
    : !comparable
      ? 'no rows'
      : samePolicy(comparable, configured)
        ? 'in force'
        : 'differs';
  return {
    inForce,
    configured: { ...configured, description: describePolicy(configured) },
    state,
    applying: found.applying && {
      target: describePolicy(found.applying.target),
      tablesDone: Object.entries(found.applying.progress)
        .filter(([, last]) => last === 'done')
        .map(([table]) => table)
        .sort(),
    },
  };
}
