import { z } from 'zod';
import { STREAM_MANIFESTS } from '../streams/registry.js';
import { cronSchema, nonNegativeInt, positiveInt, settingsSchemaOf } from '../streams/settings.js';
import {
  DEFAULT_ACCOUNT_ID,
  resolveAccounts,
  sourceDefaultsSchema,
  type Account,
  type OfflineAccount,
  type Resolving,
  type SourceDefaults,
} from './accounts.js';
import {
  checkedSourceSchema,
  DEFAULT_TIME_ZONE,
  postgresUrl,
  propertyId,
  sourceSchema,
  timeZoneName,
  type Env,
  type SourceConfig,
} from './fields.js';
import { consoleSchema } from './console.js';
import { isMapping, Issues } from './issues.js';
import { alertsSchema, resolveAlertTargets, type AlertTarget } from './alerts.js';
import { privacySchema, resolvePrivacy, type PrivacyConfig } from './privacy.js';

export type {
  Account,
  AccountAuth,
  AccountSource,
  OfflineAccount,
  OfflineAccountAuth,
  SourceDefaults,
} from './accounts.js';
export { ACCOUNT_ID, DEFAULT_ACCOUNT_ID, accountSecrets } from './accounts.js';
export type { SourceConfig } from './fields.js';
export type { AlertFormat, AlertKind, AlertSeverity, AlertTarget } from './alerts.js';
export { ALERT_KINDS, ALERT_SEVERITIES, WebhookUrl } from './alerts.js';

/** pino levels accepted in `logLevel`. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type Manifest = (typeof STREAM_MANIFESTS)[number];

/** The streams propsync knows, from the stream registry. */
export { STREAM_NAMES, type StreamName } from '../streams/registry.js';

/** The largest value Postgres takes for a timeout setting: an int of milliseconds (about 24.8 days). */
const MAX_POSTGRES_MS = 2 ** 31 - 1;

/** `database.reconnect`: how long an outage of the warehouse is ridden through. */
const reconnectSchema = z
  .object({
    /** Longest outage waited out (from its first failed statement) before the work fails. */
    maxOutageMs: positiveInt.max(MAX_POSTGRES_MS).default(120_000),
    /** First wait before trying again on a new connection; it doubles, with jitter. */
    baseDelayMs: positiveInt.default(250),
    /** Longest single wait between attempts. */
    maxDelayMs: positiveInt.default(5_000),
  })
  .strict()
  .default({ maxOutageMs: 120_000, baseDelayMs: 250, maxDelayMs: 5_000 });

/** The fewest `database.maxConnections`: one account's stream locks, one lane and the process's own. */
export const MIN_CONNECTIONS = 8;

const databaseSchema = z
  .object({
    url: postgresUrl,
    /** statement_timeout of every session: longest a statement may run. */
    statementTimeoutMs: positiveInt.max(MAX_POSTGRES_MS).default(600_000),
    /**
     * lock_timeout of every session: longest a statement waits for a lock before it fails, naming the lock
     * and its holder.
     */
    lockTimeoutMs: positiveInt.max(MAX_POSTGRES_MS).default(30_000),
    /** idle_in_transaction_session_timeout of every session: longest a transaction may sit idle. */
    idleInTransactionTimeoutMs: positiveInt.max(MAX_POSTGRES_MS).default(300_000),
    /** statement_timeout of the refresh of each reporting view after a run. */
    refreshStatementTimeoutMs: positiveInt.max(MAX_POSTGRES_MS).default(3_600_000),
    /**
     * The most connections one propsync process opens to the warehouse (its stream locks included): a sync of
     * many accounts runs as many of them at once as fit.
     */
    maxConnections: positiveInt.min(MIN_CONNECTIONS).max(1_000).default(30),
    /**
     * Keep the statements a load repeats prepared on each connection (parsed once, planned once). Off behind a
     * pooler that hands a session's statements to other server sessions (PgBouncer in transaction mode
     * before 1.21).
     */
    preparedStatements: z.boolean().default(true),
    reconnect: reconnectSchema,
  })
  .strict();

/** `streams.<name>`: each stream's own settings, declared in its folder. */
const withDefaults = (settings: z.ZodType) => settings.default(settings.parse({}));
const streamsShape = Object.fromEntries(
  STREAM_MANIFESTS.map((manifest) => [manifest.name, withDefaults(settingsSchemaOf(manifest))]),
) as unknown as {
  [M in Manifest as M['name']]: z.ZodDefault<ReturnType<M['settings']>>;
};
const streamsSchema = z.object(streamsShape).strict();

/**
 * The one-account form: `source:` and the `PROPSYNC_API_*` variables; every key documented in
 * config/propsync.example.yaml.
 */
const oneAccountSchema = z
  .object({
    database: databaseSchema,
    source: checkedSourceSchema,
    /** Properties to sync; empty means every property the credential can see (getProperties). */
    propertyIds: z.array(propertyId).default([]),
    timeZone: timeZoneName.default(DEFAULT_TIME_ZONE),
    logLevel: z.enum(LOG_LEVELS, { message: `expected one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    /**
     * Minutes without a heartbeat after which `status` shows a run still marked running as abandoned (its
     * process died).
     */
    abandonedAfterMinutes: positiveInt.max(1440).default(10),
    streams: streamsSchema.prefault({}),
    metrics: z
      .object({
        /** Port of /healthz and /metrics while `propsync schedule` runs; 0 turns them off. */
        port: nonNegativeInt.max(65535).default(9464),
        host: z.string().default('127.0.0.1'),
      })
      .strict()
      .default({ port: 9464, host: '127.0.0.1' }),
    console: consoleSchema,
    schedule: z
      .object({
        /**
         * `in-process`: `propsync schedule` runs the work itself; `queue`: it only enqueues, and `propsync
         * worker` processes run it.
         */
        mode: z.enum(['in-process', 'queue']).default('in-process'),
        /**
         * Queue mode: how long a cron time claimed by a scheduler waits for it to enqueue the run before any
         * scheduler takes it (its own died in between).
         */
        tickGraceSeconds: positiveInt.max(3600).default(60),
      })
      .strict()
      .default({ mode: 'in-process', tickGraceSeconds: 60 }),
    worker: z
      .object({
        /** Jobs (lanes of work units) one `propsync worker` runs at once. */
        concurrency: positiveInt.max(64).default(2),
        /** `enqueue --wait` says so when no worker has taken its runs' jobs for this long, and again as long. */
        waitNoticeSeconds: positiveInt.max(3600).default(30),
        /**
         * How often a worker sweeps: ends the lanes of jobs that ended without a word, closes runs whose
         * process is gone, and says when jobs wait that no worker takes.
         */
        sweepSeconds: positiveInt.max(3600).default(30),
      })
      .strict()
      .default({ concurrency: 2, waitNoticeSeconds: 30, sweepSeconds: 30 }),
    /** `propsync verify` run by `propsync schedule`: a sample of the properties at `cron` (never, without it). */
    verify: z
      .object({
        cron: cronSchema.optional(),
        sample: z.coerce.number().positive().max(100).default(5),
      })
      .strict()
      .default({ sample: 5 }),
    /** Webhook targets of alerts (config/alerts.ts, docs/alerts.md). */
    alerts: alertsSchema,
    /** What is done with residents' personal data before anything is written (docs/privacy.md). */
    privacy: privacySchema,
  })
  .strict();

/** The one-account form of commands that never call the source: the source's credentials may be absent. */
const offlineOneAccountSchema = oneAccountSchema.extend({ source: sourceSchema.partial().optional() });

/** The accounts form: the same keys, `accounts:` besides; `source:` holds defaults, checked with the accounts. */
const accountsFormSchema = oneAccountSchema.extend({
  source: z.unknown().optional(),
  propertyIds: z.unknown().optional(),
  accounts: z.array(z.unknown()).min(1, { message: 'is empty; expected at least one account' }),
});

/** The keys a configuration file may have at its top level (either form). */
export const TOP_LEVEL_KEYS: readonly string[] = Object.keys(accountsFormSchema.shape);

type OneAccountConfig = z.output<typeof oneAccountSchema>;

/** The configuration after validation and defaults. */
export type Config = Omit<OneAccountConfig, 'source' | 'alerts' | 'privacy'> & {
  /** The alert targets, their URLs read (offline commands leave out those whose variable is unset). */
  alerts: AlertTarget[];
  /** The personal-data policy, its hash key read from the environment. */
  privacy: PrivacyConfig;
  /** The whole source in the one-account form; with `accounts:`, the defaults the accounts inherit. */
  source: SourceDefaults;
  /** The accounts, at least one: the one-account form is the account `default`. */
  accounts: Account[];
  /** What is accepted but discouraged (a password in the file), one line each, naming the key. */
  warnings: string[];
};

/** The configuration of commands that never call the source (migrate, status, reset): credentials may be absent. */
export type OfflineConfig = Omit<Config, 'source' | 'accounts'> & {
  source?: Partial<SourceConfig>;
  accounts: OfflineAccount[];
};

/** A configuration before its alert targets are resolved. */
type Written = Omit<OfflineConfig, 'alerts'> & { alerts: z.output<typeof alertsSchema> };

/** The one-account form, its source as the account `default`. */
function oneAccountForm(input: unknown, r: Resolving): Written | undefined {
  const config = r.issues.check(r.offline ? offlineOneAccountSchema : oneAccountSchema, input, []);
  if (!config) return undefined;
  const { username, password } = config.source ?? {};
  const auth = {
    type: 'basic' as const,
    ...(username !== undefined && { username }),
    ...(password !== undefined && { password }),
  };
  const account: OfflineAccount = {
    id: DEFAULT_ACCOUNT_ID,
    name: null,
    source: { ...sourceDefaultsSchema.parse(config.source ?? {}), auth },
    timeZone: config.timeZone,
    propertyIds: [...config.propertyIds],
  };
  return {
    ...config,
    privacy: resolvePrivacy(config.privacy, r.env, r.issues, r.offline),
    accounts: [account],
    warnings: [],
  };
}

/** The accounts form: every problem of the top level and of each account at once. */
function accountsForm(input: Record<string, unknown>, r: Resolving): Written | undefined {
  const config = r.issues.check(accountsFormSchema, input, []);
  const resolved = resolveAccounts(
    {
      source: input.source,
      propertyIds: input.propertyIds,
      accounts: Array.isArray(input.accounts) ? input.accounts : [],
      timeZone: config?.timeZone ?? DEFAULT_TIME_ZONE,
      privacy: input.privacy,
    },
    r,
  );
  if (!config || !resolved) return undefined;
  const { accounts: _, ...rest } = config;
  return {
    ...rest,
    privacy: resolvePrivacy(rest.privacy, r.env, r.issues, r.offline),
    source: resolved.defaults,
    propertyIds: [],
    accounts: resolved.accounts,
    warnings: r.warnings,
  };
}

function resolveConfig(input: unknown, ctx: z.RefinementCtx, env: Env, offline: boolean): OfflineConfig {
  const r: Resolving = { env, offline, issues: new Issues(), warnings: [] };
  const written =
    isMapping(input) && input.accounts !== undefined ? accountsForm(input, r) : oneAccountForm(input, r);
  const config: OfflineConfig | undefined = written && {
    ...written,
    alerts: resolveAlertTargets(written.alerts, {
      env,
      issues: r.issues,
      offline,
      accounts: written.accounts.map((account) => account.id),
    }),
  };
  if (config && !r.issues.size) return config;
  ctx.issues.push(...(r.issues.list as z.core.$ZodRawIssue[]));
  return z.NEVER;
}

/** The `database:` settings: the URL, session limits and reconnect policy. */
export type DatabaseConfig = Config['database'];

/**
 * The whole configuration, source credentials included (sync, backfill, schedule), with the
 * secrets that `passwordEnv` / `apiKeyEnv` name read from `env`. Its `shape` is the one-account
 * form's, for the defaults of single keys (`configSchema.shape.source.shape.pageSize`).
 */
export function configSchemaFor(env: Env) {
  // Online, each account has a URL and complete credentials: any that lacks them is an issue.
  const schema = z.unknown().transform((input, ctx) => resolveConfig(input, ctx, env, false) as Config);
  return Object.assign(schema, { shape: oneAccountSchema.shape });
}

/** The configuration of commands that never call the source (migrate, status, reset): credentials may be absent. */
export function offlineConfigSchemaFor(env: Env) {
  const schema = z.unknown().transform((input, ctx) => resolveConfig(input, ctx, env, true));
  return Object.assign(schema, { shape: offlineOneAccountSchema.shape });
}

/** The whole configuration, secrets read from this process's environment. */
export const configSchema = configSchemaFor(process.env);

/** The configuration of commands that never call the source, secrets read from this process's environment. */
export const offlineConfigSchema = offlineConfigSchemaFor(process.env);
