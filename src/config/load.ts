import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { configSchema, offlineConfigSchema, type Config, type OfflineConfig } from './schema.js';
import { redactUrl } from '../log/redact.js';

/** The configuration file read when no `--config` is given. */
export const DEFAULT_CONFIG_PATH = 'config/propsync.yaml';

/** Environment variables and the configuration key each one sets; they win over the file. */
export const ENVIRONMENT_KEYS = [
  { env: 'DATABASE_URL', path: ['database', 'url'] },
  { env: 'PROPSYNC_API_URL', path: ['source', 'url'] },
  { env: 'PROPSYNC_API_USERNAME', path: ['source', 'username'] },
  { env: 'PROPSYNC_API_PASSWORD', path: ['source', 'password'] },
  { env: 'PROPSYNC_FORMAT', path: ['source', 'format'] },
  { env: 'PROPSYNC_PAGE_SIZE', path: ['source', 'pageSize'] },
  { env: 'PROPSYNC_CONCURRENCY', path: ['source', 'concurrency'] },
  { env: 'PROPSYNC_DAILY_CALL_BUDGET', path: ['source', 'dailyCallBudget'] },
  { env: 'PROPSYNC_REQUEST_TIMEOUT_MS', path: ['source', 'requestTimeoutMs'] },
  { env: 'PROPSYNC_PROPERTY_IDS', path: ['propertyIds'], list: true },
  { env: 'PROPSYNC_TIME_ZONE', path: ['timeZone'] },
  { env: 'PROPSYNC_LOG_LEVEL', path: ['logLevel'] },
  { env: 'PROPSYNC_METRICS_PORT', path: ['metrics', 'port'] },
] as const satisfies readonly { env: string; path: readonly string[]; list?: boolean }[];

/** Keys whose values are never printed, whatever is wrong with them. */
const SECRET_KEYS = new Set(['password']);

/** Invalid configuration: one line per problem, each naming the key, the fault and what is expected. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
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
  /** Where each key came from, by dotted path: an environment variable or `file: key`. */
  origins: Map<string, string>;
}

/** Loads and validates the whole configuration, source credentials included (sync, backfill, schedule). */
export function loadConfig(options: LoadOptions = {}): Config {
  return parseWith(configSchema, readRaw(options));
}

/** Loads the configuration of commands that never call the source (migrate, status, reset). */
export function loadOfflineConfig(options: LoadOptions = {}): OfflineConfig {
  return parseWith(offlineConfigSchema, readRaw(options));
}

function readRaw({ configPath, env = process.env, cwd = process.cwd() }: LoadOptions): RawConfig {
  const origins = new Map<string, string>();
  let raw: Record<string, unknown> = {};
  const file = resolve(cwd, configPath ?? DEFAULT_CONFIG_PATH);
  if (existsSync(file)) {
    let parsed: unknown;
    try {
      parsed = parseYaml(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new ConfigError([`${configPath ?? DEFAULT_CONFIG_PATH}: is not valid YAML (${(error as Error).message.split('\n')[0]})`]);
    }
    if (parsed != null && (typeof parsed !== 'object' || Array.isArray(parsed))) {
      throw new ConfigError([`${configPath ?? DEFAULT_CONFIG_PATH}: expected a mapping of keys at the top level`]);
    }
    raw = (parsed ?? {}) as Record<string, unknown>;
    recordOrigins(raw, [], configPath ?? DEFAULT_CONFIG_PATH, origins);
  } else if (configPath) {
    throw new ConfigError([`--config: file ${configPath} does not exist; expected the path of a YAML configuration file`]);
  }
  for (const key of ENVIRONMENT_KEYS) {
    const value = env[key.env];
    if (value === undefined || value === '') continue;
    const parsed = 'list' in key && key.list ? value.split(',').map((part) => part.trim()).filter(Boolean) : value;
    setPath(raw, key.path, parsed);
    origins.set(key.path.join('.'), key.env);
  }
  return { raw, origins };
}

function parseWith<S extends z.ZodType>(schema: S, { raw, origins }: RawConfig): z.infer<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => describeIssue(issue, raw, origins));
  throw new ConfigError([...new Set(problems)]);
}

function describeIssue(issue: z.core.$ZodIssue, raw: Record<string, unknown>, origins: Map<string, string>): string {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const where = path.length ? `${labelFor(path, origins)}: ` : '';
    return `${where}unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}; check the spelling against config/propsync.example.yaml`;
  }
  const label = labelFor(path, origins);
  const value = getPath(raw, path);
  const secret = path.some((part) => SECRET_KEYS.has(part));
  if (value === undefined) {
    const env = ENVIRONMENT_KEYS.find((key) => key.path.join('.') === path.join('.'))?.env;
    const hint = env ? `set ${env} or ${path.join('.')} in ${DEFAULT_CONFIG_PATH}` : `set ${path.join('.')} in ${DEFAULT_CONFIG_PATH}`;
    return `${label}: is missing; ${hint}`;
  }
  const shown = secret ? '(value hidden)' : describeValue(value);
  const message = issue.message.startsWith('Invalid input') || issue.message.startsWith('Too') || issue.message.startsWith('Invalid')
    ? `is invalid (${issue.message.replace(/^Invalid input: /, '')})`
    : issue.message;
  return `${label}: ${shown} ${message}`;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(redactUrl(value));
  return JSON.stringify(value) ?? String(value);
}

function labelFor(path: string[], origins: Map<string, string>): string {
  for (let length = path.length; length > 0; length--) {
    const origin = origins.get(path.slice(0, length).join('.'));
    if (!origin) continue;
    if (origin.includes(':') || !origin.match(/^[A-Z_]+$/)) return `${origin}${length < path.length ? `[${path.slice(length).join('.')}]` : ''}`;
    return length < path.length ? `${origin} (item ${Number(path[length]) + 1})` : origin;
  }
  return path.join('.') || '(configuration)';
}

function recordOrigins(value: unknown, path: string[], file: string, origins: Map<string, string>): void {
  if (path.length) origins.set(path.join('.'), `${file}: ${path.join('.')}`);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value)) recordOrigins(child, [...path, key], file, origins);
  }
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
