/**
 * The source client: pages of a request through envelope, pacing, budget, transport, decoding
 * and retries, with one log event and one `CallEvent` per HTTP call.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log/logger.js';
import { scrubSecrets } from '../log/redact.js';
import { authModeOf } from './auth-modes.js';
import { DailyBudget, processGate } from './budget.js';
import { SourceClock } from './clock.js';
import { CONTENT_TYPES, jsonEnvelope, xmlEnvelope } from './envelope.js';
import { SourceError, ThrottledError, TransportError, type CallSite } from './errors.js';
import { Pacer } from './pacing.js';
import {
  effectivePageSize,
  isLastPage,
  pageCap,
  parseLinkHeader,
  parseTotalCount,
  totalAgrees,
} from './paging.js';
import { decodeJsonRecognizing } from './codec-json-split.js';
import { assertRoomToDecode } from './decode-memory.js';
import { encodeParams } from './params.js';
import { parseRateLimitHeaders, parseRetryAfter, tightestRemaining } from './rate-headers.js';
import { decodeBytes, readReply, type BodyDecoder } from './reply.js';
import { RetrySchedule, timerDelay } from './retry.js';
import { Transport } from './transport.js';
import { KeptReplies, type SentReply } from './kept-replies.js';
import type { XmlDecoder } from './xml-decoder.js';
import type { MethodVersion, SourceSettings } from './settings.js';
import type {
  CallEvent,
  CallGate,
  ClientStats,
  PagesOptions,
  RecordRecognizer,
  SourceClient,
  SourceMethod,
  SourcePage,
  SourceRequest,
} from './types.js';

/** Options of `createSourceClient`. */
export interface SourceClientOptions {
  /** The source's settings (validated by the caller). */
  settings: SourceSettings;
  /** Zone of the source's dates, "today" and the budget's day (the configured `timeZone`). */
  timeZone: string;
  /** One event per call goes here (info; warn for a failed attempt). */
  logger?: Logger;
  /** Called after every HTTP call (each attempt), for progress and metrics. */
  onCall?: (event: CallEvent) => void;
  /** Ask for the pagination block in the body as well (`X-Send-Pagination-Links: 1`). */
  sendPaginationLinks?: boolean;
  /** The local clock in epoch milliseconds (tests); pacing always uses the monotonic clock. */
  now?: () => number;
  /**
   * Pacing: spread a rate-limit window's calls once its reset is this close (default 10
   * minutes; `Infinity` spreads every window, the day's included, over its whole length).
   */
  spreadWithinMs?: number;
  /**
   * The one place each call is booked against the day's budget before it goes, shared with every other
   * process calling the account, and its turn under their pacing; default: a budget of this process alone.
   */
  gate?: CallGate;
}

/** How long a stopped page fetched ahead is waited for, to tell its calls. */
const DROP_WAIT_MS = 2_000;

/** The version a method is called in: the configured one (`source.versions.<name>`), else the method's default. */
function versionOf(settings: SourceSettings, method: SourceMethod): MethodVersion {
  return settings.versions[method.name] ?? method.defaultVersion;
}

/**
 * Replaces the auth mode's secrets (password and Basic token, or API key) in an error's message and stack,
 * and its causes'.
 */
function scrubError(error: unknown, secrets: readonly string[]): unknown {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    const target = current;
    const message = scrubSecrets(target.message, secrets);
    const stack = target.stack === undefined ? undefined : scrubSecrets(target.stack, secrets);
    try {
      if (message !== target.message) target.message = message;
      if (stack !== target.stack) target.stack = stack;
    } catch {
      // A read-only message (a DOMException abort reason) holds nothing of ours.
    }
    current = (target as { cause?: unknown }).cause;
  }
  return error;
}

/**
 * Makes the client of the source. One per process: its pacing, concurrency limit and daily
 * budget are shared by every request made through it.
 */
export function createSourceClient(options: SourceClientOptions): SourceClient {
  const { settings } = options;
  const { timeZone } = options;
  // Every difference between Basic auth and the API-key gateway is in the mode (auth-modes.ts).
  const auth = authModeOf(settings.auth, settings.format, settings.credentialHint);
  const logger = options.logger?.child({ component: 'source' });
  const clock = new SourceClock({
    timeZone,
    now: options.now,
    maxSkewMs: settings.maxClockSkewHours * 3_600_000,
    logger,
  });
  // The budget counts days on the local clock (in the source's zone): a reply's Date header
  // must not start a new budget day. The gate books every call; this budget names a refusal (and counts
  // the calls of a client that shares nothing).
  const budget = new DailyBudget(settings.dailyCallBudget, new SourceClock({ timeZone, now: options.now }));
  const gate = options.gate ?? processGate(budget);
  const pacer = new Pacer({
    reserve: settings.rateLimit.reserve,
    minIntervalMs: settings.rateLimit.minIntervalMs,
    concurrency: settings.concurrency,
    spreadWithinMs: options.spreadWithinMs,
    maxWaitMs: settings.rateLimit.maxWaitMs,
    logger,
  });
  const transport = new Transport({
    url: settings.url,
    auth,
    timeoutMs: settings.requestTimeoutMs,
    connections: settings.concurrency,
    sendPaginationLinks: options.sendPaginationLinks,
    maxReplyBytes: settings.maxReplyBytes,
  });
  // XML is decoded on other threads (see xml-decoder.ts); JSON on this one.
  // Loaded with the first XML reply: a JSON account's start loads no thread pool.
  let xml: Promise<XmlDecoder> | undefined;
  const xmlDecoder = () =>
    (xml ??= import('./xml-decoder.js').then(({ createXmlDecoder }) =>
      createXmlDecoder({ threads: settings.decodeThreads }),
    ));
  // XML's bytes go to a decoding thread as they are (no text of them on this one); the records a
  // recognizer holds are passed over there. JSON is decoded here, the records a recognizer holds
  // passed over unparsed.
  const decoderFor =
    (recognizer: RecordRecognizer | undefined): BodyDecoder =>
    (format, body, records) => {
      if (format === 'xml' && settings.format === 'xml')
        return xmlDecoder().then((decoder) =>
          decoder.decode(body, ['result', records[0]], recognizer && { item: records[1], recognizer }),
        );
      assertRoomToDecode(body.length);
      if (format === 'json' && recognizer) return decodeJsonRecognizing(body, records, recognizer);
      return decodeBytes(format, body, records);
    };
  const { secrets } = auth;
  const idPrefix = randomBytes(3).toString('hex');
  let requestSeq = 0;
  let closed = false;
  const totals = { calls: 0, retries: 0, throttled: 0, bytes: 0 };
  const kept = new KeptReplies(options.now);
  /** What names a page's reply among those kept: the request as sent, and its page. */
  const keptKey = (
    request: SourceRequest,
    version: MethodVersion,
    params: Record<string, string>,
    pageNo: number,
  ) => JSON.stringify([request.method.area, request.method.name, version, params, pageNo, settings.pageSize]);

  function emit(event: CallEvent): void {
    if (logger) {
      const line = { event: 'source.call', ...event };
      if (event.error) logger.warn(line, `source call failed: ${event.error}`);
      else logger.info(line, 'source call');
    }
    options.onCall?.(event);
  }

  /** What one attempt got to: whether the call went out (and reached the source), and what came back. */
  interface Trace {
    sent: boolean;
    /** The call reached the source: it is one of the day's calls (false when no connection was made). */
    reached: boolean;
    sentAt: number;
    /** When the reply (or the failure) ended. */
    endedAt?: number;
    status?: number;
    bytes: number;
    /** The reply's `Date`, when sent. */
    serverDate?: Date;
    remaining?: number;
  }

  /**
   * Books the call and waits for its turn among every process (its reserved start), or refuses it when the
   * budget is spent (nothing booked). A call stopped while it waits gives its booking back.
   */
  async function takeTurn(method: string, site: CallSite, signal: AbortSignal | undefined): Promise<void> {
    const wait = await gate.reserve(method);
    if (wait === null) return budget.refuse(site);
    if (wait > 0)
      await sleep(timerDelay(wait), undefined, { signal }).catch(async (aborted: unknown) => {
        await gate.release(method).catch(() => {});
        throw aborted;
      });
  }

  /** Gives back the booking of a call that never reached the source; a failure to is logged (the call stays booked). */
  async function giveBack(method: string): Promise<void> {
    await gate
      .release(method)
      .catch((error: Error) =>
        logger?.warn(
          { event: 'budget_release_failed', err: error.message },
          `could not give back the budget of a call that never reached the source: ${error.message}`,
        ),
      );
  }

  /** One HTTP call (one attempt); the reply's headers are taken in whatever its status. */
  async function attempt(
    request: SourceRequest,
    site: CallSite,
    params: Record<string, string>,
    version: MethodVersion,
    trace: Trace,
    signal: AbortSignal | undefined,
  ): Promise<SentReply> {
    if (closed) throw new SourceError('the source client is closed', site);
    const method = request.method;
    const ticket = await pacer.acquire(method.name, signal);
    try {
      await takeTurn(method.name, site, signal);
      const requestId = `${idPrefix}-${++requestSeq}`;
      const envelope = settings.format === 'xml' ? xmlEnvelope : jsonEnvelope;
      const body = envelope(requestId, method.name, version, params, auth.envelopeAuthType);
      trace.sent = true;
      trace.sentAt = performance.now();
      const reply = await transport
        .send({
          area: method.area,
          pageNo: site.page!,
          perPage: settings.pageSize,
          body,
          contentType: CONTENT_TYPES[settings.format],
          site,
          signal,
        })
        .catch(async (error: unknown) => {
          // A call that made no connection is not one of the day's calls: its booking goes back.
          if (error instanceof TransportError && error.failure === 'connect') await giveBack(method.name);
          else {
            trace.reached = true;
            totals.calls += 1;
          }
          throw error;
        });
      trace.reached = true;
      totals.calls += 1;
      const windows = parseRateLimitHeaders(
        reply.headers['x-ratelimit-limit'],
        reply.headers['x-ratelimit-remaining'],
        reply.headers['x-ratelimit-reset'],
      );
      pacer.observe(ticket, windows);
      gate
        .observe(method.name, windows)
        .catch((error: Error) =>
          logger?.warn(
            { event: 'pacing_share_failed', err: error.message },
            `could not share the rate-limit headers: ${error.message}`,
          ),
        );
      trace.serverDate = clock.observe(reply.headers.date);
      totals.bytes += reply.body.length;
      trace.status = reply.status;
      trace.bytes = reply.body.length;
      trace.remaining = tightestRemaining(windows);
      if (reply.status === 429) {
        const wait = parseRetryAfter(reply.headers['retry-after'], clock.nowMs());
        if (wait !== undefined) pacer.pause(method.name, wait);
      }
      return {
        status: reply.status,
        headers: reply.headers,
        body: reply.body,
        requestId,
        release: reply.release,
      };
    } finally {
      if (trace.sent) trace.endedAt = performance.now();
      pacer.release(ticket);
    }
  }

  /** A reply read into its page: records, total, whether it is the last. */
  async function readPage(
    request: SourceRequest,
    pageNo: number,
    site: CallSite,
    reply: SentReply,
    decode: BodyDecoder,
    counts: { calls: number; retries: number; throttled: number },
    trace: { bytes: number; serverDate?: Date },
  ): Promise<SourcePage> {
    const read = await readReply(
      {
        format: settings.format,
        status: reply.status,
        body: reply.body,
        records: request.method.records,
        requestId: reply.requestId,
        site,
        retryAfterMs: parseRetryAfter(reply.headers['retry-after'], clock.nowMs()),
        credentialHint: auth.credentialHint,
      },
      decode,
    );
    const totalCount = parseTotalCount(reply.headers['x-total-count']) ?? read.pagination?.totalCount;
    const perPage = effectivePageSize(settings.pageSize, read.pagination?.perPage);
    const links = parseLinkHeader(reply.headers.link) ?? read.pagination?.links;
    return {
      pageNo,
      perPage,
      records: read.records,
      ...(read.textDigests ? { textDigests: read.textDigests } : {}),
      totalCount,
      isLast: isLastPage({ pageNo, perPage, count: read.records.length, totalCount, links }),
      bytes: trace.bytes,
      calls: counts.calls,
      retries: counts.retries,
      throttled: counts.throttled,
      serverDate: trace.serverDate,
    };
  }

  /** One page, with its retries. */
  async function fetchPage(
    request: SourceRequest,
    pageNo: number,
    params: Record<string, string>,
    version: MethodVersion,
    options: PagesOptions,
  ): Promise<SourcePage> {
    const { signal } = options;
    const decode = decoderFor(options.recognize);
    const property = request.context?.property ?? params.propertyId;
    const site: CallSite = { method: request.method.name, property, page: pageNo };
    const schedule = new RetrySchedule(settings.retry, settings.rateLimit.maxWaitMs);
    const counts = { calls: 0, retries: 0, throttled: 0 };
    const keyOfPage = options.keep || options.reuse ? keptKey(request, version, params, pageNo) : undefined;
    const earlier = options.reuse && keyOfPage ? kept.take(keyOfPage) : undefined;
    if (earlier) {
      logger?.debug(
        { event: 'source.reply_reused', method: request.method.name, page: pageNo },
        `reply of ${request.method.name} page ${pageNo} read again from this run's earlier call`,
      );
      return readPage(request, pageNo, site, earlier, decode, counts, {
        bytes: 0,
        serverDate: earlier.serverDate,
      });
    }
    for (let attemptNo = 1; ; attemptNo++) {
      const trace: Trace = { sent: false, reached: false, sentAt: 0, bytes: 0 };
      let counted = false;
      try {
        const reply = await attempt(request, site, params, version, trace, signal);
        counts.calls += 1;
        counted = true;
        // The decoder may take the bytes over (XML's go to another thread): the kept reply has its own.
        const keeping =
          options.keep && keyOfPage
            ? { ...reply, body: Buffer.from(reply.body), release: undefined }
            : undefined;
        // Decoded, the page holds copies of what it read: the body's buffer is read into again.
        const page = await readPage(request, pageNo, site, reply, decode, counts, trace).finally(
          reply.release,
        );
        if (keeping) kept.put(keyOfPage!, { ...keeping, serverDate: trace.serverDate });
        emit(event(request, site, attemptNo, trace, { throttled: false, willRetry: false }));
        return page;
      } catch (caught) {
        const error = scrubError(caught, secrets);
        if (!(error instanceof SourceError) || !trace.sent) throw error;
        if (trace.reached && !counted) counts.calls += 1;
        const throttled = error instanceof ThrottledError;
        if (throttled) {
          counts.throttled += 1;
          totals.throttled += 1;
        }
        if (trace.status === undefined) trace.status = error.status;
        const delay = schedule.next(error, attemptNo);
        emit(
          event(request, site, attemptNo, trace, {
            throttled,
            willRetry: delay !== undefined,
            error: error.message,
          }),
        );
        if (delay === undefined) {
          // The calls of this page that reached the source: what its unit is charged.
          error.attempts = counts.calls;
          throw error;
        }
        counts.retries += 1;
        totals.retries += 1;
        await sleep(timerDelay(delay), undefined, { signal }).catch((aborted: unknown) => {
          throw signal?.reason ?? aborted;
        });
      }
    }
  }

  function event(
    request: SourceRequest,
    site: CallSite,
    attemptNo: number,
    trace: Trace,
    fields: Pick<CallEvent, 'throttled' | 'willRetry' | 'error'>,
  ): CallEvent {
    const out: CallEvent = {
      method: request.method.name,
      ...(request.context?.runId !== undefined ? { runId: request.context.runId } : {}),
      property: site.property,
      stream: request.context?.stream,
      workUnit: request.context?.workUnit,
      page: site.page!,
      attempt: attemptNo,
      ms: Math.round((trace.endedAt ?? performance.now()) - trace.sentAt),
      bytes: trace.bytes,
      budgetLeft: gate.left(),
      throttled: fields.throttled,
      willRetry: fields.willRetry,
    };
    if (trace.status !== undefined) out.status = trace.status;
    if (trace.remaining !== undefined) out.remaining = trace.remaining;
    if (fields.error !== undefined) out.error = fields.error;
    if (out.property === undefined) delete out.property;
    if (out.stream === undefined) delete out.stream;
    if (out.workUnit === undefined) delete out.workUnit;
    return out;
  }

  async function* pages(
    request: SourceRequest,
    pageOptions: PagesOptions = {},
  ): AsyncGenerator<SourcePage, void, undefined> {
    let version: MethodVersion;
    let params: Record<string, string>;
    try {
      version = versionOf(settings, request.method);
      params = encodeParams(request.method, version, request.params, timeZone);
    } catch (error) {
      throw scrubError(error, secrets);
    }
    const startPage = pageOptions.startPage ?? 1;
    if (!Number.isInteger(startPage) || startPage < 1)
      throw new SourceError(`startPage ${startPage} is not a page number (from 1)`, {
        method: request.method.name,
      });
    // The total of the first page whose total agreed with its records sets how far the listing may go.
    let cap = settings.maxPages;
    let capped = false;
    let ahead: PageAhead | undefined;
    try {
      for (let pageNo = startPage; ; pageNo++) {
        const taken = ahead;
        ahead = undefined;
        const page = taken
          ? await taken.take()
          : await fetchPage(request, pageNo, params, version, pageOptions);
        if (
          !capped &&
          totalAgrees({
            pageNo,
            perPage: page.perPage,
            count: page.records.length,
            totalCount: page.totalCount,
          })
        ) {
          cap = pageCap(settings.maxPages, page.perPage, page.totalCount);
          capped = true;
        }
        if (pageOptions.prefetch && !page.isLast && pageNo < cap)
          ahead = pageAhead(pageOptions.signal, (signal) =>
            fetchPage(request, pageNo + 1, params, version, { ...pageOptions, signal }),
          );
        yield page;
        if (page.isLast) return;
        if (pageNo >= cap) {
          throw new SourceError(
            `the listing of ${request.method.name} did not end after ${pageNo} pages of ${page.perPage} ` +
              `(the most it may take${capped ? ` for its announced ${page.totalCount} records` : ''}: ${cap}); ` +
              `it is not trusted`,
            {
              method: request.method.name,
              property: request.context?.property ?? params.propertyId,
              page: pageNo,
            },
          );
        }
      }
    } finally {
      // The caller stopped before taking the page fetched ahead: it is stopped, and its calls told.
      if (ahead) await pageOptions.onUnused?.(await ahead.drop());
    }
  }

  /** A page being fetched ahead, under its own abort joined to the caller's signal. */
  interface PageAhead {
    take(): Promise<SourcePage>;
    /** Stops it and gives the calls it made. */
    drop(): Promise<number>;
  }

  function pageAhead(
    callerSignal: AbortSignal | undefined,
    fetch: (signal: AbortSignal) => Promise<SourcePage>,
  ): PageAhead {
    const stop = new AbortController();
    const fetched = fetch(callerSignal ? AbortSignal.any([callerSignal, stop.signal]) : stop.signal);
    // Not yet taken: a failure waits for the caller (or for `drop`).
    fetched.catch(() => {});
    return {
      take: () => fetched,
      async drop() {
        stop.abort(new Error('the caller stopped before taking this page'));
        const calls = fetched.then(
          (page) => page.calls,
          (error: unknown) => (error instanceof SourceError ? (error.attempts ?? 0) : 0),
        );
        // Stopped, it settles at once but for a warehouse outage its booking rides out: the caller never waits on it.
        return Promise.race([calls, sleep(DROP_WAIT_MS, 0, { ref: false })]);
      },
    };
  }

  return {
    pages,
    today: () => clock.today(),
    dayAhead: () => clock.dayAhead(),
    versionOf: (method) => versionOf(settings, method),
    stats: (): ClientStats => ({ ...totals, budgetLeft: gate.left() }),
    async close() {
      if (closed) return;
      closed = true;
      pacer.close(new SourceError('the source client is closed'));
      await Promise.all([transport.close(), xml?.then((decoder) => decoder.close())]);
    },
  };
}
