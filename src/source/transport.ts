/**
 * One HTTP call to the source: the envelope in the body the auth mode makes of it (multipart
 * form parts, or JSON for the gateway) on a keep-alive undici pool, with a timeout and a cap
 * on the reply's bytes. Why: docs/source-client.md#transport
 */
import { Pool, undiciErrors, type Dispatcher } from './undici-pool.js';
import type { AuthMode } from './auth-modes.js';
import { MalformedReplyError, ReplyTooLargeError, TransportError, type CallSite } from './errors.js';
import { replyBuffers } from './reply-buffers.js';

/** Options of a transport. */
export interface TransportOptions {
  /** The service base (`https://host` or `https://host/prefix`). */
  url: string;
  /** The auth mode: the path of an area, the credential's header and the body's shape. */
  auth: AuthMode;
  /** Timeout of one call, headers and body together. */
  timeoutMs: number;
  /** Keep-alive connections in the pool. */
  connections: number;
  /** Send `X-Send-Pagination-Links: 1` (links in the body as well). */
  sendPaginationLinks?: boolean;
  /** Largest body accepted, in bytes (default `MAX_REPLY_BYTES`). */
  maxReplyBytes?: number;
}

/** Default largest reply body: 64 MiB. */
export const MAX_REPLY_BYTES = 64 * 1024 * 1024;

/** One call's request. */
export interface HttpCall {
  area: string;
  pageNo: number;
  perPage: number;
  /** The envelope's text and its content type. */
  body: string;
  contentType: string;
  site: CallSite;
  signal?: AbortSignal;
}

/** One call's reply. */
export interface HttpReply {
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer;
  /**
   * Gives the body's buffer back to be read into again: for a JSON reply, to be called once,
   * when nothing reads the body any more (what was decoded from it holds copies).
   */
  release?: () => void;
}

/** Socket errors of a connection that was never made: the call did not reach the source. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** True when `error` says no connection to the source was made (refused, unknown host, connect timeout). */
function neverConnected(error: unknown): boolean {
  if (error instanceof undiciErrors.ConnectTimeoutError) return true;
  for (let current = error, depth = 0; current instanceof Error && depth < 3; depth++) {
    if (NOT_CONNECTED.has((current as { code?: string }).code ?? '')) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** An error's code (or name) and message. */
function describe(error: unknown): string {
  return error instanceof Error
    ? `${(error as { code?: string }).code ?? error.name}: ${error.message}`
    : String(error);
}

/** Keep-alive time of an idle connection. */
export const KEEP_ALIVE_MS = 30_000;

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function isTimeout(error: unknown): boolean {
  return (
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError ||
    (error instanceof Error && error.name === 'TimeoutError')
  );
}

/** The HTTP side of the client: one keep-alive pool to the source's origin. */
export class Transport {
  private readonly pool: Pool;
  private readonly basePath: string;

  constructor(private readonly options: TransportOptions) {
    const base = new URL(options.url);
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.pool = new Pool(base.origin, {
      connections: options.connections,
      keepAliveTimeout: KEEP_ALIVE_MS,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connectTimeout: Math.min(options.timeoutMs, 30_000),
    });
  }

  /** The path and query of a call. */
  pathOf(area: string, pageNo: number, perPage: number): string {
    return `${this.basePath}${this.options.auth.pathOf(area)}?page_no=${pageNo}&per_page=${perPage}`;
  }

  /**
   * Sends one call and reads its whole reply. Throws `TransportError` when no reply came
   * (timeout, reset before the headers; `failure: 'connect'` when no connection was made),
   * `MalformedReplyError` when the body was cut short, and the signal's reason when the caller aborted.
   */
  async send(call: HttpCall): Promise<HttpReply> {
    const request = this.options.auth.request(call.body, call.contentType);
    const xml = call.contentType.startsWith('application/xml');
    const headers: Record<string, string> = {
      ...request.headers,
      accept: xml ? 'application/xml' : 'application/json',
      'user-agent': 'propsync',
    };
    if (this.options.sendPaginationLinks) headers['x-send-pagination-links'] = '1';
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
    let status: number | undefined;
    try {
      const response = await this.pool.request({
        path: this.pathOf(call.area, call.pageNo, call.perPage),
        method: 'POST',
        headers,
        body: request.body,
        signal,
      });
      status = response.statusCode;
      const replyHeaders: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(response.headers))
        replyHeaders[name.toLowerCase()] = headerText(value);
      // XML's bytes go whole to a decoding thread, which takes them over: they get a buffer of their own.
      const { body, spare } = await this.readBody(
        response.body,
        replyHeaders['content-length'],
        { ...call.site, status },
        !xml,
      );
      if (!spare) return { status, headers: replyHeaders, body };
      let given = false;
      // Once only: a buffer given back twice would be read into by two replies at once.
      const release = () => {
        if (!given) replyBuffers.give(spare);
        given = true;
      };
      return { status, headers: replyHeaders, body, release };
    } catch (error) {
      if (error instanceof ReplyTooLargeError) throw error;
      if (call.signal?.aborted) throw call.signal.reason;
      if (status === undefined && neverConnected(error)) {
        throw new TransportError(`no connection to the source (${describe(error)})`, {
          ...call.site,
          failure: 'connect',
          cause: error,
        });
      }
      if (timeout.aborted || isTimeout(error)) {
        throw new TransportError(`no reply within ${this.options.timeoutMs} ms (source.requestTimeoutMs)`, {
          ...call.site,
          status,
          failure: 'timeout',
          cause: error,
        });
      }
      const reason = describe(error);
      if (status !== undefined) {
        throw new MalformedReplyError(`reply body cut short (${reason})`, {
          ...call.site,
          status,
          cause: error,
        });
      }
      throw new TransportError(`no reply (${reason})`, { ...call.site, failure: 'network', cause: error });
    }
  }

  /**
   * Reads a body whole, counting its bytes as they come; past the limit the stream is
   * destroyed (the connection goes with it) and the reply refused. A length announced within the
   * limit is read into one buffer of that length, each chunk copied in as it comes, so the reply
   * is never held twice over (its chunks, then their concatenation); bytes past the announced
   * length are kept as chunks. With `spare`, that buffer is a spare one of `replyBuffers`, named
   * as `spare` when the body was read into it.
   */
  private async readBody(
    body: Dispatcher.ResponseData['body'],
    contentLength: string | undefined,
    site: CallSite & { status: number },
    spare: boolean,
  ): Promise<{ body: Buffer; spare?: Buffer }> {
    const limit = this.options.maxReplyBytes ?? MAX_REPLY_BYTES;
    const announced =
      contentLength !== undefined && /^\d+$/.test(contentLength.trim()) ? Number(contentLength) : undefined;
    if (announced !== undefined && announced > limit) {
      body.destroy();
      throw new ReplyTooLargeError(limit, { ...site, received: 0, announced });
    }
    const known = announced !== undefined && announced > 0;
    const taken = known && spare ? replyBuffers.take(announced) : undefined;
    let whole = taken ?? (known ? Buffer.allocUnsafe(announced) : undefined);
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of body) {
      const bytes = chunk as Buffer;
      if (received + bytes.length > limit) {
        chunks.length = 0;
        body.destroy();
        throw new ReplyTooLargeError(limit, { ...site, received: limit });
      }
      if (whole && received + bytes.length <= announced!) bytes.copy(whole, received);
      else {
        if (whole) chunks.push(whole.subarray(0, received));
        whole = undefined;
        chunks.push(bytes);
      }
      received += bytes.length;
    }
    if (whole) return { body: received === whole.length ? whole : whole.subarray(0, received), spare: taken };
    return { body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received) };
  }

  /** Closes the pool's connections (waiting for calls in flight). */
  async close(): Promise<void> {
    await this.pool.close();
  }
}
