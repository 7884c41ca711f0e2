/**
 * The source client's public contract: what the sync engine and the CLI use. The client
 * (envelope, codecs, transport, paging, pacing, retries, errors) implements it in this folder.
 * A method is described by the stream that reads it (`SourceMethod`), never coded here.
 */
import type { MethodVersion } from './settings.js';
import type { RateWindowState } from './rate-headers.js';

/**
 * A parameter value before encoding: strings pass as they are, numbers become digit strings,
 * booleans `"0"`/`"1"`, `Date` or `YYYY-MM-DD` strings of date parameters `MM/DD/YYYY` in
 * the configured time zone, arrays of ids one comma-separated string.
 */
export type ParamValue = string | number | boolean | Date | readonly (string | number)[];

/** Kinds of parameter values, each with its encoding (see `encodeParams`). */
export const PARAM_KINDS = ['id', 'idList', 'text', 'date', 'boolean', 'postMonth'] as const;
export type ParamKind = (typeof PARAM_KINDS)[number];

/** One parameter of a method. */
export interface ParamSpec {
  kind: ParamKind;
  required?: boolean;
  /** Versions that take it; every version when absent. */
  versions?: readonly MethodVersion[];
}

/** Parameters of a request before encoding, by wire name. */
export type RequestParams = Record<string, ParamValue | undefined>;

/**
 * A read method of the source, as the stream that calls it describes it: everything the
 * client needs to build its envelope, page it and find its records.
 */
export interface SourceMethod {
  /** The method's name on the wire (`method.name` of the envelope). */
  name: string;
  /** The URL area it is served under (`/api/v1/<area>`). */
  area: string;
  /** Versions the method is spoken in; the configuration (`source.versions.<name>`) may pick one. */
  versions: readonly MethodVersion[];
  /** The version used when the configuration names none. */
  defaultVersion: MethodVersion;
  /** Where its records sit under `response.result`: a container and its item key. */
  records: readonly [container: string, item: string];
  /** Its parameters, by wire name. */
  params: Readonly<Record<string, ParamSpec>>;
  /**
   * Rewrites the parameters for a version before they are checked (a filter renamed between
   * versions); may throw `BadParameterError`.
   */
  adapt?(params: RequestParams, version: MethodVersion): RequestParams;
}

/** One logical request: a method with its parameters, paged by the client. */
export interface SourceRequest {
  method: SourceMethod;
  params: RequestParams;
  /** What the call is for, carried into log lines and errors (never sent). */
  context?: { runId?: number; stream?: string; property?: string; workUnit?: string };
}

/**
 * Lets the client pass over the records its caller already holds exactly as sent, without
 * decoding them (XML replies, where decoding is most of a sync's work): the client digests
 * each record's text, with `salt`, and asks `lookup` which digests the caller holds.
 */
export interface RecordRecognizer {
  /**
   * Mixed into every digest: whatever besides the text decides what a record loads as (the normalization's
   * and the method's versions).
   */
  salt: string;
  /** The key of each record the caller holds, by the digest of its text, among `digests`. */
  lookup(digests: readonly string[]): Promise<ReadonlyMap<string, string>>;
}

/** A record of a page passed over undecoded: the caller holds it as it is (see `RecordRecognizer`). */
export class KnownRecord {
  constructor(
    /** The record's key, as the caller gave it. */
    readonly key: string,
  ) {}
}

/** One page of a request, decoded. */
export interface SourcePage {
  /** 1-based page number (`page_no`). */
  pageNo: number;
  perPage: number;
  /**
   * The records of the page (under the method's `records` path), always an array (empty for
   * "No records found"), each a plain tree identical for JSON and XML: every scalar leaf a string;
   * or, when the caller passed a `RecordRecognizer`, a `KnownRecord` for a record it holds.
   */
  records: unknown[];
  /**
   * With a `RecordRecognizer`: the digest of each record's text (by the index of `records`), when the reply
   * was digested.
   */
  textDigests?: readonly string[];
  /** `X-Total-Count` or the body's pagination total, when the source sent one. */
  totalCount?: number;
  /** True when no page follows. */
  isLast: boolean;
  /** Bytes of the reply body. */
  bytes: number;
  /** HTTP calls made for this page (1 + retries). */
  calls: number;
  /** Retries among those calls, and how many of them answered 429. */
  retries: number;
  throttled: number;
  /** The reply's HTTP `Date`, when sent. */
  serverDate?: Date;
}

/** One HTTP call, for logs, metrics and progress. */
export interface CallEvent {
  /** The method's wire name. */
  method: string;
  /** The sync run the call belongs to, when the caller said. */
  runId?: number;
  property?: string;
  stream?: string;
  workUnit?: string;
  page: number;
  attempt: number;
  /** HTTP status, or undefined when no reply came (timeout, reset). */
  status?: number;
  ms: number;
  bytes: number;
  /** Calls left in the tightest rate-limit window after this call, when announced. */
  remaining?: number;
  /** Calls left in the account's budget today, every process's calls counted. */
  budgetLeft: number;
  throttled: boolean;
  /** Set when this attempt failed; the error's message. */
  error?: string;
  /** True when the client will try again. */
  willRetry: boolean;
}

/** Counters of one client since it was made. */
export interface ClientStats {
  calls: number;
  retries: number;
  throttled: number;
  bytes: number;
  budgetLeft: number;
}

/** Where `pages` starts, what stops it, and what it may pass over. */
export interface PagesOptions {
  startPage?: number;
  signal?: AbortSignal;
  recognize?: RecordRecognizer;
  /**
   * Fetch the next page while the caller works on this one (two pages in memory at most): for
   * callers whose `recognize` does not depend on what they do with a page (a first load's).
   */
  prefetch?: boolean;
  /** With `prefetch`: the calls of a page fetched ahead that the caller never took (it stopped first). */
  onUnused?: (calls: number) => void | Promise<void>;
  /**
   * Keep each page's reply for one later reader of the same request and page (`reuse`), for a
   * few minutes: a run's discovery listing, which its properties stream reads whole again.
   */
  keep?: boolean;
  /** Take a page's reply kept by an earlier reader (`keep`) instead of calling again; calls 0. */
  reuse?: boolean;
}

/** The client of the source API; one per process, shared by all work (pacing, budget). */
export interface SourceClient {
  /**
   * The pages of one request, fetched one at a time as the caller asks for them (only one
   * page in memory; with `prefetch`, the next one is fetched meanwhile), starting at `startPage`
   * (default 1), ending after the last page.
   */
  pages(request: SourceRequest, options?: PagesOptions): AsyncGenerator<SourcePage, void, undefined>;
  /**
   * The source's "today" as `YYYY-MM-DD`: the date in the configured time zone of the latest
   * reply's HTTP `Date` header, or of the local clock when no reply has come yet.
   */
  today(): string;
  /**
   * The day of the latest reply's `Date` when it was ignored for running ahead of the local clock past the
   * allowed skew (`today()` is then the local day, and the source's days after it go unread); else undefined.
   */
  dayAhead?(): string | undefined;
  /** The version a method is called in: `source.versions.<name>` when set, else the method's default. */
  versionOf(method: SourceMethod): MethodVersion;
  stats(): ClientStats;
  /** Closes the keep-alive pool. */
  close(): Promise<void>;
}

/**
 * What every process calling one account's source shares, passed before each call (after this
 * process's own pacing): a call's turn under the rate limits and its call of the day's budget.
 * Implemented outside the client (rows in the warehouse, see docs/operating.md#workers).
 */
export interface CallGate {
  /**
   * Reserves one call of `method`, booked against the day's budget: milliseconds until it may start, or `null`
   * when the budget is spent (nothing booked).
   */
  reserve(method: string): Promise<number | null>;
  /** Gives back a reserved call that never reached the source (its connection was refused). */
  release(method: string): Promise<void>;
  /** Calls left in today's budget, as the last reservation (or the opening reading) left it. */
  left(): number;
  /** Tells what a reply of `method` announced of its rate-limit windows. */
  observe(method: string, windows: readonly RateWindowState[]): Promise<void>;
}
