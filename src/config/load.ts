import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { ACCOUNT_ID } from './accounts.js';
import type { Env } from './fields.js';
import { dotted, isMapping, type IssueParams } from './issues.js';
import { closestKey } from './closest-key.js';
import {
  configSchemaFor,
  offlineConfigSchemaFor,
  TOP_LEVEL_KEYS,
  type Config,
  type OfflineConfig,
} from './schema.js';
import { redactUrl, scrubSecrets, urlPasswords } from '../log/redact.js';
import { messageOf } from '../log/errors.js';

/** The configuration file read when no `--config` is given. */
export const DEFAULT_CONFIG_PATH = 'config/propsync.yaml';

/** Environment variables and the configuration key each one sets; they win over the file. */
export const ENVIRONMENT_KEYS = [
  { env: 'DATABASE_URL', path: ['database', 'url'] },
  { env: 'PROPSYNC_API_URL', path: ['source', 'url'] },
  { env: 'PROPSYNC_API_USERNAME', path: ['source', 'username'] },
  { env: 'PROPSYNC_API_PASSWORD', path: ['source', 'password'] },
  { env: 'PROPSYNC_API_ALLOW_INSECURE_HTTP', path: ['source', 'allowInsecureHttp'] },
  { env: 'PROPSYNC_FORMAT', path: ['source', 'format'] },
  { env: 'PROPSYNC_PAGE_SIZE', path: ['source', 'pageSize'] },
  { env: 'PROPSYNC_CONCURRENCY', path: ['source', 'concurrency'] },
  { env: 'PROPSYNC_DAILY_CALL_BUDGET', path: ['source', 'dailyCallBudget'] },
  { env: 'PROPSYNC_REQUEST_TIMEOUT_MS', path: ['source', 'requestTimeoutMs'] },
  { env: 'PROPSYNC_MAX_REPLY_BYTES', path: ['source', 'maxReplyBytes'] },
  { env: 'PROPSYNC_MAX_CLOCK_SKEW_HOURS', path: ['source', 'maxClockSkewHours'] },
  { env: 'PROPSYNC_DECODE_THREADS', path: ['source', 'decodeThreads'] },
  { env: 'PROPSYNC_PROPERTY_IDS', path: ['propertyIds'], list: true },
  { env: 'PROPSYNC_TIME_ZONE', path: ['timeZone'] },
  { env: 'PROPSYNC_LOG_LEVEL', path: ['logLevel'] },
  { env: 'PROPSYNC_METRICS_PORT', path: ['metrics', 'port'] },
  { env: 'PROPSYNC_METRICS_HOST', path: ['metrics', 'host'] },
  { env: 'PROPSYNC_CONSOLE_ENABLED', path: ['console', 'enabled'] },
  { env: 'PROPSYNC_SCHEDULE_MODE', path: ['schedule', 'mode'] },
  { env: 'PROPSYNC_SCHEDULE_TICK_GRACE_SECONDS', path: ['schedule', 'tickGraceSeconds'] },
  { env: 'PROPSYNC_WORKER_CONCURRENCY', path: ['worker', 'concurrency'] },
  { env: 'PROPSYNC_WORKER_WAIT_NOTICE_SECONDS', path: ['worker', 'waitNoticeSeconds'] },
  { env: 'PROPSYNC_WORKER_SWEEP_SECONDS', path: ['worker', 'sweepSeconds'] },
] as const satisfies readonly { env: string; path: readonly string[]; list?: boolean }[];

/** Keys whose values are never printed, whatever is wrong with them (matched anywhere in the tree). */
const SECRET_KEY = /pass(word)?|secret|token|api_?key|hash_?key/i;

/**
 * Whether a key holds a secret: `password`, `apiKey`, `token`... but not `passwordEnv` or
 * `apiKeyEnv`, which name the environment variable that holds it (the name is no secret).
 */
function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) && !/Env$/.test(key);
}

/** Invalid configuration: one line per problem, each naming the key, the fault and what is expected. */
export class ConfigError extends Error {
  /**
   * @param accountOf for each problem, the account it belongs to (`accounts[1] (south)`, or
   *   `accounts[1]` when its id is not valid); null for the rest of the configuration.
   */
  constructor(
    readonly problems: string[],
    readonly accountOf: readonly (string | null)[] = problems.map(() => null),
  ) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface LoadOptions {
  /** `--config PATH`; when absent, config/propsync.yaml is read if it exists. */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Working directory that a relative path is resolved from. */
  cwd?: string;
}

interface RawConfig {
  raw: Record<string, unknown>;
  /** Where each key came from, by dotted path: the environment variable that set it, or the file. */
  origins: Map<string, { env: string; list: boolean } | 'file'>;
  /** The file as the operator named it (`--config`), or the default path. */
  file: string;
  /** Values that must never be printed: every password-like value of the file and environment. */
  secrets: string[];
  /** Where the secrets that `passwordEnv` / `apiKeyEnv` name are read. */
  env: Env;
}

/** Loads and validates the whole configuration, source credentials included (sync, backfill, schedule). */
export function loadConfig(options: LoadOptions = {}): Config {
  const raw = readRaw(options);
  return parseWith(configSchemaFor(raw.env), raw, ['database', 'source']);
}

/** Loads the configuration of commands that never call the source (migrate, status, reset). */
export function loadOfflineConfig(options: LoadOptions = {}): OfflineConfig {
  const raw = readRaw(options);
  return parseWith(offlineConfigSchemaFor(raw.env), raw, ['database']);
}

function readRaw({ configPath, env = process.env, cwd = process.cwd() }: LoadOptions): RawConfig {
  const origins: RawConfig['origins'] = new Map();
  const label = configPath ?? DEFAULT_CONFIG_PATH;
  const secrets: string[] = [];
  for (const name of ['PROPSYNC_API_PASSWORD', 'DATABASE_URL']) {
    const value = env[name];
    if (value) secrets.push(...(name === 'DATABASE_URL' ? urlPasswords(value) : [value]));
  }
  let raw: Record<string, unknown> = {};
  const file = resolve(cwd, label);
  if (existsSync(file)) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError([
        `${label}: cannot be read (${(error as NodeJS.ErrnoException).code ?? messageOf(error)}); ` +
          `expected a readable YAML file`,
      ]);
    }
    let parsed: unknown;
    try {
      parsed = parseYaml(text);
    } catch (error) {
      // The parser may quote the faulty line; hide whatever looks like a password in the text.
      const guessed = [
        ...text.matchAll(/(?:pass(?:word)?|secret|token|api_?key)["']?\s*:\s*["']?([^"'\s#,}\]]+)/gi),
      ].map((match) => match[1]);
      const reason = messageOf(error).split('\n')[0];
      throw new ConfigError([
        scrubSecrets(`${label}: is not valid YAML (${reason}); fix the file's syntax`, [
          ...secrets,
          ...guessed,
        ]),
      ]);
    }
    if (parsed != null && (typeof parsed !== 'object' || Array.isArray(parsed))) {
      throw new ConfigError([
        `${label}: expected a mapping of keys at the top level (such as "database:" and "source:"), ` +
          `found ${kindOf(parsed)}`,
      ]);
    }
    raw = (parsed ?? {}) as Record<string, unknown>;
    recordOrigins(raw, [], origins);
    collectSecrets(raw, false, env, secrets);
  } else if (configPath) {
    throw new ConfigError([
      `--config: file ${configPath} does not exist; expected the path of a YAML configuration file`,
    ]);
  }
  for (const key of ENVIRONMENT_KEYS) {
    const value = env[key.env];
    if (value === undefined || value === '') continue;
    const list = 'list' in key && key.list;
    const parsed = list
      ? value
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean)
      : value;
    setPath(raw, key.path, parsed);
    origins.set(key.path.join('.'), { env: key.env, list });
  }
  return { raw, origins, file: label, secrets, env };
}

function parseWith<S extends z.ZodType<Config | OfflineConfig>>(
  schema: S,
  config: RawConfig,
  containers: string[],
): z.infer<S> {
  // An absent section is reported key by key (`database.url: is missing`), not as a whole.
  for (const key of containers) if (config.raw[key] == null) config.raw[key] = {};
  const result = schema.safeParse(config.raw);
  if (result.success) {
    // Only the file sets an account's keys: each warning is labelled with it.
    result.data.warnings = result.data.warnings.map((warning) =>
      scrubSecrets(`${config.file}: ${warning}`, config.secrets),
    );
    return result.data;
  }
  const seen = new Map<string, string | null>();
  // A misspelt top-level key (`acounts:`) comes first: the problems after it often follow from it.
  const first = (issue: z.core.$ZodIssue) =>
    issue.code === 'unrecognized_keys' && !issue.path.length ? 0 : 1;
  const issues = [...result.error.issues].sort((a, b) => first(a) - first(b));
  for (const issue of issues) {
    const account = accountOf(issue, config.raw);
    for (const problem of describeIssue(issue, config)) {
      const text = scrubSecrets(problem, config.secrets);
      if (!seen.has(text)) seen.set(text, account);
    }
  }
  throw new ConfigError([...seen.keys()], [...seen.values()]);
}

/** The account a problem belongs to: `accounts[1] (south)`, `accounts[1]` when its id is not valid; null for none. */
function accountOf(issue: z.core.$ZodIssue, raw: Record<string, unknown>): string | null {
  const params = (issue as { params?: IssueParams }).params;
  const index =
    issue.path[0] === 'accounts' && typeof issue.path[1] === 'number' ? issue.path[1] : params?.account;
  if (index === undefined) return null;
  const accounts = raw.accounts;
  const item = Array.isArray(accounts) ? accounts[index] : undefined;
  const id = isMapping(item) ? item.id : undefined;
  return typeof id === 'string' && ACCOUNT_ID.test(id) ? `accounts[${index}] (${id})` : `accounts[${index}]`;
}

function describeIssue(issue: z.core.$ZodIssue, { raw, origins, file }: RawConfig): string[] {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const near = path.length ? undefined : closestKey(key, TOP_LEVEL_KEYS);
      const hint = near ? `did you mean ${near}?` : 'check the spelling against config/propsync.example.yaml';
      return `${labelFor([...path, key], origins, file)}: is not a known key; ${hint}`;
    });
  }
  const value = getPath(raw, path);
  if (value === undefined) {
    const env = ENVIRONMENT_KEYS.find((key) => key.path.join('.') === path.join('.'))?.env;
    const key = dotted(path);
    // An account's keys can only come from the file: it is named first, as where the others are faulty.
    const where = path[0] === 'accounts' ? `${file}: ` : '';
    return [
      `${where}${key}: is missing; ${env ? `set ${env} or ${key} in ${file}` : `set ${key} in ${file}`}`,
    ];
  }
  const secret = path.some(isSecretKey);
  const scalar = value === null || typeof value !== 'object';
  const hidden = (issue as { params?: IssueParams }).params?.hideValue;
  const shown = hidden ? '' : secret ? '(value hidden) ' : scalar ? `${describeValue(value)} ` : '';
  return [`${labelFor(path, origins, file)}: ${shown}${describeFault(issue, value)}`];
}

/** What is wrong with a value and what is expected, in the words of the operator's file. */
function describeFault(issue: z.core.$ZodIssue, value: unknown): string {
  const zodDefault = /^(Invalid|Too (small|big)|Unrecognized)/.test(issue.message);
  if (!zodDefault)
    return issue.message.startsWith('expected') ? `is invalid; ${issue.message}` : issue.message;
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      const numeric =
        typeof value === 'number' ||
        (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)));
      if (issue.expected === 'int' && numeric) return 'has a fraction; expected a whole number';
      if ((issue.expected === 'number' || issue.expected === 'int') && typeof value === 'string')
        return `is not a number; expected ${expected}`;
      return `is ${kindOf(value)}; expected ${expected}`;
    }
    case 'too_small': {
      const bound = issue.origin === 'string' || issue.inclusive ? 'at least' : 'more than';
      const unit = issue.origin === 'string' ? ' characters' : '';
      return `is too small; expected ${bound} ${String(issue.minimum)}${unit}`;
    }
    case 'too_big': {
      const bound = issue.inclusive ? 'at most' : 'less than';
      const unit = issue.origin === 'string' ? ' characters' : '';
      return `is too large; expected ${bound} ${String(issue.maximum)}${unit}`;
    }
    case 'invalid_value':
      return `is not allowed; expected one of ${issue.values.map(String).join(', ')}`;
    default:
      return `is invalid (${issue.message.replace(/^Invalid input: /, '')})`;
  }
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a mapping of keys',
  array: 'a list',
};

function kindOf(value: unknown): string {
  if (value === null) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value === 'number' ? 'a number' : 'a string';
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(redactUrl(value));
  return JSON.stringify(value) ?? String(value);
}

/**
 * Names a key where the operator set it: `PROPSYNC_FORMAT`, `PROPSYNC_PROPERTY_IDS (item 2)` or
 * `config/propsync.yaml: source.format`.
 */
function labelFor(path: string[], origins: RawConfig['origins'], file: string): string {
  for (let length = path.length; length > 0; length--) {
    const origin = origins.get(path.slice(0, length).join('.'));
    if (!origin) continue;
    if (origin === 'file') return `${file}: ${dotted(path)}`;
    if (length === path.length) return origin.env;
    return origin.list && /^\d+$/.test(path[length])
      ? `${origin.env} (item ${Number(path[length]) + 1})`
      : `${origin.env}: ${dotted(path.slice(length))}`;
  }
  // Only the file can hold keys that no environment variable sets.
  return `${file}: ${dotted(path)}`;
}

function recordOrigins(value: unknown, path: string[], origins: RawConfig['origins']): void {
  if (path.length) origins.set(path.join('.'), 'file');
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value)) recordOrigins(child, [...path, key], origins);
  }
}

/**
 * Every scalar under a password-like key, the value of every variable that a `passwordEnv` or
 * `apiKeyEnv` names, and the password of every URL, anywhere in the file.
 */
function collectSecrets(value: unknown, underSecret: boolean, env: Env, out: string[]): void {
  if (value == null) return;
  if (typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const variable =
        typeof child === 'string' && /Env$/.test(key) && SECRET_KEY.test(key) ? env[child] : undefined;
      if (variable) out.push(variable);
      collectSecrets(child, underSecret || isSecretKey(key), env, out);
    }
    return;
  }
  const text = String(value);
  if (underSecret) out.push(text);
  if (typeof value === 'string') out.push(...urlPasswords(text));
}

function getPath(root: unknown, path: string[]): unknown {
  let node = root;
  for (const part of path) {
    if (node == null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

function setPath(root: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = root;
  for (const part of path.slice(0, -1)) {
    if (node[part] == null || typeof node[part] !== 'object') node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}
