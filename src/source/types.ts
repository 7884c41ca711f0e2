/**
 * The source client's public contract: what the sync engine and the CLI use. The client
 * (envelope, codecs, transport, paging, pacing, retries, errors) implements it in this folder.
 */

/** Read methods of the source that propsync calls. */
export const SOURCE_METHODS = ['getLeases', 'getInvoices', 'getProperties'] as const;
export type SourceMethod = (typeof SOURCE_METHODS)[number];

/**
 * A parameter value before encoding: strings pass as they are, numbers become digit strings,
 * booleans `"0"`/`"1"`, `Date` or `YYYY-MM-DD` strings of date parameters `MM/DD/YYYY` in
 * America/Denver, arrays of ids one comma-separated string.
 */
export type ParamValue = string | number | boolean | Date | readonly (string | number)[];

/** One logical request: a method with its parameters, paged by the client. */
export interface SourceRequest {
  method: SourceMethod;
  params: Record<string, ParamValue | undefined>;
  /** What the call is for, carried into log lines and errors (never sent). */
  context?: { runId?: number; stream?: string; property?: string; workUnit?: string };
}

/** One page of a request, decoded. */
export interface SourcePage {
  /** 1-based page number (`page_no`). */
  pageNo: number;
  perPage: number;
  /**
   * The records of the page (`result.leases.lease`, `result.invoices.invoice`,
   * `result.PhysicalProperty.Property`), always an array (empty for "No records found"),
   * each a plain tree identical for JSON and XML: every scalar leaf a string.
   */
  records: unknown[];
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
  method: SourceMethod;
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
  /** Calls left in today's budget of this process. */
  budgetLeft: number;
  throttled: boolean;
  /** Set when this attempt failed; the error's message. */
  error?: string;
  /** True when the client will try again. */
  willRetry: boolean;
}

/** A property as getProperties describes it. */
export interface SourceProperty {
  id: string;
  name: string;
  disabled: boolean;
}

/** Counters of one client since it was made. */
export interface ClientStats {
  calls: number;
  retries: number;
  throttled: number;
  bytes: number;
  budgetLeft: number;
}

/** The client of the source API; one per process, shared by all work (pacing, budget). */
export interface SourceClient {
  /**
   * The pages of one request, fetched one at a time as the caller asks for them (only one
   * page in memory), starting at `startPage` (default 1), ending after the last page.
   */
  pages(request: SourceRequest, options?: { startPage?: number; signal?: AbortSignal }): AsyncGenerator<SourcePage, void, undefined>;
  /** Every property the credential sees (all pages of getProperties). */
  properties(options?: { signal?: AbortSignal }): Promise<SourceProperty[]>;
  /**
   * The source's "today" as `YYYY-MM-DD`: the date in America/Denver of the latest reply's
   * HTTP `Date` header, or of the local clock when no reply has come yet.
   */
  today(): string;
  stats(): ClientStats;
  /** Closes the keep-alive pool. */
  close(): Promise<void>;
}
