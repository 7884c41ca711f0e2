import { z } from 'zod';
import { PERSONAL_CLASSES, type PersonalClass } from '../warehouse/schema.js';
import type { Env } from './fields.js';
import type { IssuePath, Issues } from './issues.js';

/** What is done with residents' personal data before anything is written. */
export const PRIVACY_MODES = ['keep', 'hash', 'drop'] as const;
export type PrivacyMode = (typeof PRIVACY_MODES)[number];

/** The shortest HMAC key accepted, in bytes: a key shorter than SHA-256's 32 bytes weakens the hashes. */
export const MIN_HASH_KEY_BYTES = 32;

const mode = z.enum(PRIVACY_MODES, { message: `expected one of ${PRIVACY_MODES.join(', ')}` });

/**
 * `privacy:` as written: a mode for every personal class (`personal`), overrides per class
 * (`classes`), and the variable holding the HMAC key when any class is hashed (`hashKeyEnv`).
 */
export const privacySchema = z
  .object({
    /** Environment variable holding the HMAC-SHA256 key of `hash` (never written in the file). */
    hashKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
        message:
          'is not an environment variable name; expected letters, digits and _ such as PROPSYNC_PRIVACY_KEY',
      })
      .optional(),
    /** keep (the default: stored as the source sends it), hash or drop, for every personal class. */
    personal: mode.default('keep'),
    /** A mode per class (name, email, phone, address, birth_date, free_text) instead of `personal`. */
    classes: z.partialRecord(z.enum(PERSONAL_CLASSES), mode).default({}),
  })
  .strict()
  .prefault({});

/** The policy as configured, its key read from the environment. */
export interface PrivacyConfig {
  /** The mode of every personal class, as written. */
  personal: PrivacyMode;
  /** Modes per class, as written. */
  classes: Partial<Record<PersonalClass, PrivacyMode>>;
  /** The mode of each personal class (derived from the two above). */
  modes: Readonly<Record<PersonalClass, PrivacyMode>>;
  /** The name of the key's variable, when given. */
  hashKeyEnv?: string;
  /** The HMAC key (a secret: never logged, stored or shown), when some class is hashed. */
  hashKey?: string;
}

/** The policy of a configuration that says nothing of privacy: everything kept. */
export const KEEP_EVERYTHING: PrivacyConfig = {
  personal: 'keep',
  classes: {},
  modes: Object.fromEntries(PERSONAL_CLASSES.map((name) => [name, 'keep'])) as Record<
    PersonalClass,
    PrivacyMode
  >,
};

/** The policy an account's rows are written under: its own `accounts[].privacy`, else the configuration's. */
export function privacyOf(
  config: { privacy?: PrivacyConfig },
  account: { privacy?: PrivacyConfig },
): PrivacyConfig {
  return account.privacy ?? config.privacy ?? KEEP_EVERYTHING;
}

/**
 * What is wrong with the hash key of a policy that hashes some class (missing, unset, or shorter
 * than `MIN_HASH_KEY_BYTES`), in the words of its `hashKeyEnv`; undefined when nothing is hashed or
 * the key is fine. `whose` names the account the classes are hashed for. Never quotes the key.
 */
export function hashKeyProblem(
  policy: PrivacyConfig,
  whose = '',
): { message: string; hideValue?: true } | undefined {
  const hashed = PERSONAL_CLASSES.filter((name) => policy.modes[name] === 'hash');
  if (hashed.length === 0) return undefined;
  const classes = `${whose}${hashed.join(', ')}`;
  const variable = policy.hashKeyEnv;
  if (variable === undefined)
    return {
      message:
        `is missing; ${classes} ${hashed.length > 1 ? 'are' : 'is'} hashed: set it to the name of ` +
        `an environment variable holding a key of at least ${MIN_HASH_KEY_BYTES} bytes (e.g. ` +
        `PROPSYNC_PRIVACY_KEY, from \`openssl rand -base64 48\`)`,
    };
  if (policy.hashKey === undefined)
    return {
      message:
        `names a variable that is not set (or is empty); expected ${variable} to hold the key that ` +
        `hashes ${classes} (at least ${MIN_HASH_KEY_BYTES} bytes; \`openssl rand -base64 48\` makes one)`,
    };
  if (Buffer.byteLength(policy.hashKey) < MIN_HASH_KEY_BYTES)
    return {
      message:
        `names a variable whose key is shorter than ${MIN_HASH_KEY_BYTES} bytes; ` +
        `expected ${variable} to hold a longer one (\`openssl rand -base64 48\` makes one)`,
      hideValue: true,
    };
  return undefined;
}

/**
 * The policy of `privacy:`, its key read from `env`. A class hashed without a key of at least
 * `MIN_HASH_KEY_BYTES` bytes is a problem of the configuration (unless `offline`: commands
 * that write nothing do not need it), told at `keyAt`: where the key's variable is written
 * (`accounts[i].privacy` or the top level), and for which account.
 */
export function resolvePrivacy(
  privacy: z.output<typeof privacySchema>,
  env: Env,
  issues: Issues,
  offline: boolean,
  keyAt: { path: IssuePath; account?: number } = { path: ['privacy'] },
): PrivacyConfig {
  const modes = Object.fromEntries(
    PERSONAL_CLASSES.map((name) => [name, privacy.classes[name] ?? privacy.personal]),
  ) as Record<PersonalClass, PrivacyMode>;
  const hashes = PERSONAL_CLASSES.some((name) => modes[name] === 'hash');
  const variable = privacy.hashKeyEnv;
  const hashKey = variable !== undefined ? env[variable] || undefined : undefined;
  const resolved: PrivacyConfig = {
    personal: privacy.personal,
    classes: privacy.classes,
    modes,
    ...(variable !== undefined && { hashKeyEnv: variable }),
    ...(hashKey !== undefined && hashes && { hashKey }),
  };
  const problem = offline
    ? undefined
    : hashKeyProblem(resolved, keyAt.account === undefined ? '' : `accounts[${keyAt.account}]'s `);
  if (problem)
    issues.add([...keyAt.path, 'hashKeyEnv'], problem.message, {
      account: keyAt.account,
      ...(problem.hideValue && { hideValue: true }),
    });
  return resolved;
}
