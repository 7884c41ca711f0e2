import { validate as isValidCron } from 'node-cron';
import { IANAZone } from 'luxon';
import { z } from 'zod';

/** Response formats the source speaks. */
export const FORMATS = ['json', 'xml'] as const;
export type Format = (typeof FORMATS)[number];

/** Versions of the source's read methods. */
export const METHOD_VERSIONS = ['r1', 'r2'] as const;
export type MethodVersion = (typeof METHOD_VERSIONS)[number];

/** pino levels accepted in `logLevel`. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The streams propsync knows. */
export const STREAM_NAMES = ['leases', 'invoices'] as const;
export type StreamName = (typeof STREAM_NAMES)[number];

/** Backfill chunk sizes: one month, three months, one year. */
export const CHUNK_SIZES = ['1m', '3m', '1y'] as const;
export type ChunkSize = (typeof CHUNK_SIZES)[number];

const cron = z
  .string()
  .refine((value) => isValidCron(value), { message: 'is not a valid cron expression; expected five or six fields such as "0 2 * * *"' });

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

const positiveInt = z.coerce.number().int().positive();
/** The longest delay a Node timer holds: 2^31 - 1 ms (about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;
/** The largest reply size that may be configured: 1 GiB (a Buffer and its text must fit in memory). */
const MAX_REPLY_BYTES_LIMIT = 1024 ** 3;
const nonNegativeInt = z.coerce.number().int().nonnegative();

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

const sourceSchema = z
  .object({
    url: httpUrl,
    username: z.string().min(1, { message: 'is empty; expected the API user name' }),
    password: z.string().min(1, { message: 'is missing; expected the API password (set PROPSYNC_API_PASSWORD)' }),
    format: z.enum(FORMATS, { message: 'is not a known format; expected json or xml' }).default('json'),
    versions: z
      .object({
        getLeases: z.enum(METHOD_VERSIONS, { message: 'expected r1 or r2' }).default('r2'),
        getInvoices: z.enum(METHOD_VERSIONS, { message: 'expected r1 or r2' }).default('r2'),
      })
      .strict()
      .default({ getLeases: 'r2', getInvoices: 'r2' }),
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
    /** Calls this process may spend per day (America/Denver day); new work stops when spent. */
    dailyCallBudget: positiveInt.default(10_000),
    /** Work units run at once. */
    concurrency: positiveInt.max(32).default(4),
  })
  .strict();

const leasesStreamSchema = z
  .object({
    enabled: z.boolean().default(true),
    schedule: cron.default('15 2 * * *'),
    /** Move-outs looked at again this many days back, since AR activity goes on after move-out. */
    lookbackDays: nonNegativeInt.default(60),
    /** Days between two full refreshes of one property (spread over the days). */
    fullRefreshDays: positiveInt.default(7),
    /** Chunk size of a backfill, by move-in date. */
    chunk: z.enum(CHUNK_SIZES, { message: 'expected 1m, 3m or 1y' }).default('1y'),
  })
  .strict();

const invoicesStreamSchema = z
  .object({
    enabled: z.boolean().default(true),
    schedule: cron.default('45 2 * * *'),
    /** Overlap re-read behind each cursor (the post-date window also reaches the previous month's first day). */
    lookbackDays: nonNegativeInt.default(7),
    /** Longest date window of one work unit. */
    windowDays: positiveInt.default(92),
    /** Days between two full re-reads of a property group's invoices (catches changes no date window shows, such as an old invoice marked exported). */
    fullRefreshDays: positiveInt.default(7),
    /** Properties batched into one `propertyIds` call. */
    propertyGroupSize: positiveInt.max(500).default(50),
    /** Chunk size of a backfill, by post date. */
    chunk: z.enum(CHUNK_SIZES, { message: 'expected 1m, 3m or 1y' }).default('3m'),
  })
  .strict();

/** The whole configuration; every key documented in config/propsync.example.yaml. */
export const configSchema = z
  .object({
    database: z.object({ url: postgresUrl }).strict(),
    source: sourceSchema,
    /** Properties to sync; empty means every property the credential can see (getProperties). */
    propertyIds: z.array(propertyId).default([]),
    timeZone: z
      .string()
      .refine((zone) => IANAZone.isValidZone(zone), { message: 'is not an IANA time zone; expected America/Denver' })
      .default('America/Denver'),
    logLevel: z.enum(LOG_LEVELS, { message: `expected one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    streams: z
      .object({
        leases: leasesStreamSchema.default(leasesStreamSchema.parse({})),
        invoices: invoicesStreamSchema.default(invoicesStreamSchema.parse({})),
      })
      .strict()
      .default({ leases: leasesStreamSchema.parse({}), invoices: invoicesStreamSchema.parse({}) }),
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
export type LeasesStreamConfig = Config['streams']['leases'];
export type InvoicesStreamConfig = Config['streams']['invoices'];

/**
 * The configuration of commands that never call the source (migrate, status, reset): the
 * same keys, but the source's credentials may be absent.
 */
export const offlineConfigSchema = configSchema.extend({ source: sourceSchema.partial().optional() });
export type OfflineConfig = z.infer<typeof offlineConfigSchema>;
