/**
 * Typed errors of the source client. The sync engine decides by `instanceof` what to do:
 * retry (the client already did, within its bounds), fail the work unit, stop the run
 * (authentication, budget), or quarantine one record (`RecordError`).
 *
 * Messages name the method, property and page so that an operator can act; they never hold
 * the password, the Basic header or the API key (the client scrubs every message it builds or
 * wraps: the secrets of its auth mode).
 */
import { messageOf } from '../log/errors.js';

/** Where a failed call was going: what an operator needs to find it again. */
export interface CallSite {
  /** The method's wire name. */
  method: string;
  /** The property the request was for, when it names one. */
  property?: string;
  /** `page_no` of the call; absent when the request was rejected before any call. */
  page?: number;
}

/** Fields of a source error beyond the call site. */
export interface SourceErrorDetails extends Partial<CallSite> {
  /** The envelope's error code (301, 302, 400, 404, 429, 500) when the reply had one. */
  code?: number;
  /** The HTTP status when a reply came. */
  status?: number;
  /** Attempts made when the client gave up (set by the retry loop). */
  attempts?: number;
  cause?: unknown;
}

function describeSite(details: SourceErrorDetails): string {
  const parts: string[] = [];
  if (details.method) parts.push(details.method);
  if (details.property) parts.push(`property ${details.property}`);
  if (details.page !== undefined) parts.push(`page ${details.page}`);
  return parts.join(', ');
}

/**
 * The base of every error of a call to the source. `retryable` says whether trying the same
 * call again may succeed (throttling, server trouble, timeouts, damaged replies).
 */
export class SourceError extends Error {
  override name = 'SourceError';
  /** The method called, when known. */
  readonly method?: string;
  readonly property?: string;
  readonly page?: number;
  readonly code?: number;
  readonly status?: number;
  /** Whether the same call may succeed when tried again. */
  readonly retryable: boolean = false;
  /** Attempts made before giving up; set by the retry loop. */
  attempts?: number;
  /** The source's own message (or ours), without the call site prefix. */
  readonly detail: string;

  constructor(detail: string, details: SourceErrorDetails = {}) {
    const site = describeSite(details);
    const codes = [
      details.status !== undefined ? `HTTP ${details.status}` : '',
      details.code !== undefined ? `code ${details.code}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    super(
      `${site ? `${site}: ` : ''}${detail}${codes ? ` (${codes})` : ''}`,
      details.cause !== undefined ? { cause: details.cause } : undefined,
    );
    this.detail = detail;
    this.method = details.method;
    this.property = details.property;
    this.page = details.page;
    this.code = details.code;
    this.status = details.status;
    this.attempts = details.attempts;
  }
}

/** Bad credentials: HTTP 401 or envelope code 301. Stop the run and fix the configuration. */
export class AuthenticationError extends SourceError {
  override name = 'AuthenticationError';
}

/** The credential may not use this property or method: envelope code 302 (or HTTP 403). */
export class AccessError extends SourceError {
  override name = 'AccessError';
}

/**
 * An invalid or missing parameter: envelope code 400, or rejected by the client before any
 * call (then `code` and `status` are absent and `parameter` names it).
 */
export class BadParameterError extends SourceError {
  override name = 'BadParameterError';
  /** The parameter at fault, when known. */
  readonly parameter?: string;
  constructor(detail: string, details: SourceErrorDetails & { parameter?: string } = {}) {
    super(detail, details);
    this.parameter = details.parameter;
  }
}

/** Unknown area, method or version: envelope code 404 or HTTP 404. */
export class UnknownMethodError extends SourceError {
  override name = 'UnknownMethodError';
}

/** Throttled: HTTP 429 or envelope code 429. `retryAfterMs` from the `Retry-After` header. */
export class ThrottledError extends SourceError {
  override name = 'ThrottledError';
  override readonly retryable = true;
  /** The wait the source asked for, when it said. */
  readonly retryAfterMs?: number;
  constructor(detail: string, details: SourceErrorDetails & { retryAfterMs?: number } = {}) {
    super(detail, details);
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** Trouble on the source's side: HTTP 5xx or envelope code 500. */
export class ServerError extends SourceError {
  override name = 'ServerError';
  override readonly retryable = true;
}

/**
 * A reply that cannot be read: unparseable or truncated body, no envelope, or a `requestId`
 * that is not the one sent.
 */
export class MalformedReplyError extends SourceError {
  override name = 'MalformedReplyError';
  override readonly retryable = true;
}

/**
 * A reply larger than `source.maxReplyBytes`: refused while it was read (or at once, when its
 * Content-Length said so). Not retryable: the same call would bring the same reply.
 */
export class ReplyTooLargeError extends SourceError {
  override name = 'ReplyTooLargeError';
  /** The configured limit in bytes. */
  readonly limit: number;
  constructor(limit: number, details: SourceErrorDetails & { received: number; announced?: number }) {
    const size =
      details.announced !== undefined
        ? `announced ${details.announced} bytes`
        : `more than ${details.received} bytes read`;
    super(
      `reply too large: ${size}, over the limit of ${limit} bytes (source.maxReplyBytes); ` +
        `refused without retrying — lower source.pageSize or raise source.maxReplyBytes`,
      details,
    );
    this.limit = limit;
  }
}

/**
 * A reply whose decoding ran out of the memory set aside for it (a decoding thread's heap).
 * Not retryable: the same call would bring the same reply.
 */
export class UndecodableReplyError extends SourceError {
  override name = 'UndecodableReplyError';
}

/** Why no reply came: `connect` when the call never reached the source (no connection was made). */
export const TRANSPORT_FAILURES = ['timeout', 'network', 'connect'] as const;
export type TransportFailure = (typeof TRANSPORT_FAILURES)[number];

/** No reply: the request timed out, or the connection was refused, reset or closed early. */
export class TransportError extends SourceError {
  override name = 'TransportError';
  override readonly retryable = true;
  readonly failure: TransportFailure;
  constructor(detail: string, details: SourceErrorDetails & { failure: TransportFailure }) {
    super(detail, details);
    this.failure = details.failure;
  }
}

/**
 * The process's daily call budget is spent: no new call is made until it resets. Not an
 * error of the source; the engine stops new work and records the run as budget-exhausted.
 */
export class BudgetExhaustedError extends SourceError {
  override name = 'BudgetExhaustedError';
  /** The configured budget (calls per America/Denver day). */
  readonly budget: number;
  /** The day the budget was spent on, `YYYY-MM-DD` in its time zone. */
  readonly day: string;
  /** When the budget resets (next midnight in its time zone). */
  readonly resetsAt: Date;
  constructor(
    details: SourceErrorDetails & {
      budget: number;
      day: string;
      resetsAt: Date;
      timeZone: string;
      now: number;
    },
  ) {
    const minutes = Math.max(0, Math.ceil((details.resetsAt.getTime() - details.now) / 60_000));
    const wait = minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
    super(
      `the daily call budget (source.dailyCallBudget = ${details.budget} calls) is spent for ${details.day} ` +
        (`(${details.timeZone}); it resets at ` +
          `midnight ${details.timeZone}, ${details.resetsAt.toISOString()} (in ${wait}). `) +
        'New work stops until then; raise source.dailyCallBudget to go on sooner',
      details,
    );
    this.budget = details.budget;
    this.day = details.day;
    this.resetsAt = details.resetsAt;
  }
}

/**
 * One field of one record does not hold what its type allows. The engine quarantines the
 * record (keeping it raw) and goes on with the others.
 */
export class RecordError extends Error {
  override name = 'RecordError';
  /** The field at fault (a name or dotted path). */
  readonly field: string;
  /** The offending value, as received. */
  readonly value: unknown;
  constructor(field: string, value: unknown, expected: string) {
    super(`field ${field}: ${describeValue(value)} is not ${expected}`);
    this.field = field;
    this.value = value;
  }
}

/** A short, printable rendering of a value for error messages. */
function describeValue(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = JSON.stringify(value);
  else if (value === undefined) text = 'undefined';
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/**
 * The recognizer could not answer (the warehouse, say): no fault of the reply, so not retried as
 * one; `cause` is the recognizer's error (see `readReply`).
 */
export class RecognizerFailure extends Error {
  override name = 'RecognizerFailure';
  constructor(override readonly cause: unknown) {
    super(messageOf(cause));
  }
}
