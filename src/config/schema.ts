import { IANAZone } from 'luxon';
import { z } from 'zod';
import { STREAM_MANIFESTS } from '../streams/registry.js';
import { refuseInsecureHttp } from './insecure-http.js';
import { nonNegativeInt, positiveInt, settingsSchemaOf } from '../streams/settings.js';

import { FORMATS, MAX_TIMER_DELAY_MS, type MethodVersion } from '../source/settings.js';

/** pino levels accepted in `logLevel`. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type Manifest = (typeof STREAM_MANIFESTS)[number];

/** The streams propsync knows, from the stream registry. */
export { STREAM_NAMES, type StreamName } from '../streams/registry.js';

/** The default of `timeZone`: the zone of the source's dates, "today" and the call budget's day. */
const DEFAULT_TIME_ZONE = 'America/Denver';

const postgresUrl = z.string().refine(
  (value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'postgres:' || url.protocol === 'postgresql:';
    } catch {
      return false;
    }
  },
  { message: 'is not a Postgres URL; expected postgres://user@host:5432/database' },
);

const httpUrl = z.string().refine(
  (value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  },
  { message: 'is not an http(s) URL; expected the service base such as https://example.entrata.com' },
);

const propertyId = z.coerce
  .string()
  .regex(/^\d{1,15}$/, { message: 'is not a numeric property id; expected digits such as 100001' });

/** The largest reply size that may be configured: 1 GiB (a Buffer and its text must fit in memory). */
const MAX_REPLY_BYTES_LIMIT = 1024 ** 3;

const retrySchema = z
  .object({
    /** Attempts per call, the first included. */
    maxAttempts: positiveInt.max(20).default(6),
    /** First backoff delay; doubles each attempt, with full jitter. */
    baseDelayMs: positiveInt.default(500),
    /** Longest single backoff delay. */
    maxDelayMs: positiveInt.default(30_000),
    /** Longest total time spent waiting between attempts of one call. */
    maxTotalWaitMs: positiveInt.default(180_000),
  })
  .strict()
  .default({ maxAttempts: 6, baseDelayMs: 500, maxDelayMs: 30_000, maxTotalWaitMs: 180_000 });

const rateLimitSchema = z
  .object({
    /** Calls kept in reserve in every rate-limit window; pacing slows down before reaching them. */
    reserve: nonNegativeInt.default(2),
    /** Smallest gap between two calls of this process, whatever the headers say. */
    minIntervalMs: nonNegativeInt.default(0),
    /** Longest wait a `Retry-After` or a rate-limit reset may impose; longer ones are cut to it, with a warning. */
    maxWaitMs: positiveInt.max(MAX_TIMER_DELAY_MS).default(900_000),
  })
  .strict()
  .default({ reserve: 2, minIntervalMs: 0, maxWaitMs: 900_000 });

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

const databaseSchema = z
  .object({
    url: postgresUrl,
    /** statement_timeout of every session: longest a statement may run. */
    statementTimeoutMs: positiveInt.max(MAX_POSTGRES_MS).default(600_000),
    /** lock_timeout of every session: longest a statement waits for a lock before it fails, naming the lock and its holder. */
    lockTimeoutMs: positiveInt.max(MAX_POSTGRES_MS).default(30_000),
    /** idle_in_transaction_session_timeout of every session: longest a transaction may sit idle. */
    idleInTransactionTimeoutMs: positiveInt.max(MAX_POSTGRES_MS).default(300_000),
    /** statement_timeout of the session that refreshes the reporting views after a run. */
    refreshStatementTimeoutMs: positiveInt.max(MAX_POSTGRES_MS).default(3_600_000),
    reconnect: reconnectSchema,
  })
  .strict();

/** `source.versions.<method>`: the version each stream's method is called in. */
const versionsShape = Object.fromEntries(
  STREAM_MANIFESTS.map(({ method }) => [method.name, z.enum(method.versions as [MethodVersion, ...MethodVersion[]], { message: `expected ${method.versions.join(' or ')}` }).default(method.defaultVersion)]),
) as { [M in Manifest as M['method']['name']]: z.ZodDefault<z.ZodEnum<{ [V in MethodVersion]: V }>> };
const versionsSchema = z.object(versionsShape).strict().prefault({});

/** A flag: true or false, in YAML or as the strings an environment variable holds. */
const flag = z.preprocess(
  (value) => (typeof value === 'string' ? ({ true: true, false: false } as Record<string, boolean>)[value.trim().toLowerCase()] ?? value : value),
  z.boolean({ message: 'expected true or false' }),
);

const sourceFields = z
  .object({
    url: httpUrl,
    /** Allows http:// to a host other than this machine, although the password then crosses the network in clear text. */
    allowInsecureHttp: flag.default(false),
    username: z.string().min(1, { message: 'is empty; expected the API user name' }),
    password: z.string().min(1, { message: 'is missing; expected the API password (set PROPSYNC_API_PASSWORD)' }),
    format: z.enum(FORMATS, { message: 'is not a known format; expected json or xml' }).default('json'),
    /** The version of each stream's method, by method name. */
    versions: versionsSchema,
    /** Records per page (`per_page`), 5 to 1000. */
    pageSize: positiveInt.min(5).max(1000).default(500),
    /** Timeout of one call, headers and body together: at most 10 minutes. */
    requestTimeoutMs: positiveInt.max(600_000).default(60_000),
    /** Largest reply body accepted (bytes, default 64 MiB); a larger one is refused while it is read. */
    maxReplyBytes: positiveInt.max(MAX_REPLY_BYTES_LIMIT).default(64 * 1024 * 1024),
    /** Largest distance (hours) between the source's `Date` and the local clock before it is ignored; 0 trusts any. */
    maxClockSkewHours: nonNegativeInt.default(36),
    retry: retrySchema,
    rateLimit: rateLimitSchema,
    /** Calls this process may spend per day (a day in timeZone); new work stops when spent. */
    dailyCallBudget: positiveInt.default(10_000),
    /** Work units run at once. */
    concurrency: positiveInt.max(32).default(4),
    /** Most pages one listing may take; a listing still going on after them fails its unit (a source that never ends). */
    maxPages: positiveInt.default(100_000),
    /** Threads that decode XML replies (1 to 16); unset: one per core beyond the first, at least one, at most four. */
    decodeThreads: positiveInt.max(16).optional(),
  })
  .strict();
const sourceSchema = sourceFields.superRefine(refuseInsecureHttp);

/** `streams.<name>`: each stream's own settings, declared in its folder. */
const withDefaults = (settings: z.ZodType) => settings.default(settings.parse({}));
const streamsShape = Object.fromEntries(STREAM_MANIFESTS.map((manifest) => [manifest.name, withDefaults(settingsSchemaOf(manifest))])) as unknown as {
  [M in Manifest as M['name']]: z.ZodDefault<ReturnType<M['settings']>>;
};
const streamsSchema = z.object(streamsShape).strict();

/** The whole configuration; every key documented in config/propsync.example.yaml. */
export const configSchema = z
  .object({
    database: databaseSchema,
    source: sourceSchema,
    /** Properties to sync; empty means every property the credential can see (getProperties). */
    propertyIds: z.array(propertyId).default([]),
    timeZone: z
      .string()
      .refine((zone) => IANAZone.isValidZone(zone), { message: `is not an IANA time zone; expected ${DEFAULT_TIME_ZONE}` })
      .default(DEFAULT_TIME_ZONE),
    logLevel: z.enum(LOG_LEVELS, { message: `expected one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    /** Minutes without a heartbeat after which `status` shows a run still marked running as abandoned (its process died). */
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
  })
  .strict();

/** The configuration after validation and defaults. */
export type Config = z.infer<typeof configSchema>;
export type SourceConfig = Config['source'];
/** The `database:` settings: the URL, session limits and reconnect policy. */
export type DatabaseConfig = Config['database'];

/**
 * The configuration of commands that never call the source (migrate, status, reset): the
 * same keys, but the source's credentials may be absent.
 */
export const offlineConfigSchema = configSchema.extend({ source: sourceFields.partial().optional() });
export type OfflineConfig = z.infer<typeof offlineConfigSchema>;
