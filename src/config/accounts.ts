/**
 * `accounts:`: several source databases, each with its own id, credentials, limits, time zone
 * and property ids. Each account's `source:` inherits the top-level `source:` (the defaults)
 * key by key; its `auth:` names the environment variable that holds its secret.
 */
import { z } from 'zod';
import { refuseInsecureHttp } from './insecure-http.js';
import {
  httpUrl,
  propertyId,
  sourceSettingsShape,
  timeZoneName,
  type Env,
  type SourceConfig,
} from './fields.js';
import { dotted, isMapping, type IssuePath, type Issues } from './issues.js';
import { privacySchema, resolvePrivacy, type PrivacyConfig } from './privacy.js';

/** An account's id: it is stored with every row of the account, so it must stay the same. */
export const ACCOUNT_ID = /^[a-z0-9_-]{1,40}$/;

/** The id of the one account of the one-account form (`source:` and the `PROPSYNC_API_*` variables). */
export const DEFAULT_ACCOUNT_ID = 'default';

/** How an account authenticates: Basic (`/api/v1/{area}`) or the API-key gateway (`/ext/orgs/{org}/v1/{area}`). */
export type AccountAuth =
  { type: 'basic'; username: string; password: string } | { type: 'apikey'; org: string; apiKey: string };

/**
 * An account's source: every setting of the source block, its credentials in `auth`, and what to check when the
 * source refuses them, in the account's own keys and variable (`credentialHint`).
 */
export type AccountSource = Omit<SourceConfig, 'username' | 'password'> & {
  auth: AccountAuth;
  credentialHint?: string;
};

/** One source database, with its own credentials, limits, budget, time zone and cursors. */
export interface Account {
  /** Lowercase letters, digits, `-` and `_`, at most 40: stored with every row of the account. */
  id: string;
  /** Display name; null when the configuration gives none. */
  name: string | null;
  source: AccountSource;
  /** Time zone of the account's dates, "today" and its call budget's day. */
  timeZone: string;
  /** Properties to sync; empty means every property the credential can see. */
  propertyIds: string[];
  /** The account's own personal-data policy (`accounts[].privacy`); absent: the configuration's `privacy:`. */
  privacy?: PrivacyConfig;
}

/** An account as the commands that never call the source see it: the credentials may be absent. */
export type OfflineAccountAuth =
  { type: 'basic'; username?: string; password?: string } | { type: 'apikey'; org?: string; apiKey?: string };
export type OfflineAccountSource = Omit<AccountSource, 'url' | 'auth'> & {
  url?: string;
  auth?: OfflineAccountAuth;
};
export interface OfflineAccount extends Omit<Account, 'source'> {
  source: OfflineAccountSource;
}

/**
 * The top-level `source:`: the whole source in the one-account form; with `accounts:`, the
 * defaults every account inherits (each setting's own default filled in, no credentials).
 */
export type SourceDefaults = Omit<SourceConfig, 'url' | 'username' | 'password'> &
  Partial<Pick<SourceConfig, 'url' | 'username' | 'password'>>;

/** What resolving a configuration needs and what it finds. */
export interface Resolving {
  env: Env;
  /** For commands that never call the source: credentials may be absent. */
  offline: boolean;
  issues: Issues;
  /** Accepted but discouraged, one line each: `accounts[0].source.auth.password: ...`. */
  warnings: string[];
}

const accountSchema = z
  .object({
    id: z.string().regex(ACCOUNT_ID, {
      message:
        'is not a valid account id; expected 1 to 40 lowercase letters, digits, ' +
        '- or _ (the id is stored with every row of the account, so keep it stable)',
    }),
    name: z.string().min(1, { message: 'is empty; expected a display name, or no name key' }).optional(),
    source: z.unknown().optional(),
    privacy: z.unknown().optional(),
  })
  .strict();

/** A layer of the source's settings, every key optional: the top-level defaults, or an account's own `source:`. */
const sourceLayerSchema = z
  .object({
    url: httpUrl.optional(),
    ...sourceSettingsShape,
    timeZone: timeZoneName.optional(),
    propertyIds: z.array(propertyId).optional(),
    auth: z.unknown().optional(),
  })
  .strict();

/** An account's source once its layers are merged, each setting's default filled in. */
const mergedSourceSchema = sourceLayerSchema
  .extend({ propertyIds: z.array(propertyId).default([]) })
  .superRefine((source, ctx) => {
    if (source.url !== undefined)
      refuseInsecureHttp({ url: source.url, allowInsecureHttp: source.allowInsecureHttp }, ctx);
  });

/** The top-level `source:` as `Config.source`: each setting with its default; the credentials, if any, left out. */
export const sourceDefaultsSchema = z.object({ url: httpUrl.optional(), ...sourceSettingsShape });

const AUTH_TYPES = ['basic', 'apikey'] as const;
type AuthType = (typeof AUTH_TYPES)[number];

/** What each auth type calls its parts. */
const AUTH_MODES = {
  basic: {
    user: 'username',
    userIs: 'the API user name',
    secret: 'password',
    secretEnv: 'passwordEnv',
    what: 'password',
  },
  apikey: {
    user: 'org',
    userIs: 'the organization the API key belongs to',
    secret: 'apiKey',
    secretEnv: 'apiKeyEnv',
    what: 'API key',
  },
} as const satisfies Record<
  AuthType,
  { user: string; userIs: string; secret: string; secretEnv: string; what: string }
>;

const authTypeSchema = z.object({
  type: z.enum(AUTH_TYPES, { message: 'is not a known auth type; expected basic or apikey' }),
});

const environmentName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  message: 'is not an environment variable name; expected letters, digits and _ such as NORTH_API_PASSWORD',
});

/**
 * An org as the gateway allows it in its path (`/ext/orgs/{org}/v1`): letters, digits, `-`, `_` and `.`, not dots
 * alone (`.` or `..` would climb out of the path).
 */
const gatewayOrg = z
  .string()
  .regex(/^[A-Za-z0-9._-]*$/, {
    message: 'holds a character the gateway does not allow; expected letters, digits, -, _ or .',
  })
  .refine((org) => !/^\.+$/.test(org), {
    message: 'is only dots; expected letters, digits, -, _ or . (not alone)',
  });

function authSchema(type: AuthType, offline: boolean) {
  const mode = AUTH_MODES[type];
  const user = (type === 'apikey' ? gatewayOrg : z.string()).min(1, {
    message: `is empty; expected ${mode.userIs}`,
  });
  return z
    .object({
      type: z.literal(type),
      [mode.user]: offline ? user.optional() : user,
      [mode.secretEnv]: environmentName.optional(),
      [mode.secret]: z
        .string()
        .min(1, { message: `is empty; expected the ${mode.what}, or rather ${mode.secretEnv}` })
        .optional(),
    })
    .strict();
}

const authSchemas = {
  online: { basic: authSchema('basic', false), apikey: authSchema('apikey', false) },
  offline: { basic: authSchema('basic', true), apikey: authSchema('apikey', true) },
};

/** The raw parts of the accounts form that the accounts are made of. */
export interface AccountsInput {
  /** The top-level `source:`: the defaults. */
  source: unknown;
  /** The top-level `propertyIds`: the one-account form's only. */
  propertyIds: unknown;
  accounts: unknown[];
  /** The top-level `timeZone`, validated: the time zone of an account that names none. */
  timeZone: string;
  /** The top-level `privacy:`, as written: what an account's own `privacy:` is laid over. */
  privacy: unknown;
}

/**
 * The accounts of the accounts form and the top-level defaults, or undefined when something is
 * wrong: every problem is added to `r.issues`, per account, and no secret is ever quoted.
 */
export function resolveAccounts(
  input: AccountsInput,
  r: Resolving,
): { defaults: SourceDefaults; accounts: OfflineAccount[] } | undefined {
  const before = r.issues.size;
  const list = input.propertyIds;
  if (list !== undefined && !(Array.isArray(list) && list.length === 0)) {
    r.issues.add(
      ['propertyIds'],
      "belongs to the one-account form; with accounts:, set each account's source.propertyIds (or " +
        'source.propertyIds for all of them)',
      {
        hideValue: true,
      },
    );
  }
  const defaults = sourceLayer(input.source, ['source'], r);
  // What an account's own privacy: is laid over (a faulty top level is told once, there).
  const privacyBase =
    isMapping(input.privacy) && privacySchema.safeParse(input.privacy).success ? input.privacy : {};
  const ids = new Map<string, number>();
  const accounts: OfflineAccount[] = [];
  input.accounts.forEach((raw, index) => {
    const at = ['accounts', index];
    const start = r.issues.size;
    const account = r.issues.check(accountSchema, raw, at);
    if (account) {
      const first = ids.get(account.id);
      if (first === undefined) ids.set(account.id, index);
      else
        r.issues.add(
          [...at, 'id'],
          `is already the id of accounts[${first}]; expected a different id for each account`,
        );
    }
    if (!isMapping(raw)) return;
    const own = sourceLayer(raw.source, [...at, 'source'], r);
    // Merged only when both layers are right: a fault of the defaults is told once, under source.
    const merged =
      own && defaults && r.issues.check(mergedSourceSchema, mergeLayers(defaults, own), [...at, 'source']);
    if (merged && merged.url === undefined && !r.offline)
      r.issues.add([...at, 'source', 'url'], 'is missing');
    // The auth is the account's own: never inherited.
    const resolved = resolveAuth(
      isMapping(raw.source) ? raw.source.auth : undefined,
      [...at, 'source', 'auth'],
      r,
    );
    const auth = resolved?.auth;
    const privacy =
      raw.privacy === undefined ? undefined : accountPrivacy(privacyBase, raw.privacy, index, r);
    if (!own || !merged) return;
    const { auth: _, timeZone, propertyIds, ...settings } = merged;
    if (auth?.type === 'apikey' && settings.format === 'xml') {
      r.issues.add(
        own.format !== undefined ? [...at, 'source', 'format'] : ['source', 'format'],
        `is not possible for accounts[${index}], whose auth type is apikey; expected json: ` +
          `the API-key gateway takes JSON only`,
        {
          account: index,
        },
      );
    }
    if (!account || r.issues.size > start) return;
    accounts.push({
      id: account.id,
      name: account.name ?? null,
      source: { ...settings, ...(resolved && { auth: resolved.auth, credentialHint: resolved.hint }) },
      timeZone: timeZone ?? input.timeZone,
      propertyIds,
      ...(privacy && { privacy }),
    });
  });
  if (!defaults || r.issues.size > before) return undefined;
  return { defaults: sourceDefaultsSchema.parse(defaults), accounts };
}

/**
 * The `privacy:` of `accounts[index]`, laid key by key over `base`, the top-level one (its
 * `classes` merge too), then resolved with its key; undefined when wrong. A key's variable is told
 * where it is written (the account's, or the top level's).
 */
function accountPrivacy(
  base: Record<string, unknown>,
  own: unknown,
  index: number,
  r: Resolving,
): PrivacyConfig | undefined {
  const path = ['accounts', index, 'privacy'];
  const parsed = r.issues.check(privacySchema, isMapping(own) ? mergeLayers(base, own) : own, path);
  const keyAt =
    isMapping(own) && own.hashKeyEnv !== undefined ? { path } : { path: ['privacy'], account: index };
  return parsed && resolvePrivacy(parsed, r.env, r.issues, r.offline, keyAt);
}

/** Keys the one-account form has at the top of `source:` that an account keeps in its `auth:`. */
const CREDENTIAL_KEYS = ['username', 'password'];

/**
 * A layer of settings checked on its own (undefined when wrong), without the keys it may not have (each one a problem).
 */
function sourceLayer(raw: unknown, path: IssuePath, r: Resolving): Record<string, unknown> | undefined {
  if (raw === undefined) return {};
  if (!isMapping(raw)) return r.issues.check(sourceLayerSchema, raw, path);
  const layer = { ...raw };
  const defaults = path.length === 1;
  const misplaced = [...CREDENTIAL_KEYS, ...(defaults ? ['auth'] : [])].filter((key) => key in layer);
  for (const key of misplaced) {
    delete layer[key];
    const message =
      key === 'auth'
        ? 'is not inherited; expected it in each account: accounts[].source.auth'
        : defaults
          ? "belongs to the one-account form; with accounts:, each account's source.auth holds its credentials"
          : `belongs in auth; expected auth: { type: basic, username: ..., passwordEnv: ... }`;
    r.issues.add([...path, key], message, { hideValue: true });
  }
  // The rest still merges: what else is wrong with the accounts is told at once.
  return r.issues.check(sourceLayerSchema, layer, path) && layer;
}

/** `over` on top of `base`: mappings merge key by key, anything else (a list, a value) replaces. */
function mergeLayers(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const under = out[key];
    out[key] = isMapping(value) && isMapping(under) ? mergeLayers(under, value) : value;
  }
  return out;
}

/**
 * An account's `auth:` with its secret read from the variable it names, and what to check when the source refuses
 * it (its keys and variable); undefined when wrong or (offline) absent.
 */
function resolveAuth(
  raw: unknown,
  path: IssuePath,
  r: Resolving,
): { auth: OfflineAccountAuth; hint: string } | undefined {
  if (raw === undefined) {
    if (!r.offline) r.issues.add(path, 'is missing');
    return undefined;
  }
  const head = r.issues.check(authTypeSchema, raw, path);
  if (!head) return undefined;
  const mode = AUTH_MODES[head.type];
  const fields = r.issues.check(authSchemas[r.offline ? 'offline' : 'online'][head.type], raw, path) as
    Record<string, string | undefined> | undefined;
  if (!fields) return undefined;
  const variable = fields[mode.secretEnv];
  const inline = fields[mode.secret];
  let secret: string | undefined;
  if (variable !== undefined && inline !== undefined) {
    r.issues.add(
      [...path, mode.secret],
      `is given as well as ${mode.secretEnv}; expected only ${mode.secretEnv}: remove ${mode.secret} from the file`,
      {
        hideValue: true,
      },
    );
  } else if (inline !== undefined) {
    secret = inline;
    r.warnings.push(
      `${dotted([...path, mode.secret])}: the ${mode.what} is written in the configuration; ` +
        `it is accepted, but keep it out of the file: set ${mode.secretEnv} to the name of an ` +
        `environment variable that holds it`,
    );
  } else if (variable !== undefined) {
    secret = r.env[variable] || undefined;
    if (secret === undefined && !r.offline) {
      r.issues.add(
        [...path, mode.secretEnv],
        `names a variable that is not set (or is empty); expected ${variable} to hold the ${mode.what}`,
      );
    }
  } else if (!r.offline) {
    r.issues.add([...path, mode.secretEnv], 'is missing');
  }
  const user = fields[mode.user];
  const secretAt =
    inline !== undefined
      ? dotted([...path, mode.secret])
      : `the ${mode.what} in ${variable} (${dotted([...path, mode.secretEnv])})`;
  const hint =
    head.type === 'basic'
      ? `check ${dotted([...path, mode.user])} and ${secretAt}`
      : `check ${secretAt} and ${dotted([...path, mode.user])}${user === undefined ? '' : ` ('${user}')`}`;
  if (head.type === 'basic')
    return {
      auth: {
        type: 'basic',
        ...(user !== undefined && { username: user }),
        ...(secret !== undefined && { password: secret }),
      },
      hint,
    };
  return {
    auth: {
      type: 'apikey',
      ...(user !== undefined && { org: user }),
      ...(secret !== undefined && { apiKey: secret }),
    },
    hint,
  };
}

/** Every account's secret (password or API key): what no log line, error or output may show. */
export function accountSecrets(accounts: readonly { source: { auth?: OfflineAccountAuth } }[]): string[] {
  return accounts
    .flatMap(({ source: { auth } }) => (auth?.type === 'basic' ? [auth.password] : [auth?.apiKey]))
    .filter((secret): secret is string => !!secret);
}
