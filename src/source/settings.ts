/**
 * What the source client is told: the formats and method versions the source speaks, and the
 * plain settings of one client. The configuration's schema validates into this shape; the
 * client never reads the configuration itself.
 */

/** Response formats the source speaks. */
export const FORMATS = ['json', 'xml'] as const;
export type Format = (typeof FORMATS)[number];

/** Versions of the source's read methods. */
export const METHOD_VERSIONS = ['r1', 'r2'] as const;
export type MethodVersion = (typeof METHOD_VERSIONS)[number];

/** The longest delay a Node timer holds: 2^31 - 1 ms (about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** When a failed call is tried again (`source.retry`). */
export interface RetrySettings {
  /** Attempts per call, the first included. */
  maxAttempts: number;
  /** First backoff delay; doubles each attempt, with full jitter. */
  baseDelayMs: number;
  /** Longest single backoff delay. */
  maxDelayMs: number;
  /** Longest total time spent waiting between attempts of one call. */
  maxTotalWaitMs: number;
}

/** How calls are paced against the source's rate limits (`source.rateLimit`). */
export interface RateLimitSettings {
  /** Calls kept in reserve in every rate-limit window. */
  reserve: number;
  /** Smallest gap between two calls of this process. */
  minIntervalMs: number;
  /** Longest wait a `Retry-After` or a rate-limit reset may impose. */
  maxWaitMs: number;
}

/**
 * The auth modes of the source: Basic auth at `/api/v1/{area}`, or the API-key gateway at `/ext/orgs/{org}/v1/{area}`.
 */
export const AUTH_TYPES = ['basic', 'apikey'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

/** Basic auth: `Authorization: Basic base64(username:password)`, the envelope as multipart form parts. */
export interface BasicAuth {
  type: 'basic';
  username: string;
  password: string;
}

/** The API-key gateway: `X-Api-Key: KEY` on `/ext/orgs/{org}/v1/{area}`, the envelope as a JSON body. */
export interface ApiKeyAuth {
  type: 'apikey';
  /** The organisation the key belongs to (a path segment of the gateway's URL; not a secret). */
  org: string;
  apiKey: string;
}

/** How a client proves who it is; every difference the mode makes is in `auth-modes.ts`. */
export type SourceAuth = BasicAuth | ApiKeyAuth;

/** Everything one source client needs to know of its source. */
export interface SourceSettings {
  /** The service base: the account's host for Basic auth, the gateway's (`https://apis.entrata.com`) for an API key. */
  url: string;
  auth: SourceAuth;
  /** What an operator checks when the source refuses the credential, in the words of the configuration. */
  credentialHint?: string;
  format: Format;
  /** The version of each method, by method name; a method's default where absent. */
  versions: Readonly<Partial<Record<string, MethodVersion>>>;
  pageSize: number;
  requestTimeoutMs: number;
  maxReplyBytes: number;
  /** Largest distance (hours) between the source's `Date` and the local clock before it is ignored; 0 trusts any. */
  maxClockSkewHours: number;
  retry: RetrySettings;
  rateLimit: RateLimitSettings;
  dailyCallBudget: number;
  concurrency: number;
  maxPages: number;
  decodeThreads?: number;
}
