import { createHmac } from 'node:crypto';
import type { PrivacyConfig, PrivacyMode } from '../../config/privacy.js';
import { personalFieldsOf, pathKeys, type PersonalDeclaration } from '../../streams/personal.js';
import { PERSONAL_CLASSES, type PersonalClass } from '../../warehouse/schema.js';

/** A policy as the warehouse records it: the mode of each class, and which key hashed (never the key). */
export interface PolicyRecord {
  modes: Record<PersonalClass, PrivacyMode>;
  /**
   * An HMAC of a fixed text under the hash key: tells keys apart without revealing them; null when
   * nothing is hashed.
   */
  keyId: string | null;
}

/** The personal-data policy in force for a process: applied to every record before it is written. */
export interface PrivacyPolicy {
  readonly record: PolicyRecord;
  /** Nothing is hashed or dropped (the default): records pass untouched. */
  readonly keepsAll: boolean;
  /** The HMAC-SHA256 of a value under the key, as hex; the same value gives the same hash everywhere. */
  hash(value: string): string;
}

/** The text whose HMAC identifies a key (`PolicyRecord.keyId`). */
const KEY_ID_TEXT = 'propsync privacy key';

/** The policy of a configuration's `privacy:` (its key already checked at start-up). */
export function privacyPolicy(config: PrivacyConfig): PrivacyPolicy {
  const modes = { ...config.modes };
  const hashes = PERSONAL_CLASSES.some((name) => modes[name] === 'hash');
  const key = config.hashKey;
  if (hashes && !key) throw new Error('privacy: a class is hashed but privacy.hashKeyEnv holds no key');
  return {
    record: { modes, keyId: hashes ? hmac(key!, KEY_ID_TEXT).slice(0, 16) : null },
    keepsAll: PERSONAL_CLASSES.every((name) => modes[name] === 'keep'),
    hash: (value) => hmac(key!, value),
  };
}

function hmac(key: string, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}

/** Whether two recorded policies are the same (the same modes, and the same key where one hashes). */
export function samePolicy(a: PolicyRecord, b: PolicyRecord): boolean {
  return PERSONAL_CLASSES.every((name) => a.modes[name] === b.modes[name]) && a.keyId === b.keyId;
}

/** A policy as one line: `name hash, email hash, phone drop, ...` (`keep` when everything is kept). */
export function describePolicy(record: PolicyRecord): string {
  const changed = PERSONAL_CLASSES.filter((name) => record.modes[name] !== 'keep');
  if (changed.length === 0) return 'keep (personal data stored as the source sends it)';
  return PERSONAL_CLASSES.map((name) => `${name} ${record.modes[name]}`).join(', ');
}

/**
 * Applies the policy to a source record in place, before it is digested, normalized, written
 * or quarantined: each personal field of the stream's declaration is kept, replaced by its
 * hash (each value of a list or of an object under it, null and empty text kept), or removed.
 * Returns the record; `touched` gathers the classes of the fields it hashed or removed.
 */
export function protectRecord<R>(
  policy: PrivacyPolicy,
  declaration: PersonalDeclaration,
  record: R,
  touched?: Set<PersonalClass>,
): R {
  if (policy.keepsAll || record === null || typeof record !== 'object') return record;
  for (const [path, kind] of Object.entries(personalFieldsOf(declaration, record))) {
    const mode = policy.record.modes[kind];
    if (mode === 'keep') continue;
    const keys = pathKeys(path);
    visit(record, keys, 0, (holder, key) => {
      touched?.add(kind);
      if (mode === 'drop') delete holder[key];
      else holder[key] = hashed(policy, holder[key]);
    });
  }
  return record;
}

/** Calls `change` with the object holding the field at `keys`, for every such object along lists. */
function visit(
  node: unknown,
  keys: readonly string[],
  index: number,
  change: (holder: Record<string, unknown>, key: string) => void,
): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, keys, index, change);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const holder = node as Record<string, unknown>;
  const key = keys[index];
  if (!Object.hasOwn(holder, key)) return;
  if (index === keys.length - 1) change(holder, key);
  else visit(holder[key], keys, index + 1, change);
}

/** A value with every scalar hashed (null, and empty text, kept as they are). */
function hashed(policy: PrivacyPolicy, value: unknown): unknown {
  if (value === null || value === undefined || value === '') return value;
  if (Array.isArray(value)) return value.map((item) => hashed(policy, item));
  if (typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, hashed(policy, item)]));
  return policy.hash(String(value));
}
