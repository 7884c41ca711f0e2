/**
 * The parts of the configuration's schema that both forms share (the one-account `source:` and
 * each account's `source:`): URLs, ids, the time zone and the source's settings.
 */
import { IANAZone } from 'luxon';
import { z } from 'zod';
import { refuseInsecureHttp } from './insecure-http.js';
import { STREAM_MANIFESTS } from '../streams/registry.js';
import { nonNegativeInt, positiveInt } from '../streams/settings.js';
import { FORMATS, MAX_TIMER_DELAY_MS, type MethodVersion } from '../source/settings.js';

/** Environment variables by name. */
export type Env = Readonly<Record<string, string | undefined>>;

type Manifest = (typeof STREAM_MANIFESTS)[number];

/** The default of `timeZone`: the zone of the source's dates, "today" and the call budget's day. */
export const DEFAULT_TIME_ZONE = 'America/Denver';

/** A URL of one of `protocols`, else `message`. */
function urlOf(protocols: readonly string[], message: string) {
  return z
    .string()
    .refine((value) => URL.canParse(value) && protocols.includes(new URL(value).protocol), { message });
}

export const postgresUrl = urlOf(
  ['postgres:', 'postgresql:'],
  'is not a Postgres URL; expected postgres://user@host:5432/database',
);

export const httpUrl = urlOf(
  ['http:', 'https:'],
  'is not an http(s) URL; expected the service base such as https://example.entrata.com',
);

export const propertyId = z.coerce
  .string()
  .regex(/^\d{1,15}$/, { message: 'is not a numeric property id; expected digits such as 100001' });

/** An IANA time zone name (`timeZone`, and an account's `source.timeZone`). */
export const timeZoneName = z.string().refine((zone) => IANAZone.isValidZone(zone), {
  message: `is not an IANA time zone; expected ${DEFAULT_TIME_ZONE}`,
});

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

/** `source.versions.<method>`: the version each stream's method is called in. */
const versionsShape = Object.fromEntries(
  STREAM_MANIFESTS.map(({ method }) => [
    method.name,
    z
      .enum(method.versions as [MethodVersion, ...MethodVersion[]], {
        message: `expected ${method.versions.join(' or ')}`,
      })
      .default(method.defaultVersion),
  ]),
) as { [M in Manifest as M['method']['name']]: z.ZodDefault<z.ZodEnum<{ [V in MethodVersion]: V }>> };
const versionsSchema = z.object(versionsShape).strict().prefault({});

/** A flag: true or false, in YAML or as the strings an environment variable holds. */
const flag = z.preprocess(
  (value) =>
    typeof value === 'string'
      ? (({ true: true, false: false } as Record<string, boolean>)[value.trim().toLowerCase()] ?? value)
      : value,
  z.boolean({ message: 'expected true or false' }),
);

/** The source's settings besides where it is and who calls it: shared by the one-account form and the accounts. */
export const sourceSettingsShape = {
  /**
   * Allows http:// to a host other than this machine, although the credential then crosses the network in clear text.
   */
  allowInsecureHttp: flag.default(false),
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
};

/** `source:` of the one-account form: the source, its Basic credentials included. */
export const sourceSchema = z
  .object({
    url: httpUrl,
    username: z.string().min(1, { message: 'is empty; expected the API user name' }),
    password: z
      .string()
      .min(1, { message: 'is missing; expected the API password (set PROPSYNC_API_PASSWORD)' }),
    ...sourceSettingsShape,
  })
  .strict();

/** `source:` of the one-account form, http:// to another machine refused (see insecure-http.ts). */
export const checkedSourceSchema = sourceSchema.superRefine(refuseInsecureHttp);

/** `source:` of the one-account form, after validation and defaults. */
export type SourceConfig = z.output<typeof sourceSchema>;
